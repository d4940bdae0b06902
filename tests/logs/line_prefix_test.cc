#include "logs/line_prefix.h"

#include <gtest/gtest.h>

#include "common/time.h"

namespace aegis {
namespace {

std::string Msg(std::string_view line, LinePrefix* out = nullptr) {
  LinePrefix p = ParseLinePrefix(line, 2026);
  if (out) *out = p;
  return std::string(line.substr(p.message_offset));
}

const double kT = *ParseIsoTime("2026-11-30T10:11:12Z");

TEST(LinePrefix, KernelFormats) {
  LinePrefix p;
  EXPECT_EQ(Msg("[ 8421.113902] NVRM: Xid (PCI:0000:18:00): 79", &p), "NVRM: Xid (PCI:0000:18:00): 79");
  EXPECT_DOUBLE_EQ(p.uptime, 8421.113902);
  EXPECT_TRUE(std::isnan(p.ts));

  EXPECT_EQ(Msg("[Mon Nov 30 10:11:12 2026] NVRM: Xid", &p), "NVRM: Xid");
  EXPECT_DOUBLE_EQ(p.ts, kT);

  EXPECT_EQ(Msg("Nov 30 10:11:12 node-0007 kernel: [ 8421.113902] NVRM: Xid", &p), "NVRM: Xid");
  EXPECT_DOUBLE_EQ(p.ts, kT);
  EXPECT_DOUBLE_EQ(p.uptime, 8421.113902);

  EXPECT_EQ(Msg("2026-11-30T10:11:12.000000+00:00 node-0007 kernel: NVRM: Xid", &p), "NVRM: Xid");
  EXPECT_DOUBLE_EQ(p.ts, kT);
  EXPECT_EQ(Msg("2026-11-30T10:11:12+0000 node-0007 kernel: NVRM: Xid"), "NVRM: Xid");
}

TEST(LinePrefix, OtherCollectors) {
  EXPECT_EQ(Msg("<4>[ 12.5] NVRM: x"), "NVRM: x");
  EXPECT_EQ(Msg("kern  :err   : [ 8421.113902] NVRM: Xid"), "NVRM: Xid");
  EXPECT_EQ(Msg("192.168.11.119: kern:     err: [2026-04-22T21:25:20.466440686Z]: nvidia-nvswitch1: SXid"),
            "nvidia-nvswitch1: SXid");
}

TEST(LinePrefix, LauncherTags) {
  LinePrefix p;
  EXPECT_EQ(Msg("[rank3]:[E1130 10:11:12.5 ProcessGroupNCCL.cpp:1] x", &p), "[E1130 10:11:12.5 ProcessGroupNCCL.cpp:1] x");
  EXPECT_EQ(p.rank, 3);
  EXPECT_DOUBLE_EQ(p.ts, kT + 0.5);  // the glog time is read, not stripped
  Msg("[default12]:hello", &p);
  EXPECT_EQ(p.rank, 12);
  EXPECT_EQ(Msg("7: RuntimeError: boom", &p), "RuntimeError: boom");
  EXPECT_EQ(p.rank, 7);
  EXPECT_EQ(Msg("2019-06-02T16:13:44.884Z: [1,12]<stdout>:host:815:864 [0] NCCL WARN x", &p), "host:815:864 [0] NCCL WARN x");
  EXPECT_EQ(p.rank, 12);
  EXPECT_EQ(p.nccl_device, 0);
  EXPECT_EQ(Msg("[trainer0|0]:ncclInternalError: Internal check failed.", &p), "ncclInternalError: Internal check failed.");
  EXPECT_EQ(p.rank, 0);
  EXPECT_EQ(Msg("[W729 10:15:17.529361055 TCPStore.cpp:125] [c10d] x", &p).substr(0, 5), "[W729");
  EXPECT_EQ(p.rank, -1);
}

// Kubernetes keeps a container's output as "<time> stdout|stderr F|P <line>" (CRI).
TEST(LinePrefix, ContainerLogFiles) {
  LinePrefix p;
  EXPECT_EQ(Msg("2026-11-30T10:11:12.000000000Z stderr F [rank3]:[E1130 10:11:12.5 ProcessGroupNCCL.cpp:1] x", &p),
            "[E1130 10:11:12.5 ProcessGroupNCCL.cpp:1] x");
  EXPECT_DOUBLE_EQ(p.ts, kT);
  EXPECT_EQ(p.rank, 3);
  EXPECT_EQ(Msg("2026-11-30T10:11:12Z stdout P node-7:1234:1290 [5] NCCL WARN x", &p), "node-7:1234:1290 [5] NCCL WARN x");
  EXPECT_EQ(p.nccl_device, 5);
  EXPECT_EQ(Msg("2026-11-30T10:11:12Z stdout Fx"), "stdout Fx");
}

// pdsh, which DeepSpeed's launcher uses across nodes, puts "host: " before each line; it
// is taken only before another prefix, since "RuntimeError: boom" has the same shape.
TEST(LinePrefix, PdshHostLabels) {
  LinePrefix p;
  EXPECT_EQ(Msg("worker-3: [rank11]: node-7:1234:1290 [3] NCCL WARN x", &p), "node-7:1234:1290 [3] NCCL WARN x");
  EXPECT_EQ(p.rank, 11);
  EXPECT_EQ(p.nccl_device, 3);
  EXPECT_EQ(Msg("worker-3: node-7:1234:1290 [2] NCCL WARN x", &p), "node-7:1234:1290 [2] NCCL WARN x");
  EXPECT_EQ(p.nccl_device, 2);
  EXPECT_EQ(Msg("gpu-a100-01: [2026-11-30 10:11:12,000] [INFO] step 3", &p), "[INFO] step 3");
  EXPECT_DOUBLE_EQ(p.ts, kT);
  EXPECT_EQ(Msg("RuntimeError: boom"), "RuntimeError: boom");
  EXPECT_EQ(Msg("ValueError: [1, 2] is not a batch"), "ValueError: [1, 2] is not a batch");
  EXPECT_EQ(Msg("torch.distributed.DistBackendError: [2] is setting up NCCL communicator"),
            "torch.distributed.DistBackendError: [2] is setting up NCCL communicator");
  EXPECT_EQ(Msg("node-3: [2] is setting up NCCL communicator"), "node-3: [2] is setting up NCCL communicator");
  std::string labels;
  for (int i = 0; i < 100000; ++i) labels += "a: ";
  EXPECT_EQ(Msg(labels + "x").size(), labels.size() + 1);  // one look-ahead, no recursion per label
  // The kernel names devices the same way: not a label there.
  EXPECT_EQ(Msg("nvidia-nvswitch1: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 11 egress"),
            "nvidia-nvswitch1: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 11 egress");
}

// In the job's output pdsh's label leads every line, whatever follows it.
TEST(LinePrefix, PdshHostLabelsInTheJobsOutput) {
  auto job_msg = [](std::string_view line) {
    return std::string(line.substr(ParseLinePrefix(line, 2026, true).message_offset));
  };
  EXPECT_EQ(job_msg("worker-1: KeyError: 'attention_mask'"), "KeyError: 'attention_mask'");
  EXPECT_EQ(job_msg("worker-1:   File \"/workspace/train.py\", line 512, in <module>"),
            "File \"/workspace/train.py\", line 512, in <module>");
  EXPECT_EQ(job_msg("KeyError: 'attention_mask'"), "KeyError: 'attention_mask'");
  EXPECT_EQ(job_msg("torch.distributed.DistBackendError: NCCL error"), "torch.distributed.DistBackendError: NCCL error");
  // Only the first element: a second label-like word is the message's own.
  EXPECT_EQ(job_msg("worker-1: cuda-12: ok"), "cuda-12: ok");
}

TEST(LinePrefix, DoubleTimestampAndNcclHeader) {
  LinePrefix p;
  std::string m = Msg("2025-11-09 15:39:31.043 +08:00 [2025-11-09 07:39:30] h100-28:238:1313 [3] transport/net_ib.cc:139 NCCL WARN x", &p);
  EXPECT_EQ(m, "h100-28:238:1313 [3] transport/net_ib.cc:139 NCCL WARN x");
  EXPECT_DOUBLE_EQ(p.ts, *ParseIsoTime("2025-11-09T07:39:31.043Z"));
  EXPECT_EQ(p.nccl_device, 3);
}

TEST(LinePrefix, Continuation) {
  LinePrefix p;
  EXPECT_EQ(Msg("               NVRM: fallen off the bus", &p), "NVRM: fallen off the bus");
  EXPECT_TRUE(p.continuation);
  Msg("[ 12.0] NVRM: x", &p);
  EXPECT_FALSE(p.continuation);
}

TEST(LinePrefix, NeverFails) {
  for (std::string s : {"", "[", "[]", "<", "<99999>", "[ 1.", "Nov", "2026-11-30T", "[rank]:", "\xff\xfe", "  "}) {
    LinePrefix p = ParseLinePrefix(s, 2026);
    EXPECT_LE(p.message_offset, s.size()) << s;
  }
}

}  // namespace
}  // namespace aegis
