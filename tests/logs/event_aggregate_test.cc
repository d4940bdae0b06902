// Evidence aggregation: which records are the same evidence, and what an aggregate keeps
// (count, first and last record, samples), whatever the order records come in.
#include "logs/event_aggregate.h"

#include <gtest/gtest.h>

#include "engine/job_window.h"
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

std::vector<LogEvent> Aggregate(const std::string& text) {
  LogAggregator agg;
  for (auto& e : ScanLines(text)) agg.Add(std::move(e));
  return agg.Take();
}

std::string XidLine(int second, const std::string& pci, int xid, int pid = 41003) {
  return "2026-11-30T10:10:" + std::string(second < 10 ? "0" : "") + std::to_string(second) +
         ".000000+00:00 node-1 kernel: NVRM: Xid (PCI:" + pci + "): " + std::to_string(xid) + ", pid=" +
         std::to_string(pid) + ", name=python, Uncontained: FBHUB. RST: Yes, D-RST: No\n";
}

TEST(EventAggregate, RepeatsOfOneLineBecomeOneEventWithCountFirstLastAndSamples) {
  std::string text;
  for (int i = 0; i < 50; ++i) text += XidLine(i, "0000:18:00", 95, 41000 + i % 3);  // the pid is not evidence
  const auto events = Aggregate(text);
  ASSERT_EQ(events.size(), 1u);
  const LogEvent& e = events[0];
  EXPECT_EQ(e.rule_id, "xid-95");
  EXPECT_EQ(e.count, 50u);
  EXPECT_EQ(e.line, 1u);                // the first record speaks for all
  EXPECT_NE(e.text.find("pid=41000"), std::string::npos);
  EXPECT_EQ(e.LatestLine(), 50u);
  EXPECT_DOUBLE_EQ(e.LatestTs() - e.ts, 49.0);
  ASSERT_EQ(e.samples.size(), kMaxEventSamples);  // the next few, with their own text
  for (size_t k = 0; k < e.samples.size(); ++k) EXPECT_EQ(e.samples[k].line, 2 + k);
  EXPECT_NE(e.samples[0].text.find("pid=41001"), std::string::npos);
}

TEST(EventAggregate, DistinctDevicesPeersRanksAndDecodedClassesStayApart) {
  std::string text;
  for (int i = 0; i < 3; ++i) {
    text += XidLine(i, "0000:18:00", 95);
    text += XidLine(i, "0000:3a:00", 95);  // another GPU
    text += XidLine(i, "0000:18:00", 48);  // another Xid
  }
  // Completion errors naming two peers, from two ranks of the host.
  for (int i = 0; i < 4; ++i)
    for (const char* peer : {"10.1.0.2", "10.1.0.3"})
      for (int rank : {0, 1})
        text += "[rank" + std::to_string(rank) + "]:node-1:41000:41077 [" + std::to_string(rank) +
                "] NCCL WARN NET/IB : Got completion from peer " + peer +
                "<51234> with status=12 opcode=0 len=0 vendor err 129\n";
  const auto events = Aggregate(text);
  std::map<std::pair<std::string, std::string>, uint64_t> counts;  // (rule, device or peer/rank) -> count
  for (const auto& e : events) {
    std::string what(e.Field("pci"));
    if (what.empty()) what = std::string(e.Field("peer")) + "/" + std::to_string(e.rank);
    counts[{e.rule_id, what}] += e.count;
    EXPECT_EQ((counts[{e.rule_id, what}]), e.count) << "two events for one evidence: " << e.rule_id << " " << what;
  }
  EXPECT_EQ(counts.size(), 3u + 4u) << "3 (GPU, Xid) pairs and 2 peers x 2 ranks";
  EXPECT_EQ((counts[{"xid-95", "0000:18:00"}]), 3u);
  EXPECT_EQ((counts[{"xid-95", "0000:3a:00"}]), 3u);
  EXPECT_EQ((counts[{"xid-48", "0000:18:00"}]), 3u);
  EXPECT_EQ((counts[{"nccl-ib-completion-error", "10.1.0.3/1"}]), 4u);
}

TEST(EventAggregate, AnOwnTimeAndAnInheritedOneAreNotTheSameEvidence) {
  // The same message once with a time of its own and once after it, untimed.
  const std::string msg = "NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.\n";
  const auto events = Aggregate("2026-11-30T10:10:00+00:00 n kernel: " + msg + msg + msg);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_TRUE(events[0].ts_exact);
  EXPECT_EQ(events[0].count, 1u);
  EXPECT_FALSE(events[1].ts_exact);
  EXPECT_EQ(events[1].count, 2u);
}

TEST(EventAggregate, OccurrencesInAnyOrderGiveTheSameAggregate) {
  std::string text;
  for (int i = 0; i < 9; ++i) text += XidLine(i, "0000:18:00", 95, 500 + i);
  const auto records = ScanLines(text);
  ASSERT_EQ(records.size(), 9u);
  // In line order, backwards, and as two partial aggregates merged.
  LogAggregator forward, backward, part1, part2;
  for (auto e : records) forward.Add(std::move(e));
  for (auto it = records.rbegin(); it != records.rend(); ++it) backward.Add(LogEvent(*it));
  for (size_t i = 0; i < records.size(); ++i) (i % 2 ? part1 : part2).Add(LogEvent(records[i]));
  LogEvent merged = part2.Take()[0];
  AddOccurrences(merged, std::move(part1.Take()[0]));
  for (const LogEvent& e : {forward.Take()[0], backward.Take()[0], merged}) {
    EXPECT_EQ(e.count, 9u);
    EXPECT_EQ(e.line, 1u);
    EXPECT_NE(e.text.find("pid=500"), std::string::npos);
    EXPECT_EQ(e.LatestLine(), 9u);
    EXPECT_DOUBLE_EQ(e.LatestTs(), records[8].ts);
    ASSERT_EQ(e.samples.size(), kMaxEventSamples);
    EXPECT_EQ(e.samples.front().line, 2u);
    EXPECT_EQ(e.samples.back().line, 1 + kMaxEventSamples);
    EXPECT_NE(e.samples.front().text.find("pid=501"), std::string::npos);
  }
}

TEST(EventAggregate, SidesOfTheJobWindowAreKeptApart) {
  Job job;
  job.started_at = 1796032800.0;  // 2026-11-30T10:00:00Z
  job.ended_at = job.started_at + 1800;
  LogAggregator agg([&](const LogEvent& e) { return WindowSide(e, job); });
  // Two days before the job, then inside it: the same line.
  std::string text;
  for (int i = 0; i < 3; ++i)
    text += "2026-11-28T10:10:0" + std::to_string(i) + "+00:00 n kernel: NVRM: Xid (PCI:0000:18:00): 79, pid=1, x\n";
  for (int i = 0; i < 2; ++i)
    text += "2026-11-30T10:10:0" + std::to_string(i) + "+00:00 n kernel: NVRM: Xid (PCI:0000:18:00): 79, pid=1, x\n";
  for (auto& e : ScanLines(text)) agg.Add(std::move(e));
  const auto events = agg.Take();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].count, 3u);
  EXPECT_TRUE(OutsideJobWindow(events[0], job));
  EXPECT_EQ(events[1].count, 2u);
  EXPECT_FALSE(OutsideJobWindow(events[1], job));
  // An aggregate whose last record is inside the window is not history, whatever its first.
  LogEvent straddling = events[0];
  AddOccurrences(straddling, LogEvent(events[1]));
  EXPECT_FALSE(OutsideJobWindow(straddling, job));
}

}  // namespace
}  // namespace aegis
