// Repeated evidence through the incident and the verdict: the builder adds repeats to one
// event, stages count every record, and the verdict cites the first and shows the count.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine/engine.h"
#include "engine/incident_fixture.h"
#include "test_util.h"

namespace aegis {
namespace {

std::string XidLine(int second, const std::string& pci, int xid, int pid = 41003) {
  return "2026-11-30T10:10:" + std::string(second < 10 ? "0" : "") + std::to_string(second) +
         ".000000+00:00 node-1 kernel: NVRM: Xid (PCI:" + pci + "): " + std::to_string(xid) + ", pid=" +
         std::to_string(pid) + ", name=python, Uncontained: FBHUB. RST: Yes, D-RST: No\n";
}

TEST(RepeatedEvidence, TheBuilderAddsRepeatsToTheSameEventAndSaysHowManyInTheVerdict) {
  test::IncidentFixture f(4);
  std::string text;
  for (int i = 0; i < 1000; ++i) text += XidLine(i % 60, "0000:18:00", 79);
  f.Kernel(2, text);
  f.Kernel(2, XidLine(59, "0000:18:00", 79));  // a later piece of the same file
  ASSERT_EQ(f.incident().events.size(), 1u);
  EXPECT_EQ(f.incident().events[0].ev.count, 1001u);
  const Verdict v = f.Decide();
  EXPECT_EQ(v.stage, Stage::kCriticalError);
  ASSERT_EQ(v.isolate.size(), 1u);
  EXPECT_EQ(v.isolate[0].host, "node-2");
  // The stage counts lines, not events.
  EXPECT_NE(v.confidence.basis.find("1001 critical line(s) on 1 host(s)"), std::string::npos) << v.confidence.basis;
  ASSERT_FALSE(v.evidence.empty());
  EXPECT_EQ(v.evidence[0].line, 1);
  EXPECT_EQ(v.evidence[0].count, 1001u);
  EXPECT_EQ(v.evidence[0].latest_line, 1001);

  const auto j = nlohmann::json::parse(VerdictToJson(v));
  const auto& ev = j["evidence"][0];
  EXPECT_EQ(ev["line"], 1);
  EXPECT_EQ(ev["count"], 1001);
  EXPECT_EQ(ev["latest_line"], 1001);
  EXPECT_DOUBLE_EQ(ev["latest_ts"].get<double>(), test::kJobStart + 600 + 59);
  const std::string person = VerdictToText(v);
  EXPECT_NE(person.find("nodes/node-2/kernel.log:1  [xid-79]  (x1,001, last at line 1,001)"), std::string::npos)
      << person;
}

TEST(RepeatedEvidence, ASingleLineKeepsTheVerdictFormatAsItWas) {
  test::IncidentFixture f(4);
  f.Kernel(2, XidLine(5, "0000:18:00", 79));
  const auto j = nlohmann::json::parse(VerdictToJson(f.Decide()));
  ASSERT_FALSE(j["evidence"].empty());
  EXPECT_FALSE(j["evidence"][0].contains("count"));
  EXPECT_FALSE(j["evidence"][0].contains("latest_line"));
  EXPECT_EQ(VerdictToText(f.Decide()).find("(x"), std::string::npos);
}

TEST(RepeatedEvidence, RootDiagKeepsEveryDistinctPeerOfARepeatedError) {
  // Hosts 2..5 each repeat a completion error naming host 1's NIC 200 times: every edge
  // is kept (one event each), so RootDiag still finds the common endpoint.
  test::IncidentFixture f(6);
  for (int h = 2; h <= 5; ++h) {
    std::string text;
    for (int i = 0; i < 200; ++i)
      text += "[2026-11-30 10:1" + std::to_string(i % 10) + ":00,000] x\n[rank" + std::to_string(h * 8) +
              "]:node-" + std::to_string(h) +
              ":41000:41077 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.1<51234> with status=12 opcode=0 "
              "len=0 vendor err 129\n";
    f.Train(h, text);
  }
  size_t edges = 0;
  for (const auto& e : f.incident().events)
    if (e.ev.line_class == LineClass::kDist) {
      ++edges;
      EXPECT_EQ(e.ev.count, 200u);
    }
  EXPECT_EQ(edges, 4u);
  const Verdict v = f.Decide();
  EXPECT_EQ(v.stage, Stage::kRootDiag) << VerdictToText(v);
  ASSERT_EQ(v.isolate.size(), 1u);
  EXPECT_EQ(v.isolate[0].host, "node-1");
}

TEST(RepeatedEvidence, AFlappingPortCountsEveryDownAndUp) {
  // The same two switch lines three times each: two events, and the flap counted whole.
  test::IncidentFixture f(8);
  std::string text;
  for (int i = 0; i < 3; ++i)
    text += "2026-11-30T10:09:0" + std::to_string(2 * i) +
            "+00:00 tor-r0 %LINEPROTO-5-UPDOWN: Line protocol on Interface Ethernet6, changed state to down\n"
            "2026-11-30T10:09:0" + std::to_string(2 * i + 1) +
            "+00:00 tor-r0 %LINEPROTO-5-UPDOWN: Line protocol on Interface Ethernet6, changed state to up\n";
  f.Switch("tor-r0", text);
  EXPECT_EQ(f.incident().events.size(), 2u);
  const Verdict v = f.Decide();
  EXPECT_EQ(v.stage, Stage::kNetDiag) << VerdictToText(v);
  EXPECT_NE(v.summary.find("(3 down, 3 up)"), std::string::npos) << v.summary;
}

}  // namespace
}  // namespace aegis
