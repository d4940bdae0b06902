// Configuration error lines that came first, on incidents built in memory: they are
// symptoms, and the hosts that printed them are repaired only when the lines are about
// their own configuration. A ConfigCheck finding names the odd host out and the key; with
// none, a mismatch of collectives on hosts configured alike is the job's own code, and a
// disagreement over a named setting names the key and no host.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "engine/incident_fixture.h"
#include "engine/stages.h"

namespace aegis {
namespace {

std::map<std::string, std::string> Alike() {
  return {{"nccl.version", "2.21.5"},  {"gpu.driver_version", "570.86.15"}, {"nic.mlx5_0.mtu", "4096"},
          {"os.dev_shm_mb", "65536"}, {"env.NCCL_IB_GID_INDEX", "3"}};
}

// `hosts` hosts configured alike, then `change` applied to host `odd` (0: none).
void Configure(test::IncidentFixture& f, int hosts, int odd = 0, std::map<std::string, std::string> change = {}) {
  for (int h = 1; h <= hosts; ++h) {
    auto facts = Alike();
    if (h == odd)
      for (const auto& [k, v] : change) facts[k] = v;
    f.Facts(h, facts);
  }
}

std::string Warn(int h, const std::string& time, const std::string& what) {
  return "[" + time + "] step 7 loss 2.0\n" + test::IncidentFixture::Host(h) + ":77:90 [0] " + what + "\n";
}

const char* kWrongType = "misc/socket.cc:441 NCCL WARN socketFinalizeAccept: wrong type 4 != 3";
const char* kMismatch =
    "init.cc:1247 NCCL WARN Mismatched collective detected, please check your collective calls at and around rank "
    "3. You can use NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=COLL to see the collective logs";

TEST(ConfigErrors, TheOddHostOutIsRepairedNotTheHostsThatLoggedTheMismatch) {
  test::IncidentFixture f(6);
  Configure(f, 6, 4, {{"nccl.version", "2.18.1"}});
  for (int h : {1, 2, 3}) f.Train(h, Warn(h, "2026-11-30 10:05:00,000", kWrongType));
  Verdict v = f.Decide();
  EXPECT_EQ(v.action, Action::kRepair);
  EXPECT_EQ(v.cause, Cause::kConfig);
  EXPECT_EQ(v.stage, Stage::kConfigCheck);
  ASSERT_EQ(v.repair.size(), 1u);
  EXPECT_EQ(v.repair[0].host, "node-4");
  EXPECT_EQ(v.repair[0].key, "nccl.version");
  EXPECT_EQ(v.repair[0].value, "2.18.1");
  EXPECT_EQ(v.repair[0].expected, "2.21.5");
  EXPECT_EQ(v.confidence.level, Strength::kHigh);
  bool finding = false, line = false;
  for (const auto& e : v.evidence) {
    finding |= e.rule == "check-same-nccl";
    line |= e.rule == "nccl-version-mismatch";
  }
  EXPECT_TRUE(finding && line) << "the finding and the lines it explains are both evidence";
}

TEST(ConfigErrors, AMismatchOfCollectivesIsExplainedByAnyDifferingKey) {
  test::IncidentFixture f(5);
  Configure(f, 5, 2, {{"nic.mlx5_0.mtu", "1500"}});
  for (int h : {1, 3, 4}) f.Train(h, Warn(h, "2026-11-30 10:05:00,000", kMismatch));
  Verdict v = f.Decide();
  EXPECT_EQ(v.action, Action::kRepair);
  ASSERT_EQ(v.repair.size(), 1u);
  EXPECT_EQ(v.repair[0].host, "node-2");
  EXPECT_EQ(v.repair[0].key, "nic.mlx5_0.mtu");
  EXPECT_EQ(v.repair[0].value, "1500");
}

TEST(ConfigErrors, AMismatchOfCollectivesOnHostsConfiguredAlikeIsTheJobsOwnCode) {
  test::IncidentFixture f(4);
  Configure(f, 4);
  for (int h : {1, 2, 3}) f.Train(h, Warn(h, "2026-11-30 10:05:00,000", kMismatch));
  // Every rank times out afterwards.
  for (int h = 1; h <= 4; ++h)
    f.Train(h, "[rank0]:[E1130 10:15:00.000000000 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective "
               "operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
               "ran for 600100 milliseconds before timing out.\n");
  Verdict v = f.Decide();
  EXPECT_EQ(v.action, Action::kNone);
  EXPECT_EQ(v.cause, Cause::kUser);
  EXPECT_EQ(v.stage, Stage::kUserError);
  EXPECT_TRUE(v.repair.empty());
  EXPECT_TRUE(v.isolate.empty());
  EXPECT_EQ(v.confidence.level, Strength::kMedium);
}

TEST(ConfigErrors, WithoutFactsAMismatchOfCollectivesIsStillTheJobsButLessSure) {
  test::IncidentFixture f(4);
  for (int h : {1, 2}) f.Train(h, Warn(h, "2026-11-30 10:05:00,000", kMismatch));
  Verdict v = f.Decide();
  EXPECT_EQ(v.cause, Cause::kUser);
  EXPECT_EQ(v.confidence.level, Strength::kMedium);
  EXPECT_LT(v.confidence.score, 0.6);
}

TEST(ConfigErrors, AnUnexplainedDisagreementNamesTheKeyAndNoHost) {
  test::IncidentFixture f(4);
  Configure(f, 4);
  for (int h : {2, 3}) f.Train(h, Warn(h, "2026-11-30 10:05:00,000", kWrongType));
  Verdict v = f.Decide();
  EXPECT_EQ(v.action, Action::kRepair);
  EXPECT_EQ(v.cause, Cause::kConfig);
  EXPECT_TRUE(v.repair.empty()) << "no host is named when no host is known to differ";
  EXPECT_NE(v.summary.find("nccl.version"), std::string::npos) << v.summary;
  EXPECT_NE(v.summary.find("unknown"), std::string::npos) << v.summary;
  EXPECT_FALSE(v.evidence.empty());
}

TEST(ConfigErrors, ALineAboutTheHostsOwnConfigurationRepairsThatHostWithItsFinding) {
  test::IncidentFixture f(4);
  Configure(f, 4, 3, {{"os.dev_shm_mb", "64"}});
  f.Train(3, Warn(3, "2026-11-30 10:05:00,000",
                  "include/shm.h:28 NCCL WARN Error: failed to extend /dev/shm/nccl-hbWBsM to 9637892 bytes"));
  Verdict v = f.Decide();
  EXPECT_EQ(v.action, Action::kRepair);
  ASSERT_EQ(v.repair.size(), 1u);
  EXPECT_EQ(v.repair[0].host, "node-3");
  EXPECT_EQ(v.repair[0].key, "os.dev_shm_mb");
  EXPECT_EQ(v.repair[0].value, "64");
}

TEST(ConfigErrors, ALineAboutItsOwnHostWithoutFactsStillRepairsThatHost) {
  test::IncidentFixture f(4);
  f.Train(3, Warn(3, "2026-11-30 10:05:00,000",
                  "include/shm.h:28 NCCL WARN Error: failed to extend /dev/shm/nccl-hbWBsM to 9637892 bytes"));
  Verdict v = f.Decide();
  ASSERT_EQ(v.repair.size(), 1u);
  EXPECT_EQ(v.repair[0].host, "node-3");
  EXPECT_EQ(v.repair[0].key, "os.dev_shm_mb");
  EXPECT_TRUE(v.repair[0].value.empty());
}

TEST(ConfigErrors, TheSameLineOnMostHostsIsTheJobsSettingNotEachHosts) {
  test::IncidentFixture f(4);
  Configure(f, 4);
  for (int h = 1; h <= 4; ++h)
    f.Train(h, Warn(h, "2026-11-30 10:05:00,000", "bootstrap.cc:101 NCCL WARN Bootstrap : no socket interface found"));
  Verdict v = f.Decide();
  EXPECT_EQ(v.action, Action::kRepair);
  EXPECT_EQ(v.cause, Cause::kConfig);
  EXPECT_TRUE(v.repair.empty()) << "draining every host for the job's own setting helps nobody";
  EXPECT_NE(v.summary.find("env.NCCL_SOCKET_IFNAME"), std::string::npos) << v.summary;
}

TEST(ConfigErrors, ConfigLinesAfterDistributedErrorsWithTheirOwnTimeDoNotDecide) {
  test::IncidentFixture f(4);
  Configure(f, 4);
  for (int h = 2; h <= 4; ++h)
    f.Train(h, "2026-11-30T10:05:0" + std::to_string(h) +
                   "+00:00 h:1:2 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.1<4000> with status=12 "
                   "opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.0.0.9 remoteGids::ffff:10.0.0.1\n");
  f.Train(2, Warn(2, "2026-11-30 10:09:00,000", kMismatch));
  Verdict v;
  EXPECT_FALSE(EarlyFatalStage(f.incident(), {}, &v));
}

}  // namespace
}  // namespace aegis
