// The IncidentBuilder: inputs in any order give the same incident and the same verdict;
// the decision can be re-run as events arrive.
#include "engine/incident_builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "engine/engine.h"
#include "engine/incident_fixture.h"
#include "logs/scanner.h"
#include "test_util.h"

namespace aegis {
namespace {

std::vector<LogEvent> ScanLines(const std::string& text) {
  ScanOptions o;
  o.year = 2026;
  Scanner s(test::ShippedMatcher(), o);
  std::vector<LogEvent> out;
  s.ScanText(text, [&](LogEvent&& e) { out.push_back(std::move(e)); });
  return out;
}

Topology Nodes(int n) {
  test::IncidentFixture f(n);
  return f.incident().topology;
}

TEST(IncidentBuilder, EventsInAnyOrderGiveTheSameVerdict) {
  const std::string k2 = "[ 9.0] x\n2026-11-30T10:10:00+00:00 n kernel: NVRM: Xid (PCI:0000:18:00): 48, pid=1, DBE\n";
  const std::string t1 = "[2026-11-30 10:11:00,000] step\n[rank0]:RuntimeError: CUDA error: uncorrectable ECC error "
                         "encountered\n";
  std::vector<std::tuple<std::string, SourceKind, std::string, LogEvent>> inputs;
  for (auto& e : ScanLines(k2)) inputs.emplace_back("node-2", SourceKind::kKernel, "nodes/node-2/kernel.log", e);
  for (auto& e : ScanLines(t1)) inputs.emplace_back("node-1", SourceKind::kTrain, "nodes/node-1/train.log", e);
  ASSERT_GE(inputs.size(), 2u);
  std::string first;
  std::mt19937 rng(7);
  for (int round = 0; round < 6; ++round) {
    std::shuffle(inputs.begin(), inputs.end(), rng);
    IncidentBuilder b;
    // The topology and the job may come after the events (they are located again).
    for (auto& [host, kind, file, ev] : inputs) b.AddLogEvent(host, kind, file, ev);
    test::IncidentFixture f(3);
    b.SetTopology(Nodes(3));
    Job j = f.incident().job;
    b.SetJob(j);
    const std::string json = VerdictToJson(Decide(b.View(), test::ShippedCatalog()));
    if (round == 0) first = json;
    EXPECT_EQ(json, first);
    // Events sorted by file and line whatever the arrival order.
    const auto& ev = b.View().events;
    EXPECT_TRUE(std::is_sorted(ev.begin(), ev.end(), [](const LocatedEvent& a, const LocatedEvent& c) {
      return std::tie(a.file, a.ev.line) < std::tie(c.file, c.ev.line);
    }));
  }
  EXPECT_NE(first.find("\"stage\":\"critical_error\""), std::string::npos) << first;
}

TEST(IncidentBuilder, ReDecidesAsEventsArrive) {
  test::IncidentFixture f(4);
  EXPECT_EQ(f.Decide().action, Action::kOffline);
  f.Kernel(3, "2026-11-30T10:10:00+00:00 n kernel: NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.\n");
  Verdict v = f.Decide();
  EXPECT_EQ(v.action, Action::kIsolate);
  EXPECT_EQ(v.isolate[0].host, "node-3");
}

TEST(IncidentBuilder, KeepsTheNewestCclRecordAndMergesSeries) {
  IncidentBuilder b;
  CclRecord old_rec, new_rec;
  old_rec.comm = new_rec.comm = "ab";
  old_rec.rank = new_rec.rank = 1;
  old_rec.ts = 10;
  new_rec.ts = 20;
  b.AddCclRecord(new_rec);
  b.AddCclRecord(old_rec);  // late and older: ignored
  ASSERT_EQ(b.View().ccl.size(), 1u);
  EXPECT_EQ(b.View().ccl[0].ts, 20);
  Series a{"m", "node-1", "", "f", {30, 45}, {1, 2}};
  Series c{"m", "node-1", "", "f", {15, 30, 60}, {0, 9, 3}};
  b.AddSeries(a);
  b.AddSeries(c);
  ASSERT_EQ(b.View().metrics.size(), 1u);
  EXPECT_EQ(b.View().metrics[0].t, (std::vector<double>{15, 30, 45, 60}));
  EXPECT_EQ(b.View().metrics[0].v, (std::vector<double>{0, 1, 2, 3}));  // the first value received at 30 stays
}

TEST(IncidentBuilder, CapsEventsPerFileAndClassAndSaysSo) {
  IncidentBuilder::Options o;
  o.max_events_per_class = 3;
  IncidentBuilder b(o);
  // Ten distinct hints (ten GPUs), the last one twice: repeats are counted, not capped;
  // distinct events beyond the cap are, and their records said.
  std::string text;
  for (int i = 0; i < 10; ++i)
    text += "[ 5.0] NVRM: Xid (PCI:0000:" + std::to_string(10 + i) + ":00): 63, pid=1, Row Remapper: New row marked\n";
  text += "[ 5.0] NVRM: Xid (PCI:0000:19:00): 63, pid=1, Row Remapper: New row marked\n";
  for (auto& e : ScanLines(text)) b.AddLogEvent("node-1", SourceKind::kKernel, "nodes/node-1/kernel.log", e);
  EXPECT_EQ(b.View().events.size(), 3u);
  Verdict v = Decide(b.View(), test::ShippedCatalog());
  ASSERT_EQ(v.unreadable.size(), 1u);
  EXPECT_NE(v.unreadable[0].reason.find("8 records of events beyond the per-file cap"), std::string::npos)
      << v.unreadable[0].reason;
}

TEST(IncidentBuilder, ReportsAreListedAsMissingOrUnreadable) {
  IncidentBuilder b;
  b.Report("nodes/node-1/kernel.log", Status::NotFound("missing"));
  b.Report("nodes/node-2/facts.json", Status::InvalidArgument("not JSON"));
  b.Report("x", Status::Ok());
  EXPECT_EQ(b.View().missing, std::vector<std::string>{"nodes/node-1/kernel.log"});
  ASSERT_EQ(b.View().unreadable.size(), 1u);
  auto taken = b.Take();
  EXPECT_EQ(taken->missing.size(), 1u);
  EXPECT_TRUE(b.View().missing.empty());
  // The incident handed over keeps a working address book of its own topology.
  EXPECT_FALSE(taken->book->ResolvePeer("10.0.0.1").ok());
}

}  // namespace
}  // namespace aegis
