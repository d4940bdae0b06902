// Stage 2 on incidents built in memory: the job's own exception, or a configuration
// error, that came first explains the distributed errors after it.
#include <gtest/gtest.h>

#include "engine/incident_fixture.h"
#include "engine/stages.h"

namespace aegis {
namespace {

// NCCL WARN lines printed without a time of their own, behind srun's "N: " label, after
// a training-progress line from 22 minutes before the exception: their inherited time is
// a lower bound, never a time, so they do not seem to come before the exception.
TEST(EarlyFatalStage, UntimedLinesAfterAStaleTimedOneDoNotPrecedeTheException) {
  test::IncidentFixture f(4);
  f.Train(1, "0: [2026-11-30 10:25:00,000] step 1500 loss 2.01\n"
             "0: Traceback (most recent call last):\n0:   File \"train.py\", line 88, in <module>\n"
             "0: KeyError: 'labels'\n");
  for (int h = 2; h <= 4; ++h)
    f.Train(h, std::to_string(h) + ": [2026-11-30 10:03:00,000] step 100 loss 3.50\n" + std::to_string(h) +
                   ": node-" + std::to_string(h) + ":77:90 [0] NCCL WARN NET/Socket : Connection closed by remote peer "
                   "node-1<48022>\n" +
                   std::to_string(h) + ": node-" + std::to_string(h) +
                   ":77:90 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.1<4000> with status=12 opcode=0 "
                   "len=0 vendor err 129 (Recv) localGid ::ffff:10.0.0." + std::to_string(h) +
                   " remoteGids::ffff:10.0.0.1\n");
  const Incident& inc = f.incident();
  size_t dist = 0;
  for (const auto& e : inc.events)
    if (e.ev.line_class == LineClass::kDist) {
      ++dist;
      EXPECT_FALSE(e.ev.ts_exact) << e.ev.text;  // inherited from the progress line
    }
  ASSERT_GE(dist, 3u);
  Verdict v;
  ASSERT_TRUE(EarlyFatalStage(inc, {}, &v));
  EXPECT_EQ(v.action, Action::kNone);
  EXPECT_EQ(v.cause, Cause::kUser);
  EXPECT_EQ(v.stage, Stage::kUserError);
  Verdict whole = f.Decide();
  EXPECT_EQ(whole.stage, Stage::kUserError);
  EXPECT_TRUE(whole.isolate.empty());
}

TEST(EarlyFatalStage, DistributedErrorsWithTheirOwnEarlierTimeComeFirst) {
  test::IncidentFixture f(4);
  for (int h = 2; h <= 4; ++h)
    f.Train(h, "2026-11-30T10:05:0" + std::to_string(h) +
                   "+00:00 h:1:2 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.1<4000> with status=12 "
                   "opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.0.0.9 remoteGids::ffff:10.0.0.1\n");
  f.Train(1, "[2026-11-30 10:06:00,000] step 9\n[rank0]:ValueError: bad batch\n");
  Verdict v;
  EXPECT_FALSE(EarlyFatalStage(f.incident(), {}, &v));
}

TEST(EarlyFatalStage, AClearlyFirstExceptionIsStrongEvidence) {
  test::IncidentFixture f(3);
  f.Train(1, "[2026-11-30 10:06:00,000] step 9\n[rank0]:ValueError: bad batch\n");
  f.Train(2, "[W1130 10:07:00.0 TCPStore.cpp:1] [c10d] recvValue failed on SocketImpl(fd=1, addr=[a]:1, "
             "remote=[node-1]:29500): Connection reset by peer\n");
  Verdict v;
  ASSERT_TRUE(EarlyFatalStage(f.incident(), {}, &v));
  EXPECT_EQ(v.confidence.level, Strength::kHigh);
}

}  // namespace
}  // namespace aegis
