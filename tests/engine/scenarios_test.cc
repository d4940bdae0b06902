// Every scenario of the generator, on many seeds and cluster sizes: the verdict must
// match expected.json field by field, and keep the invariants of the verdict format (docs/formats.md).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "engine/engine.h"
#include "gen/scenarios.h"
#include "test_util.h"

namespace aegis {
namespace {

using nlohmann::json;

struct Case {
  std::string scenario;
  uint64_t seed;
  int hosts;
};

std::vector<Case> AllCases() {
  std::vector<Case> out;
  const int sizes[] = {3, 8, 16, 40};
#ifdef AEGIS_SANITIZED
  const uint64_t seeds = 4;  // one per size: the sanitizers look for memory errors, not verdicts
#else
  const uint64_t seeds = 8;
#endif
  for (const auto& s : gen::ScenarioNames())
    for (uint64_t seed = 1; seed <= seeds; ++seed) out.push_back({s, seed, sizes[seed % 4]});
  return out;
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.scenario << " seed " << c.seed << " hosts " << c.hosts; }

class Scenario : public ::testing::TestWithParam<Case> {};

TEST_P(Scenario, VerdictMatchesExpected) {
  const Case& c = GetParam();
  test::TempDir dir;
  gen::GenOptions o;
  o.scenario = c.scenario;
  o.seed = c.seed;
  o.hosts = c.hosts;
  o.kernel_bytes = 6000;
  o.train_bytes = 12000;
  gen::GenerateBundle(o, dir.path());
  json exp = json::parse(test::ReadFile(dir.Sub("expected.json")));
  Verdict v = test::Diagnose(dir.path());
  json got = json::parse(VerdictToJson(v));
  SCOPED_TRACE(got.dump(2));
  Verdict read;  // what the controller stores, read back as the status and dashboard read it
  ASSERT_TRUE(VerdictFromJson(VerdictToJson(v), &read).ok());
  EXPECT_EQ(VerdictToJson(read), VerdictToJson(v));

  EXPECT_EQ(got["format"], 1);
  EXPECT_EQ(got["action"], exp["action"]);
  EXPECT_EQ(got["cause"], exp["cause"]);
  EXPECT_EQ(got["stage"], exp["stage"]);
  std::set<std::tuple<std::string, std::string, std::string>> want_iso, got_iso;
  for (const auto& i : exp["isolate"])
    want_iso.insert({i["host"].get<std::string>(), i["component"].get<std::string>(),
                     i["device"].is_null() ? "" : i["device"].get<std::string>()});
  for (const auto& i : got["isolate"])
    got_iso.insert({i["host"].get<std::string>(), i["component"].get<std::string>(),
                    i["device"].is_null() ? "" : i["device"].get<std::string>()});
  EXPECT_EQ(got_iso, want_iso);
  std::set<std::tuple<std::string, std::string, std::string>> want_rep, got_rep;
  for (const auto& r : exp["repair"])
    want_rep.insert({r["host"].get<std::string>(), r["component"].get<std::string>(),
                     (r.contains("key") ? r["key"] : r["device"]).get<std::string>()});
  for (const auto& r : got["repair"])
    got_rep.insert({r["host"].get<std::string>(), r["component"].get<std::string>(),
                    r.contains("key") ? r["key"].get<std::string>() : r.value("device", std::string())});
  EXPECT_EQ(got_rep, want_rep);
  if (exp.value("offline_all", false)) {
    EXPECT_EQ(got["offline"].size(), static_cast<size_t>(c.hosts));
  }

  // Invariants: hosts exist, every decision carries evidence, a summary for people.
  json topo = json::parse(test::ReadFile(dir.Sub("topology.json")));
  std::set<std::string> hosts;
  for (const auto& n : topo["nodes"]) hosts.insert(n["host"]);
  for (const auto& i : got["isolate"]) EXPECT_TRUE(hosts.count(i["host"]));
  for (const auto& r : got["repair"]) EXPECT_TRUE(hosts.count(r["host"]));
  EXPECT_FALSE(got["evidence"].empty());
  EXPECT_FALSE(got["summary"].get<std::string>().empty());
  for (const auto& e : got["evidence"]) EXPECT_FALSE(e["rule"].get<std::string>().empty());
}

INSTANTIATE_TEST_SUITE_P(Generated, Scenario, ::testing::ValuesIn(AllCases()), [](const auto& info) {
  return info.param.scenario + "_seed" + std::to_string(info.param.seed) + "_hosts" + std::to_string(info.param.hosts);
});

}  // namespace
}  // namespace aegis
