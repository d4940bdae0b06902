// The bundle source under a log storm: what the incident holds follows the distinct
// evidence, not the number of repeated lines.
#include "sources/bundle_source.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "engine/engine.h"
#include "gen/bundle_writer.h"
#include "gen/scenarios.h"
#include "gen/storm.h"
#include "test_util.h"

namespace aegis {
namespace {

struct Held {
  size_t events = 0;
  size_t text_bytes = 0;  // the events' text and their samples' text
  uint64_t hint_records = 0, xid_records = 0;
  Verdict verdict;
};

// A 6-host rootdiag bundle with both storms, read the way `aegis diagnose` reads it.
Held ReadStorm(size_t hint_lines, size_t xid_lines) {
  test::TempDir dir;
  gen::GenOptions o;
  o.scenario = "rootdiag";
  o.seed = 3;
  o.hosts = 6;
  o.gpus = 2;
  o.drop_files = false;
  gen::Bundle b = gen::BuildBundle(o);
  gen::AddStorms(b, {hint_lines, xid_lines}, o.seed);
  gen::BundleWriter(dir.path()).Write(b);

  IncidentBuilder builder;
  EXPECT_TRUE(ReadBundle(dir.path(), test::ShippedMatcher(), {}, &builder).ok());
  Held h;
  const Incident& inc = builder.View();
  h.events = inc.events.size();
  for (const auto& e : inc.events) {
    h.text_bytes += e.ev.text.size();
    for (const auto& s : e.ev.samples) h.text_bytes += s.text.size();
    if (e.ev.Field("env") == "NCCL_IB_TIMEOUT") h.hint_records += e.ev.count;
    if (e.ev.rule_id == "xid-95") h.xid_records += e.ev.count;
  }
  EXPECT_TRUE(inc.dropped_events.empty());
  h.verdict = Decide(inc, test::ShippedCatalog());
  const auto expected = nlohmann::json::parse(test::ReadFile(dir.Sub("expected.json")));
  EXPECT_EQ(ToString(h.verdict.stage), expected["stage"].get<std::string>());
  return h;
}

TEST(BundleSource, AStormTenTimesLongerHoldsTheSameEventsAndText) {
  const Held small = ReadStorm(3000, 5000);
  const Held large = ReadStorm(30000, 50000);
  EXPECT_EQ(small.hint_records, 3000u);
  EXPECT_EQ(small.xid_records, 5000u);
  EXPECT_EQ(large.hint_records, 30000u);
  EXPECT_EQ(large.xid_records, 50000u);
  EXPECT_EQ(small.events, large.events);
  EXPECT_EQ(small.text_bytes, large.text_bytes);
  // Every rank's repeats are one event each: the incident is small.
  EXPECT_LT(small.events, 200u);
  // The Xid storm is history (two days before the job): shown with its count, not a cause.
  EXPECT_EQ(large.verdict.stage, small.verdict.stage);
  bool shown = false;
  for (const auto& h : large.verdict.history)
    if (h.rule == "xid-95") {
      shown = true;
      EXPECT_EQ(h.count, 50000u);
      EXPECT_GT(h.latest_line, h.line);
    }
  EXPECT_TRUE(shown);
}


// A kernel log of uptimes only (plain `dmesg`): nothing tells its boot time, but its newest
// line bounds how long ago each record was printed. An Xid printed days of uptime before
// that line is history for a job of an hour; one printed minutes before it is not.
TEST(BundleSource, AnUptimeOnlyKernelLogPlacesRecordsAgainstItsNewestLine) {
  for (const bool old : {true, false}) {
    test::TempDir dir;
    gen::GenOptions o;
    o.scenario = "no_signal";
    o.seed = 2;
    o.hosts = 4;
    o.gpus = 1;
    o.drop_files = false;
    gen::GenerateBundle(o, dir.path());
    const auto topology = nlohmann::json::parse(test::ReadFile(dir.Sub("topology.json")));
    const std::string host = topology["nodes"][1]["host"];
    const std::string pci = topology["nodes"][1]["gpus"][0]["pci"].get<std::string>().substr(0, 12);
    const double newest = 400000.25, xid_at = old ? 120000.5 : newest - 600;
    std::string kernel;
    char line[256];
    std::snprintf(line, sizeof line, "[%.6f] NVRM: Xid (PCI:%s): 79, pid=1234, GPU has fallen off the bus.\n", xid_at,
                  pci.c_str());
    kernel += line;
    std::snprintf(line, sizeof line, "[%.6f] IPv6: ADDRCONF(NETDEV_CHANGE): ib0: link becomes ready\n", newest);
    kernel += line;
    test::WriteFile(dir.Sub("nodes/" + host + "/kernel.log"), kernel);
    const Verdict v = test::Diagnose(dir.path());
    if (old) {
      EXPECT_NE(ToString(v.action), "isolate") << v.summary;
      ASSERT_EQ(v.history.size(), 1u);
      EXPECT_EQ(v.history[0].rule, "xid-79");
    } else {
      EXPECT_EQ(ToString(v.action), "isolate") << v.summary;
      ASSERT_EQ(v.isolate.size(), 1u);
      EXPECT_EQ(v.isolate[0].host, host);
    }
  }
}

}  // namespace
}  // namespace aegis
