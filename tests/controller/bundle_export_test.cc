// An incident exported as a bundle: `aegis diagnose` on it reaches the incident's verdict,
// and line numbers in evidence stay true; redaction keeps only what the rules matched
// (its pseudonyms: redaction_test.cc).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "bundle/bundle_reader.h"
#include "controller/bundle_export.h"
#include "controller/iso_time.h"
#include "env/manual_clock_env.h"
#include "gen/cluster.h"
#include "sources/bundle_source.h"
#include "test_controller.h"

namespace aegis::controller::test {
namespace {

using nlohmann::json;

struct Exported {
  json incident;
  std::string dir;
};

// Posts the incident, ends the job as `state` (or moves `clock`, the controller's, past its
// --hang-after and lets it find the hang), and writes the decided incident's bundle.
Exported DecideAndExport(TestController& c, gen::Bundle& b, const std::string& state, bool redact,
                         const std::string& out_dir, const SimOptions& sim = {}, ManualClockEnv* clock = nullptr) {
  PostIncident(c, b, sim);
  std::string id;
  if (!state.empty()) {
    HttpReply end = c.Post("/api/v1/jobs/" + b.c.job_id + "/end",
                           json{{"state", state}, {"ended_at", FormatIsoTime(b.c.end)}}.dump());
    id = end.Json()["incident"];
  } else {
    EXPECT_NE(clock, nullptr) << "a hang needs the controller's clock to move";
    if (!clock) return {};
    EXPECT_TRUE(WaitForLoopPasses(c, 1));  // the snapshots are read at the time they came
    clock->Advance(c.controller().options().hang_after_s + 1);
    c.controller().loop().Wake();
    WaitFor([&] { return c.Get("/api/v1/incidents").Json().size() == 1; });
    id = c.Get("/api/v1/incidents").Json()[0]["id"];
  }
  Exported e;
  e.incident = WaitDecided(c, id);
  HttpReply bundle = c.Get("/api/v1/incidents/" + id + "/bundle" + (redact ? "?redact=1" : ""));
  EXPECT_EQ(bundle.status, 200);
  Status s = WriteBundle(bundle.Json(), out_dir);
  EXPECT_TRUE(s.ok()) << s.ToString();
  e.dir = out_dir;
  return e;
}

class Export : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(Export, DiagnoseReachesTheIncidentsVerdict) {
  const auto [scenario, state] = GetParam();
  ManualClockEnv clock(WallNow());  // before the controller: outlives it
  ControllerOptions o = TestController::Defaults();
  o.hang_after_s = 1;
  o.env = &clock;
  TestController c(o);
  gen::Bundle b = Generate(scenario, 7, 8);
  Exported e = DecideAndExport(c, b, state, false, c.dir() + "/export", {}, &clock);
  ASSERT_FALSE(e.incident.is_null());
  json again = DiagnoseDir(e.dir);
  EXPECT_EQ(Decisive(again), Decisive(e.incident["verdict"])) << again.dump(2);
  // Evidence points at the same lines (in any order: times inherited by untimed lines may
  // differ in the rebuilt logs, and the engine orders evidence by time).
  auto places = [](const json& evidence) {
    std::set<std::pair<std::string, long long>> out;
    for (const auto& ev : evidence) out.emplace(ev["file"].get<std::string>(), ev["line"].get<long long>());
    return out;
  };
  EXPECT_EQ(places(again["evidence"]), places(e.incident["verdict"]["evidence"]))
      << again["evidence"].dump(2) << "\n" << e.incident["verdict"]["evidence"].dump(2);
  EXPECT_TRUE(std::filesystem::exists(e.dir + "/incident.json"));
}

INSTANTIATE_TEST_SUITE_P(Scenarios, Export,
                         ::testing::Values(std::pair{"xid79", "failed"}, std::pair{"user_exception", "failed"},
                                           std::pair{"nic_down", "failed"}, std::pair{"config_mismatch", "failed"},
                                           std::pair{"compute_hang", ""}, std::pair{"ecn_surge", "slow"}),
                         [](const auto& info) { return std::string(info.param.first); });

// A storm the agents shipped as counts: the export writes each event's first and last
// records, so the rebuilt logs span the same lines and times and
// `aegis diagnose` on them places the storm where the live decision did.
TEST(ExportStorm, TheLastRecordOfACountedEventIsWritten) {
  TestController c;
  gen::Bundle b = Generate("xid79", 7, 8);
  // The faulty GPU repeats its Xid 79 every second for a minute: one event with a count
  // from an agent that coalesces.
  bool repeated = false;
  for (int i = 0; i < b.Hosts() && !repeated; ++i) {
    for (const auto& line : b.Node(i).kernel.Sorted()) {
      const size_t at = line.text.find("NVRM: Xid");
      if (at == std::string::npos || line.text.find(": 79,", at) == std::string::npos) continue;
      const std::string msg = line.text.substr(at);
      const double t = line.ts;
      for (int k = 1; k <= 60; ++k) b.Node(i).kernel.Add(t + k, gen::KernelLine(b.N(i), t + k, msg));
      repeated = true;
      break;
    }
  }
  ASSERT_TRUE(repeated);
  SimOptions sim;
  sim.fold_repeats = true;
  const Exported e = DecideAndExport(c, b, "failed", false, c.dir() + "/storm", sim);
  const json& incident = e.incident;
  ASSERT_FALSE(incident.is_null());
  const json again = DiagnoseDir(e.dir);
  EXPECT_EQ(Decisive(again), Decisive(incident["verdict"]));

  auto counted = [](const json& verdict) {
    for (const auto& e : verdict["evidence"])
      if (e.value("count", 1) > 1) return e;
    return json();
  };
  const json live = counted(incident["verdict"]);
  ASSERT_FALSE(live.is_null()) << incident["verdict"].dump(2);
  EXPECT_GE(live["count"].get<int>(), 60);
  json rebuilt;
  for (const auto& e : again["evidence"])
    if (e["file"] == live["file"] && e["line"] == live["line"]) rebuilt = e;
  ASSERT_FALSE(rebuilt.is_null()) << again.dump(2);
  EXPECT_EQ(rebuilt["latest_line"], live["latest_line"]);  // the first and last records kept
  EXPECT_EQ(rebuilt["latest_ts"], live["latest_ts"]);
  EXPECT_EQ(rebuilt.value("count", 1), 2);  // the records between are not known
}

TEST(ExportRedacted, KeepsOnlyWhatRulesMatched) {
  TestController c;
  gen::Bundle b = Generate("xid79", 7, 8);
  Exported e = DecideAndExport(c, b, "failed", true, c.dir() + "/redacted");
  ASSERT_FALSE(e.incident.is_null());
  json again = DiagnoseDir(e.dir);
  // The export's incident.json names hosts by the same pseudonyms as its files
  // (redaction_test.cc checks the rest of the redaction).
  std::string incident_text;
  ASSERT_TRUE(ReadSmallFile(e.dir + "/incident.json", &incident_text).ok());
  const json redacted_incident = json::parse(incident_text);
  EXPECT_EQ(Decisive(again), Decisive(redacted_incident["verdict"]));
  EXPECT_EQ(again["stage"], e.incident["verdict"]["stage"]);
  const json& ev = redacted_incident["verdict"]["evidence"][0];
  EXPECT_EQ(ev["line"], e.incident["verdict"]["evidence"][0]["line"]);
  std::string text;
  ASSERT_TRUE(ReadSmallFile(e.dir + "/" + ev["file"].get<std::string>(), &text).ok());
  size_t line = 1, at = 0;
  while (line < ev["line"].get<size_t>()) {
    at = text.find('\n', at) + 1;
    ++line;
  }
  const std::string redacted = text.substr(at, text.find('\n', at) - at);
  // The matched Xid report is kept; the rest of the message (pid, process name, ...) is not.
  EXPECT_NE(redacted.find("Xid"), std::string::npos) << redacted;
  EXPECT_LT(redacted.size(), e.incident["verdict"]["evidence"][0]["text"].get<std::string>().size() + 40) << redacted;
  EXPECT_EQ(redacted.find("pid="), std::string::npos) << redacted;
}

TEST(ExportFiles, UnsafePathsAreRefused) {
  store::test::ScratchDir dir;
  json doc = {{"files", {{"../escape", "x"}}}};
  EXPECT_TRUE(WriteBundle(doc, dir.path() + "/b").IsInvalidArgument());
  doc = {{"files", {{"/etc/x", "x"}}}};
  EXPECT_TRUE(WriteBundle(doc, dir.path() + "/b").IsInvalidArgument());
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/b"));
}

TEST(ExportFiles, ANewOrEmptyDirectoryUnderOneThatExists) {
  store::test::ScratchDir dir;
  const json doc = {{"files", {{"job.json", "{}"}, {"nodes/n1/kernel.log", "x\n"}}}};
  EXPECT_TRUE(WriteBundle(doc, dir.path() + "/missing/b").IsNotFound());
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/missing"));
  ASSERT_TRUE(WriteBundle(doc, dir.path() + "/b").ok());
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/b/nodes/n1/kernel.log"));
  EXPECT_EQ(WriteBundle(doc, dir.path() + "/b").code(), Status::Code::kAlreadyExists);
  std::filesystem::create_directory(dir.path() + "/empty");
  EXPECT_TRUE(WriteBundle(doc, dir.path() + "/empty").ok());
}

}  // namespace
}  // namespace aegis::controller::test
