// Stage 3 on incidents built in memory: a common endpoint needs real support, and weak
// support never outranks a specific finding of ConfigCheck or NetDiag.
#include <gtest/gtest.h>

#include "engine/incident_fixture.h"
#include "engine/stages.h"

namespace aegis {
namespace {

std::string Timeout(int rank) {
  return "[rank" + std::to_string(rank) + "]:[E1130 10:20:00.0 ProcessGroupNCCL.cpp:1] [Rank " + std::to_string(rank) +
         "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, Timeout(ms)=600000) "
         "ran for 600010 milliseconds before timing out.\n";
}

// host `from` reports a broken connection to host `to`, with its own time.
std::string Reset(int to, int second) {
  return "[W1130 10:10:" + std::string(second < 10 ? "0" : "") + std::to_string(second) +
         ".0 TCPStore.cpp:1] [c10d] recvValue failed on SocketImpl(fd=1, addr=[a]:1, remote=[node-" +
         std::to_string(to) + "]:29500): Connection reset by peer\n";
}

std::map<std::string, std::string> Facts(const std::string& nccl) {
  return {{"nccl.version", nccl}, {"gpu.driver_version", "550.54.15"}, {"cuda.version", "12.4"}};
}

// A system-wide failure: every rank times out; one host's configuration differs; two
// incidental connection errors happen to name one healthy host.
TEST(DistStage, IncidentalEdgesDoNotOutrankAConfigFinding) {
  test::IncidentFixture f(12);
  for (int h = 1; h <= 12; ++h) {
    f.Train(h, Timeout(h - 1));
    f.Facts(h, Facts(h == 9 ? "2.18.3" : "2.21.5"));
  }
  f.Train(4, Reset(3, 1));
  f.Train(7, Reset(3, 2));
  auto c = FindDistCandidate(f.incident());
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->stage, Stage::kRootDiag);
  EXPECT_EQ(c->reporters, 2u);
  EXPECT_NE(c->confidence.level, Strength::kHigh);
  Verdict v = f.Decide();
  EXPECT_EQ(v.stage, Stage::kConfigCheck);
  EXPECT_EQ(v.action, Action::kRepair);
  ASSERT_EQ(v.repair.size(), 1u);
  EXPECT_EQ(v.repair[0].host, "node-9");
  EXPECT_EQ(v.repair[0].key, "nccl.version");
  EXPECT_TRUE(v.isolate.empty());
}

TEST(DistStage, IncidentalEdgesDoNotOutrankAFlappingPort) {
  test::IncidentFixture f(12);
  for (int h = 1; h <= 12; ++h) f.Train(h, Timeout(h - 1));
  f.Train(4, Reset(3, 1));
  f.Train(7, Reset(3, 2));
  f.Train(10, Reset(3, 3));
  f.Switch("tor-r0", "2026-11-30T10:09:00+00:00 tor-r0 %LINEPROTO-5-UPDOWN: Line protocol on Interface Ethernet6, "
                     "changed state to down\n2026-11-30T10:09:02+00:00 tor-r0 %LINEPROTO-5-UPDOWN: Line protocol on "
                     "Interface Ethernet6, changed state to up\n");
  Verdict v = f.Decide();
  EXPECT_EQ(v.stage, Stage::kNetDiag);
  ASSERT_FALSE(v.repair.empty());
  EXPECT_EQ(v.repair[0].host, "node-6");
  EXPECT_TRUE(v.isolate.empty());
}

TEST(DistStage, ManyIndependentReportersAreStrongAndStillDecide) {
  test::IncidentFixture f(12);
  for (int h = 1; h <= 12; ++h) f.Facts(h, Facts(h == 9 ? "2.18.3" : "2.21.5"));
  for (int h : {2, 4, 5, 7, 11}) f.Train(h, Reset(3, h));
  auto c = FindDistCandidate(f.incident());
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->reporters, 5u);
  EXPECT_EQ(c->confidence.level, Strength::kHigh);
  Verdict v = f.Decide();
  EXPECT_EQ(v.stage, Stage::kRootDiag);
  ASSERT_EQ(v.isolate.size(), 1u);
  EXPECT_EQ(v.isolate[0].host, "node-3");
  EXPECT_NE(v.confidence.basis.find("5 independent reporter"), std::string::npos);
}

TEST(DistStage, WeakSupportStillDecidesWhenNothingSpecificIsFound) {
  test::IncidentFixture f(6);
  f.Train(4, Reset(3, 1));
  f.Train(5, Reset(3, 2));
  Verdict v = f.Decide();
  EXPECT_EQ(v.stage, Stage::kRootDiag);
  ASSERT_EQ(v.isolate.size(), 1u);
  EXPECT_EQ(v.isolate[0].host, "node-3");
  EXPECT_NE(v.confidence.level, Strength::kHigh);
}

TEST(DistStage, AOneSidedPairIsWeak) {
  test::IncidentFixture f(2);
  f.Train(1, Reset(2, 1));
  auto c = FindDistCandidate(f.incident());
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->stage, Stage::kDistPair);
  EXPECT_EQ(c->confidence.level, Strength::kLow);
}

TEST(DistStage, HistoryLinesAreNoEdges) {
  test::IncidentFixture f(6);
  // Connection errors from the day before the job: another job's.
  for (int h : {2, 4, 5, 6})
    f.Train(h, "[W1129 10:10:00.0 TCPStore.cpp:1] [c10d] recvValue failed on SocketImpl(fd=1, addr=[a]:1, "
               "remote=[node-3]:29500): Connection reset by peer\n");
  EXPECT_FALSE(FindDistCandidate(f.incident()).has_value());
}


// A flushed request (status 5) follows the failure of its queue pair: the completions that
// say what broke name the endpoint, the flushes between healthy hosts do not.
TEST(DistStage, FlushedRequestsAreEchoesNotEdges) {
  test::IncidentFixture f(3);
  auto completion = [](int to, int status) {
    return "2026-11-30T10:10:00+00:00 h:1:2 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0." +
           std::to_string(to) + "<4000> with status=" + std::to_string(status) +
           " opcode=0 len=0 vendor err 129 (Recv)\n";
  };
  f.Train(2, completion(1, 12));
  f.Train(3, completion(1, 12));
  f.Train(1, completion(2, 12));
  f.Train(2, completion(3, 5));  // a request flushed between the two healthy hosts
  f.Train(3, completion(2, 5));
  auto c = FindDistCandidate(f.incident());
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->stage, Stage::kRootDiag);
  ASSERT_EQ(c->located.size(), 1u);
  EXPECT_EQ(c->located[0], 0) << "node-1, the endpoint of every failed (not flushed) completion";
  EXPECT_EQ(c->pairs, 2u);

  // Flushes alone still name their hosts.
  test::IncidentFixture g(3);
  g.Train(2, completion(3, 5));
  g.Train(3, completion(2, 5));
  auto d = FindDistCandidate(g.incident());
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->stage, Stage::kDistPair);
}

}  // namespace
}  // namespace aegis
