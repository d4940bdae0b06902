// The bundle source under a log storm: what the incident holds follows the distinct
// evidence, not the number of repeated lines.
#include "sources/bundle_source.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace aegis
