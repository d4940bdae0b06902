// The "kernel_file" and "train_logs" adapters (log_files_source.cc) as the loop drives
// them, built through the registry: files followed as they grow, their lines classified,
// the held-back record emitted on a flush.
#include <gtest/gtest.h>

#include "sources/source_harness.h"
#include "test_support.h"

namespace aegis::agent {
namespace {

using testing::AppendFile;
using testing::ScratchDir;
using testing::WriteFile;

const std::string kXid =
    "Nov 30 10:11:12 node-0007 kernel: [ 8421.113902] NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.";

TEST(LogFileInputs, AKernelLogFileIsFollowedAndItsLinesClassified) {
  ScratchDir d;
  testing::SourceHarness h(d);
  h.config.kernel_log = d / "kern.log";
  WriteFile(d / "kern.log", "Nov 30 10:11:10 node-0007 kernel: [ 8419.0] eth0: link up\n");
  auto s = h.Create("kernel_file");
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->Poll({0, 1000, false}).failed);
  AppendFile(d / "kern.log", kXid + "\n");
  s->Poll({0.5, 1000.5, true});  // a flush reads what is there, whatever the period
  s->Flush();
  auto evs = h.Take();
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0]["rule"], "xid-79");
  EXPECT_EQ(evs[0]["file"], "nodes/node-0007/kernel.log");
  EXPECT_EQ(evs[0]["line"], 2);
  s->SaveState();
  ASSERT_EQ(h.state.kernel_files.size(), 1u);
}

TEST(LogFileInputs, TrainLogsAreGlobbedIntoOneNumbering) {
  ScratchDir d;
  testing::SourceHarness h(d);
  h.config.train_logs = {d / "logs/*.log"};
  WriteFile(d / "logs/rank0.log", "step 1\n");
  auto s = h.Create("train_logs");
  ASSERT_TRUE(s);
  s->Poll({0, 1000, false});
  WriteFile(d / "logs/rank1.log", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n");
  s->Poll({100, 1100, true});  // past the glob period: the new file is found
  s->Flush();
  const auto evs = h.Take();
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0]["file"], "nodes/node-0007/train.log");
  EXPECT_EQ(evs[0]["line"], 2);  // after rank0.log's line, in the node's one numbering
}

}  // namespace
}  // namespace aegis::agent
