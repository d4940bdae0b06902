// The whole agent on the real clock, told of a job by the controller's answers and asked
// to flush: what it reads is tagged with the job, and the flush comes at once.
#include <gtest/gtest.h>

#include <thread>

#include "agent/agent.h"
#include "test_support.h"

namespace aegis::agent {
namespace {

using testing::AppendFile;
using testing::FakeController;
using testing::ScratchDir;
using testing::WriteFile;

const std::string kUser = "RuntimeError: shape '[8, 4096, 32, 128]' is invalid for input of size 67108864";

// The whole agent: told of a job, it tags what it reads with it; asked to flush, it emits
// the record it holds back at once (not after its idle time) and sends a heartbeat covering
// the flush time, long before its own heartbeat period, whatever its clock says.
TEST(Stamps, TheAgentFlushesWhenAskedAndTagsItsLines) {
  ScratchDir d;
  FakeController ctl;
  AgentConfig c;
  c.controller = ctl.url();
  c.node = "node-0007";
  c.kernel_log = "none";
  c.train_logs = {d / "logs/*.log"};
  c.ccl_socket = "none";
  c.facts = "none";
  c.state_dir = d / "state";
  c.metrics_listen = "none";
  c.nvml_library = "libnvidia-ml-absent.so.1";
  c.poll_s = 0.05;
  c.idle_flush_s = 60;  // a held-back record would wait a minute without the flush
  c.glob_s = 0.1;
  c.state_s = 0.1;
  c.sender.heartbeat_s = 3600;  // one at start, then only when asked
  c.sender.backoff_min_s = 0.05;
  c.progress = &testing::Progress();
  ASSERT_TRUE(ValidateConfig(&c).ok());
  ctl.set_scope({{"job", "job-9"}, {"since", Env::Default()->NowEpochSeconds() - 60}, {"report_s", 0.1}, {"flush", nullptr}});
  WriteFile(d / "logs/rank0.log", "");
  Agent agent(c);
  ASSERT_TRUE(agent.Start().ok());
  std::thread loop([&] { agent.Run(); });
  EXPECT_TRUE(ctl.WaitFor([&] { return !ctl.of_type("heartbeat").empty(); }, 5));
  AppendFile(d / "logs/rank0.log", kUser + "\n");
  const auto& read = agent.counters().lines_read[static_cast<int>(InputKind::kTrain)];
  EXPECT_TRUE(ctl.WaitFor([&] { return read.load() >= 1; }, 5));
  EXPECT_TRUE(ctl.of_type("log").empty()) << "held back for continuation lines";
  // The controller's clock runs 30 s ahead of this host's: the flush covers its time anyway
  // (the agent heard of it only after it).
  const double flush_at = Env::Default()->NowEpochSeconds() + 30;
  ctl.set_scope({{"job", "job-9"}, {"since", flush_at - 90}, {"report_s", 0.1}, {"flush", flush_at}});
  EXPECT_TRUE(ctl.WaitFor([&] {
    for (const auto& hb : ctl.of_type("heartbeat"))
      if (hb["at"].get<double>() >= flush_at) return true;
    return false;
  }, 5));
  const auto logs = ctl.of_type("log");
  ASSERT_EQ(logs.size(), 1u) << "sent before the heartbeat that covers it";
  EXPECT_EQ(logs[0]["job"], "job-9");
  EXPECT_LT(logs[0]["read_at"].get<double>(), flush_at);
  agent.Stop();
  loop.join();
}

}  // namespace
}  // namespace aegis::agent
