#include "logs/line_prefix.h"

#include <gtest/gtest.h>

#include <cstring>

#include "common/time.h"
#include "rules/labelled_lines.h"

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

// A repeat's prefix read again from its times alone is what a full parse gives.
void ExpectSamePrefix(const LinePrefix& got, const LinePrefix& want, const std::string& line) {
  EXPECT_EQ(std::isnan(got.ts), std::isnan(want.ts)) << line;
  if (!std::isnan(want.ts)) {
    EXPECT_EQ(std::memcmp(&got.ts, &want.ts, sizeof got.ts), 0) << line << ": to the bit";
  }
  EXPECT_EQ(std::isnan(got.uptime), std::isnan(want.uptime)) << line;
  if (!std::isnan(want.uptime)) {
    EXPECT_EQ(got.uptime, want.uptime) << line;
  }
  EXPECT_EQ(got.zoned, want.zoned) << line;
  EXPECT_EQ(got.yearless, want.yearless) << line;
  EXPECT_EQ(got.rank, want.rank) << line;
  EXPECT_EQ(got.nccl_device, want.nccl_device) << line;
  EXPECT_EQ(got.continuation, want.continuation) << line;
  EXPECT_EQ(got.message_offset, want.message_offset) << line;
}

TEST(LinePrefix, ARepeatedLineIsReadFromItsTimesAlone) {
  const std::pair<std::string, std::string> repeats[] = {
      {"2026-11-30T10:11:12.000000+00:00 node-0007 kernel: NVRM: Xid (PCI:0000:18:00): 95, pid=7",
       "2026-11-30T10:11:13.250001+00:00 node-0007 kernel: NVRM: Xid (PCI:0000:18:00): 95, pid=7"},
      {"2026-11-30T10:11:12.000000+00:00 node-0007 kernel: NVRM: Xid (PCI:0000:18:00): 95, pid=7",
       "2026-12-01T00:00:01.999999+00:00 node-0007 kernel: NVRM: Xid (PCI:0000:18:00): 95, pid=7"},  // another day
      {"2026-11-30T10:11:12.000000+00:00 node-0007 kernel: NVRM: x",
       "2026-11-30T10:11:12.000000-05:00 node-0007 kernel: NVRM: x"},  // another zone
      {"2025-11-09 15:39:31.043 +08:00 [2025-11-09 07:39:30] h100-28:238:1313 [3] NCCL WARN x",
       "2025-11-09 15:39:35.911 +08:00 [2025-11-09 07:39:30] h100-28:238:1313 [3] NCCL WARN x"},
      {"Nov 30 10:11:12 node-0007 kernel: [ 8421.113902] NVRM: Xid", "Nov 30 10:12:02 node-0007 kernel: [ 8471.200000] NVRM: Xid"},
      {"[ 8421.113902] NVRM: Xid (PCI:0000:18:00): 79", "[ 9421.993902] NVRM: Xid (PCI:0000:18:00): 79"},
      {"[Mon Nov 30 10:11:12 2026] NVRM: Xid", "[Mon Nov 30 10:59:59 2026] NVRM: Xid"},
      {"[rank3]:[2026-11-30 10:11:12,123] x", "[rank3]:[2026-11-30 10:11:17,999] x"},
      {"[rank3]:node-1:41003:41080 [3] NCCL INFO NCCL_IB_TIMEOUT set by environment to 22.",
       "[rank3]:node-1:41003:41080 [3] NCCL INFO NCCL_IB_TIMEOUT set by environment to 22."},  // untimed, the same
  };
  for (const auto& [first, repeat] : repeats) {
    LinePrefix like = ParseLinePrefix(first, 2026);
    ASSERT_TRUE(ReparseRepeatedPrefix(repeat, first, 2026, &like)) << repeat;
    ExpectSamePrefix(like, ParseLinePrefix(repeat, 2026), repeat);
  }
}

TEST(LinePrefix, ALineThatDiffersBeyondItsTimesIsNoRepeat) {
  const std::string first = "[rank3]:2026-11-30T10:11:12.000000+00:00 NVRM: Xid (PCI:0000:18:00): 95, pid=7";
  for (std::string other : {
           "[rank4]:2026-11-30T10:11:12.000000+00:00 NVRM: Xid (PCI:0000:18:00): 95, pid=7",   // the rank
           "[rank3]:2026-11-30T10:11:12.000000+00:00 NVRM: Xid (PCI:0000:18:00): 95, pid=8",   // the message
           "[rank3]:2026-11-30T10:11:12.000000+00:00 NVRM: Xid (PCI:0000:18:00): 95, pid=77",  // the length
           "[rank3]:2026-11-30T10:11:99.000000+00:00 NVRM: Xid (PCI:0000:18:00): 95, pid=7",   // no time
           "[rank3]:2026-11-30T10:11:12.000000+0000 NVRM: Xid (PCI:0000:18:00): 95, pid=7x",   // read to another end
       }) {
    LinePrefix like = ParseLinePrefix(first, 2026);
    EXPECT_FALSE(ReparseRepeatedPrefix(other, first, 2026, &like)) << other;
  }
  LinePrefix like = ParseLinePrefix("[ 8421.113902] NVRM: x", 2026);
  EXPECT_FALSE(ReparseRepeatedPrefix("[ 8421-113902] NVRM: x", "[ 8421.113902] NVRM: x", 2026, &like));
}

TEST(LinePrefix, TimeSignsNeverMissATime) {
  // Every line whose prefix has a time or an uptime shows the signs of it; a line without
  // them (most of a job's chatter) has neither.
  std::vector<std::string> lines = {"[ 8421.113902] NVRM: Xid", "[Mon Nov 30 10:11:12 2026] NVRM: Xid",
                                    "Nov 30 10:11:12 node-0007 kernel: [ 8421.113902] NVRM: Xid",
                                    "2026-11-30T10:11:12+0000 node-0007 kernel: NVRM: Xid", "kern  :err   : [ 8421.113902] x",
                                    "192.168.11.119: kern:     err: [2026-04-22T21:25:20.466440686Z]: nvidia-nvswitch1: SXid",
                                    "[rank3]:[E1130 10:11:12.5 ProcessGroupNCCL.cpp:1] x", "<4>[ 12.5] NVRM: x"};
  for (const char* f : {"/corpus/frameworks.tsv", "/corpus/kernel.tsv", "/real-log-lines.tsv"})
    for (const auto& row : test::LoadLabelled(std::string(AEGIS_TEST_DATA) + f)) lines.push_back(row.line);
  size_t timed = 0;
  for (const auto& line : lines) {
    const LinePrefix p = ParseLinePrefix(line, 2026);
    const TimeSigns signs = LookForTimeSigns(line);
    if (!std::isnan(p.ts)) {
      EXPECT_TRUE(signs.clock) << line;
    }
    if (!std::isnan(p.uptime)) {
      EXPECT_TRUE(signs.uptime) << line;
    }
    timed += !std::isnan(p.ts) || !std::isnan(p.uptime);
  }
  EXPECT_GT(timed, 100u);
  // ParseLineTime, which stops at the time, reads the same time.
  for (const auto& line : lines) {
    const LinePrefix full = ParseLinePrefix(line, 2026), quick = ParseLineTime(line, 2026);
    EXPECT_EQ(std::isnan(full.ts), std::isnan(quick.ts)) << line;
    if (!std::isnan(full.ts)) {
      EXPECT_EQ(full.ts, quick.ts) << line;
      EXPECT_EQ(full.zoned, quick.zoned) << line;
      EXPECT_EQ(full.yearless, quick.yearless) << line;
    } else if (!std::isnan(full.uptime)) {
      EXPECT_EQ(full.uptime, quick.uptime) << line;
    }
  }
  const TimeSigns none = LookForTimeSigns("node-0001:41002:41079 [2] NCCL INFO Channel 00/0 : 0[0] -> 1[0] via NET/IB/0");
  EXPECT_FALSE(none.clock);
  EXPECT_FALSE(none.uptime);
}

}  // namespace
}  // namespace aegis
