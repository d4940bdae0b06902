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

Verdict RepairOf(const std::string& host, Component component) {
  Verdict v;
  v.action = Action::kRepair;
  RepairEntry r;
  r.host = host;
  r.component = component;
  v.repair.push_back(r);
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
  const store::ActionRecord& a = p.decision.actions[0];
  EXPECT_EQ(a.op, store::ActionOp::kDrain);
  EXPECT_EQ(a.backend, store::ActionBackend::kNone);
  EXPECT_EQ(a.result, store::ActionResult::kRecorded);
  EXPECT_FALSE(a.dry_run);
  EXPECT_EQ(a.key, "inc-1/drain/node-0007/none");
}

TEST(DecisionPlan, BackendsAndDryRun) {
  PlanInputs in = Inputs(100);
  in.backends = {{store::ActionBackend::kSlurm, ""}, {store::ActionBackend::kExec, "/bin/true"}};
  Plan p = PlanDecision(Isolation(Strength::kHigh), in);
  ASSERT_EQ(p.decision.actions.size(), 2u);
  EXPECT_EQ(p.decision.actions[0].backend, store::ActionBackend::kSlurm);
  EXPECT_EQ(p.decision.actions[0].result, store::ActionResult::kPending);
  EXPECT_EQ(p.decision.actions[1].backend, store::ActionBackend::kExec);
  in.dry_run = true;
  p = PlanDecision(Isolation(Strength::kHigh), in);
  for (const auto& a : p.decision.actions) {
    EXPECT_TRUE(a.dry_run);
    EXPECT_EQ(a.result, store::ActionResult::kRecorded);
  }
}

TEST(DecisionPlan, TheIsolationLimitAlwaysAllowsOneHost) {
  // 5% of 8 hosts is less than one: the first isolation of a small cluster still goes ahead.
  Plan p = PlanDecision(Isolation(Strength::kHigh), Inputs(8));
  EXPECT_FALSE(p.held);
  EXPECT_EQ(IsolationBudget(0.05, 8), 1u);
  EXPECT_EQ(IsolationBudget(0.05, 20), 1u);
  EXPECT_EQ(IsolationBudget(0.05, 1250), 62u);
  EXPECT_EQ(IsolationBudget(0, 1250), 1u);
}

TEST(DecisionPlan, IsolationsWithinTheWindowAreCountedAndHeldBeyondTheLimit) {
  PlanInputs in = Inputs(20);  // one host per window
  in.isolated_recently = {"node-1003"};  // a decision isolated another host lately
  in.isolate_window_s = 7200;
  Plan p = PlanDecision(Isolation(Strength::kHigh), in);
  EXPECT_TRUE(p.held);
  ASSERT_EQ(p.decision.hosts.size(), 1u);
  EXPECT_EQ(p.decision.hosts[0].to, store::HostState::kHeld);
  EXPECT_NE(p.decision.hosts[0].reason.find("--max-isolate-share"), std::string::npos) << p.decision.hosts[0].reason;
  EXPECT_NE(p.decision.hosts[0].reason.find("within 2 h"), std::string::npos) << p.decision.hosts[0].reason;
  EXPECT_NE(p.decision.hosts[0].reason.find("would isolate: Xid 79 on gpu3"), std::string::npos);
  EXPECT_TRUE(p.decision.actions.empty());
  // The same host isolated again within the window counts once.
  in.isolated_recently = {"node-0007"};
  EXPECT_FALSE(PlanDecision(Isolation(Strength::kHigh), in).held);
  // Hosts isolated long ago (outside the window) do not count, even while still isolated.
  in.isolated_recently.clear();
  in.current["node-1000"] = store::HostState::kIsolated;
  in.current["node-1001"] = store::HostState::kIsolated;
  EXPECT_FALSE(PlanDecision(Isolation(Strength::kHigh), in).held);
}

TEST(DecisionPlan, TheWindowIsReadFromHostHistory) {
  std::vector<store::HistoryEntry> h(4);
  h[0] = {"n1", 100, store::HostState::kInService, store::HostState::kIsolated, "inc-1", "Xid", store::ChangedBy::kDecision, "c"};
  h[1] = {"n2", 200, store::HostState::kInService, store::HostState::kIsolated, "", "by hand", store::ChangedBy::kPerson, "alice"};
  h[2] = {"n3", 300, store::HostState::kInService, store::HostState::kHeld, "inc-2", "held", store::ChangedBy::kDecision, "c"};
  h[3] = {"n4", 400, store::HostState::kInService, store::HostState::kIsolated, "inc-3", "Xid", store::ChangedBy::kDecision, "c"};
  EXPECT_EQ(IsolatedRecently(h, 0), (std::set<std::string>{"n1", "n4"}));
  EXPECT_EQ(IsolatedRecently(h, 150), (std::set<std::string>{"n4"}));
}

TEST(DecisionPlan, AHostAlreadyIsolatedIsNotDrainedAgain) {
  PlanInputs in = Inputs(8);
  in.current["node-0007"] = store::HostState::kIsolated;  // an early incident of the job took it out
  Plan p = PlanDecision(Isolation(Strength::kHigh), in);
  EXPECT_FALSE(p.held);
  EXPECT_TRUE(p.decision.hosts.empty());
  EXPECT_TRUE(p.decision.actions.empty());
}

TEST(DecisionPlan, AHostOutOfServiceIsMovedOnButNeverDrainedTwice) {
  const Verdict repair = RepairOf("node-0007", Component::kGpu);
  PlanInputs in = Inputs(8);
  in.current["node-0007"] = store::HostState::kIsolated;  // an earlier incident drained it
  Plan p = PlanDecision(repair, in);
  ASSERT_EQ(p.decision.hosts.size(), 1u);
  EXPECT_EQ(p.decision.hosts[0].to, store::HostState::kRepair);
  EXPECT_TRUE(p.decision.actions.empty()) << "a second drain of a drained host";
  // A person sent it to repair: a later isolation leaves it there.
  in.current["node-0007"] = store::HostState::kRepair;
  p = PlanDecision(Isolation(Strength::kHigh), in);
  EXPECT_TRUE(p.decision.hosts.empty());
  EXPECT_TRUE(p.decision.actions.empty());
  // Held (in service, waiting for a person): isolating it drains it, once.
  in.current["node-0007"] = store::HostState::kHeld;
  p = PlanDecision(Isolation(Strength::kHigh), in);
  ASSERT_EQ(p.decision.hosts.size(), 1u);
  EXPECT_EQ(p.decision.actions.size(), 1u);
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
  Verdict v = RepairOf("node-1001", Component::kConfig);
  v.repair[0].key = "nccl.version";
  v.repair[0].value = "2.18.1";
  v.repair[0].expected = "2.21.5";
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
  EXPECT_EQ(a[0].op, store::ActionOp::kDrain);
  a = ManualActions("n1", store::HostState::kIsolated, store::HostState::kInService, "manual/x", 1, false, {});
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].op, store::ActionOp::kResume);
  EXPECT_TRUE(ManualActions("n1", store::HostState::kInService, store::HostState::kHeld, "m", 1, false, {}).empty());
}

}  // namespace
}  // namespace aegis::controller
