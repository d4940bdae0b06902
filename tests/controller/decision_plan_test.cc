#include "controller/decision_plan.h"

#include <gtest/gtest.h>

namespace aegis::controller {
namespace {

Verdict Isolation(Strength level) {
  Verdict v;
  v.job = "job-1";
  v.action = Action::kIsolate;
  v.cause = Cause::kHardware;
  v.stage = Stage::kCriticalError;
  v.isolate.push_back({"node-0007", Component::kGpu, "gpu3"});
  v.evidence.push_back({"node-0007", "nodes/node-0007/kernel.log", 12, "xid-79", "NVRM: Xid ..."});
  v.confidence = {level, level == Strength::kLow ? 0.3 : 0.9, "one critical line"};
  return v;
}

PlanInputs Inputs(size_t hosts) {
  PlanInputs in;
  in.incident = "inc-1";
  in.decided_by = "test";
  in.now = 1764497525;
  in.verdict_json = "{}";
  in.topology_hosts = hosts;
  for (size_t i = 0; i < hosts; ++i) in.current["node-" + std::to_string(1000 + i)] = store::HostState::kInService;
  in.max_isolate_share = 0.05;
  return in;
}

TEST(DecisionPlan, IsolatesWithOneRecordedDrainEach) {
  Plan p = PlanDecision(Isolation(Strength::kHigh), Inputs(100));
  EXPECT_FALSE(p.held);
  ASSERT_EQ(p.decision.hosts.size(), 1u);
  EXPECT_EQ(p.decision.hosts[0].host, "node-0007");
  EXPECT_EQ(p.decision.hosts[0].to, store::HostState::kIsolated);
  EXPECT_EQ(p.decision.hosts[0].reason, "Xid 79 on gpu3");
  ASSERT_EQ(p.decision.actions.size(), 1u);
  const store::Action& a = p.decision.actions[0];
  EXPECT_EQ(a.op, "drain");
  EXPECT_EQ(a.backend, "none");
  EXPECT_EQ(a.result, "recorded");
  EXPECT_FALSE(a.dry_run);
  EXPECT_EQ(a.key, "inc-1/drain/node-0007/none");
}

TEST(DecisionPlan, BackendsAndDryRun) {
  PlanInputs in = Inputs(100);
  in.backends = {{"slurm", ""}, {"exec", "/bin/true"}};
  Plan p = PlanDecision(Isolation(Strength::kHigh), in);
  ASSERT_EQ(p.decision.actions.size(), 2u);
  EXPECT_EQ(p.decision.actions[0].backend, "slurm");
  EXPECT_EQ(p.decision.actions[0].result, "pending");
  EXPECT_EQ(p.decision.actions[1].backend, "exec");
  in.dry_run = true;
  p = PlanDecision(Isolation(Strength::kHigh), in);
  for (const auto& a : p.decision.actions) {
    EXPECT_TRUE(a.dry_run);
    EXPECT_EQ(a.result, "recorded");
  }
}

TEST(DecisionPlan, ShareLimitHolds) {
  PlanInputs in = Inputs(20);  // 1 of 20 is 5%: not above the limit
  Plan p = PlanDecision(Isolation(Strength::kHigh), in);
  EXPECT_FALSE(p.held);
  in.current["node-1000"] = store::HostState::kIsolated;  // 2 of 20 would be 10%
  p = PlanDecision(Isolation(Strength::kHigh), in);
  EXPECT_TRUE(p.held);
  ASSERT_EQ(p.decision.hosts.size(), 1u);
  EXPECT_EQ(p.decision.hosts[0].to, store::HostState::kHeld);
  EXPECT_NE(p.decision.hosts[0].reason.find("above --max-isolate-share"), std::string::npos) << p.decision.hosts[0].reason;
  EXPECT_NE(p.decision.hosts[0].reason.find("would isolate: Xid 79 on gpu3"), std::string::npos);
  EXPECT_TRUE(p.decision.actions.empty());
}

TEST(DecisionPlan, LowConfidenceHolds) {
  Plan p = PlanDecision(Isolation(Strength::kLow), Inputs(1000));
  EXPECT_TRUE(p.held);
  EXPECT_EQ(p.decision.hosts[0].to, store::HostState::kHeld);
  EXPECT_NE(p.decision.hosts[0].reason.find("confidence is low"), std::string::npos);
  EXPECT_TRUE(p.decision.actions.empty());
  p = PlanDecision(Isolation(Strength::kMedium), Inputs(1000));
  EXPECT_FALSE(p.held);
}

TEST(DecisionPlan, RepairOfflineNone) {
  Verdict v;
  v.action = Action::kRepair;
  RepairEntry r;
  r.host = "node-1001";
  r.component = Component::kConfig;
  r.key = "nccl.version";
  r.value = "2.18.1";
  r.expected = "2.21.5";
  v.repair.push_back(r);
  PlanInputs in = Inputs(10);
  in.known_hosts = {"node-1001", "node-1002"};
  Plan p = PlanDecision(v, in);
  ASSERT_EQ(p.decision.hosts.size(), 1u);
  EXPECT_EQ(p.decision.hosts[0].to, store::HostState::kRepair);
  EXPECT_EQ(p.decision.hosts[0].reason, "repair config nccl.version (has 2.18.1, expected 2.21.5)");

  v = Verdict();
  v.action = Action::kOffline;
  v.offline = {"node-1001", "node-1002", "switch-9"};  // a name outside the topology gets no state
  p = PlanDecision(v, in);
  ASSERT_EQ(p.decision.hosts.size(), 2u);
  EXPECT_EQ(p.decision.hosts[1].to, store::HostState::kOffline);
  EXPECT_EQ(p.decision.actions.size(), 2u);

  v = Verdict();
  v.action = Action::kNone;
  p = PlanDecision(v, in);
  EXPECT_TRUE(p.decision.hosts.empty());
  EXPECT_TRUE(p.decision.actions.empty());
}

TEST(DecisionPlan, ManualActions) {
  auto a = ManualActions("n1", store::HostState::kHeld, store::HostState::kIsolated, "manual/x", 1, false, {});
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].op, "drain");
  a = ManualActions("n1", store::HostState::kIsolated, store::HostState::kInService, "manual/x", 1, false, {});
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].op, "resume");
  EXPECT_TRUE(ManualActions("n1", store::HostState::kInService, store::HostState::kHeld, "m", 1, false, {}).empty());
}

}  // namespace
}  // namespace aegis::controller
