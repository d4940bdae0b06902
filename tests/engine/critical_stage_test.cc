// Stage 1 on incidents built in memory: critical lines prove their host bad, but only
// on the job's time window.
#include <gtest/gtest.h>

#include "engine/incident_fixture.h"
#include "engine/stages.h"

namespace aegis {
namespace {

// A user exception on host 1 that the job died of, with the usual cascade.
void UserFailure(test::IncidentFixture& f) {
  f.Train(1, "[2026-11-30 10:20:00,000] step 1200\n[rank0]:Traceback (most recent call last):\n"
             "[rank0]:  File \"train.py\", line 7, in <module>\n[rank0]:ValueError: bad batch\n");
  for (int h = 2; h <= 4; ++h)
    f.Train(h, "[rank0]:[E1130 10:30:00.0 ProcessGroupNCCL.cpp:1] [Rank 0] Watchdog caught collective operation "
               "timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600010 milliseconds "
               "before timing out.\n");
}

TEST(CriticalStage, AnXidFromDaysBeforeTheJobIsHistoryNotACause) {
  // Kernel logs keep history since boot: one Xid 79 three days before the job started,
  // in each of the kernel-log forms that carry a wall time.
  const std::vector<std::string> lines = {
      "[Fri Nov 27 10:00:00 2026] NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.\n",
      "Nov 27 10:00:00 node-2 kernel: [ 100.5] NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.\n",
      "2026-11-27T10:00:00.1+00:00 node-2 kernel: NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the "
      "bus.\n"};
  for (const auto& line : lines) {
    test::IncidentFixture f(4);
    f.Kernel(2, line);
    UserFailure(f);
    Verdict v = f.Decide();
    SCOPED_TRACE(line);
    EXPECT_EQ(v.stage, Stage::kUserError);
    EXPECT_EQ(v.action, Action::kNone);
    EXPECT_TRUE(v.isolate.empty());
    ASSERT_EQ(v.history.size(), 1u);
    EXPECT_EQ(v.history[0].host, "node-2");
    EXPECT_EQ(v.history[0].rule, "xid-79");
  }
}

TEST(CriticalStage, TheSameXidDuringTheJobIsolates) {
  test::IncidentFixture f(4);
  f.Kernel(2, "[Mon Nov 30 10:19:50 2026] NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.\n");
  UserFailure(f);
  Verdict v = f.Decide();
  EXPECT_EQ(v.stage, Stage::kCriticalError);
  ASSERT_EQ(v.isolate.size(), 1u);
  EXPECT_EQ(v.isolate[0].host, "node-2");
  EXPECT_EQ(v.isolate[0].component, Component::kGpu);
  EXPECT_EQ(v.isolate[0].device, "gpu0");
  EXPECT_EQ(v.confidence.level, Strength::kHigh);
  EXPECT_TRUE(v.history.empty());
}

TEST(CriticalStage, ManyHostsAtOnceLowersTheConfidence) {
  test::IncidentFixture f(8);
  for (int h = 1; h <= 6; ++h)
    f.Kernel(h, "2026-11-30T10:10:00+00:00 n kernel: NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the "
                "bus.\n");
  Verdict v = f.Decide();
  EXPECT_EQ(v.stage, Stage::kCriticalError);
  EXPECT_EQ(v.isolate.size(), 6u);
  EXPECT_NE(v.confidence.level, Strength::kHigh);
  EXPECT_NE(v.confidence.basis.find("6 host"), std::string::npos);
}

TEST(CriticalStage, HintsDoNotDecide) {
  test::IncidentFixture f(3);
  f.Kernel(1, "[ 5.0] NVRM: Xid (PCI:0000:18:00): 63, pid=1, Row Remapper: New row marked for remapping\n");
  Verdict v;
  EXPECT_FALSE(CriticalStage(f.incident(), {}, &v));
}


// NCCL's "unhandled cuda error" wraps the CUDA error printed beside it: NVLS set-up that
// the node's Fabric Manager refused is a configuration repair, not a faulty GPU.
TEST(CriticalStage, AWrapperBesideAConfigurationErrorDoesNotCount) {
  test::IncidentFixture f(3);
  f.Train(2, "[2026-11-30 10:05:00,000] step 1\n"
             "node-2:420:437 [0] transport/nvls.cc:254 NCCL WARN Cuda failure 401 'the operation cannot be "
             "performed in the present state'\n"
             "node-2:420:437 [0] NCCL INFO transport/nvls.cc:380 -> 1\n"
             "[rank0]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
             "ProcessGroupNCCL.cpp:1970, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version "
             "2.21.5\n");
  Verdict v;
  EXPECT_FALSE(CriticalStage(f.incident(), {}, &v)) << v.summary;
  Verdict whole = f.Decide();
  EXPECT_EQ(whole.cause, Cause::kConfig) << whole.summary;
  EXPECT_TRUE(whole.isolate.empty());
}

}  // namespace
}  // namespace aegis
