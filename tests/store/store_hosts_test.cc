// Host states and their history: by decisions and by people.
#include "store_fixture.h"

namespace aegis::store::test {
namespace {

class HostsTest : public StoreTest {};

ManualHostChange ByPerson(const std::string& host, HostState to, double at, const std::string& reason) {
  ManualHostChange m;
  m.host = host;
  m.to = to;
  m.reason = reason;
  m.actor = "alice";
  m.at = at;
  return m;
}

TEST_P(HostsTest, RegisteredHostsStartInService) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  HostRecord h;
  EXPECT_TRUE(store->GetHost("node-1", &h).IsNotFound());
  const std::vector<std::string> hosts{"node-2", "node-1", "node-2"};
  size_t added = 0;
  ASSERT_TRUE(store->RegisterHosts(hosts, 50, &added).ok());
  EXPECT_EQ(added, 2u);
  ASSERT_TRUE(store->RegisterHosts(hosts, 60, &added).ok());
  EXPECT_EQ(added, 0u);
  std::vector<HostRecord> list;
  ASSERT_TRUE(store->ListHosts(&list).ok());
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].host, "node-1");
  EXPECT_EQ(list[0].state, HostState::kInService);
  EXPECT_EQ(list[0].since, 50);
  EXPECT_TRUE(list[0].incident.empty());
  std::vector<HistoryEntry> history;
  ASSERT_TRUE(store->HostHistory("node-1", 10, &history).ok());
  EXPECT_TRUE(history.empty());
}

TEST_P(HostsTest, APersonsChangeIsRecordedInHistory) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  bool changed = false;
  ASSERT_TRUE(store->SetHostState(ByPerson("node-1", HostState::kHeld, 100, "maintenance window"), &changed).ok());
  EXPECT_TRUE(changed);
  // The same state again is not a change: no history row.
  ASSERT_TRUE(store->SetHostState(ByPerson("node-1", HostState::kHeld, 110, "still"), &changed).ok());
  EXPECT_FALSE(changed);
  ASSERT_TRUE(store->SetHostState(ByPerson("node-1", HostState::kInService, 120, "done"), &changed).ok());
  EXPECT_TRUE(changed);

  HostRecord h;
  ASSERT_TRUE(store->GetHost("node-1", &h).ok());
  EXPECT_EQ(h.state, HostState::kInService);
  EXPECT_EQ(h.since, 120);
  EXPECT_EQ(h.reason, "done");
  std::vector<HistoryEntry> history;
  ASSERT_TRUE(store->HostHistory("node-1", 10, &history).ok());
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[0].from, HostState::kInService);
  EXPECT_EQ(history[0].to, HostState::kHeld);
  EXPECT_EQ(history[0].at, 100);
  EXPECT_EQ(history[0].by, ChangedBy::kPerson);
  EXPECT_EQ(history[0].actor, "alice");
  EXPECT_EQ(history[0].reason, "maintenance window");
  EXPECT_TRUE(history[0].incident.empty());
  EXPECT_EQ(history[1].from, HostState::kHeld);
  EXPECT_EQ(history[1].to, HostState::kInService);
}

TEST_P(HostsTest, HistoryInterleavesDecisionsAndPeople) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  IncidentRecord inc;
  bool created = false;
  ASSERT_TRUE(store->OpenIncident({"job-1", Trigger::kJobFailed, 100, ""}, &inc, &created).ok());
  Decision d;
  d.incident = inc.id;
  d.verdict = R"({"action":"isolate"})";
  d.decided_at = 200;
  d.decided_by = "ctl-a";
  d.hosts = {{"node-3", HostState::kIsolated, "critical Xid"}, {"node-1", HostState::kRepair, "ECC"}};
  DecisionOutcome outcome;
  ASSERT_TRUE(store->RecordDecision(d, &outcome).ok());
  ASSERT_TRUE(outcome.applied);
  bool changed = false;
  ManualHostChange repaired = ByPerson("node-1", HostState::kOffline, 300, "sent to vendor");
  repaired.incident = inc.id;
  ASSERT_TRUE(store->SetHostState(repaired, &changed).ok());
  ASSERT_TRUE(store->SetHostState(ByPerson("node-1", HostState::kInService, 400, "replaced DIMM"), &changed).ok());

  std::vector<HistoryEntry> history;
  ASSERT_TRUE(store->HostHistory("node-1", 10, &history).ok());
  ASSERT_EQ(history.size(), 3u);
  EXPECT_EQ(history[0].to, HostState::kRepair);
  EXPECT_EQ(history[0].by, ChangedBy::kDecision);
  EXPECT_EQ(history[0].actor, "ctl-a");
  EXPECT_EQ(history[0].incident, inc.id);
  EXPECT_EQ(history[1].from, HostState::kRepair);
  EXPECT_EQ(history[1].to, HostState::kOffline);
  EXPECT_EQ(history[1].by, ChangedBy::kPerson);
  EXPECT_EQ(history[1].incident, inc.id);
  EXPECT_EQ(history[2].to, HostState::kInService);
  EXPECT_EQ(history[2].at, 400);

  // The newest two, still oldest first.
  ASSERT_TRUE(store->HostHistory("node-1", 2, &history).ok());
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[0].to, HostState::kOffline);
  EXPECT_EQ(history[1].to, HostState::kInService);

  std::vector<HostRecord> hosts;
  ASSERT_TRUE(store->ListHosts(&hosts).ok());
  ASSERT_EQ(hosts.size(), 2u);
  EXPECT_EQ(hosts[1].host, "node-3");
  EXPECT_EQ(hosts[1].state, HostState::kIsolated);
  EXPECT_EQ(hosts[1].incident, inc.id);
}

TEST_P(HostsTest, ADecisionLeavesAHeldHostAlone) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  bool changed = false;
  ASSERT_TRUE(store->SetHostState(ByPerson("node-5", HostState::kHeld, 100, "firmware update"), &changed).ok());
  ASSERT_TRUE(store->SetHostState(ByPerson("node-9", HostState::kHeld, 100, "burn-in"), &changed).ok());
  IncidentRecord inc;
  bool created = false;
  ASSERT_TRUE(store->OpenIncident({"job-1", Trigger::kJobFailed, 150, ""}, &inc, &created).ok());
  Decision d;
  d.incident = inc.id;
  d.verdict = R"({"action":"isolate"})";
  d.decided_at = 200;
  d.decided_by = "ctl-a";
  d.hosts = {{"node-6", HostState::kIsolated, "NIC down"}, {"node-5", HostState::kIsolated, "NIC down"}};
  for (const char* host : {"node-5", "node-6", "node-9"}) {
    ActionRecord a;
    a.key = inc.id + "/drain/" + host;
    a.host = host;
    a.op = ActionOp::kDrain;
    a.backend = ActionBackend::kSlurm;
    d.actions.push_back(a);
  }
  DecisionOutcome outcome;
  ASSERT_TRUE(store->RecordDecision(d, &outcome).ok());
  EXPECT_TRUE(outcome.applied);
  EXPECT_EQ(outcome.held_hosts, (std::vector<std::string>{"node-5", "node-9"}));

  HostRecord h;
  ASSERT_TRUE(store->GetHost("node-5", &h).ok());
  EXPECT_EQ(h.state, HostState::kHeld);
  EXPECT_EQ(h.reason, "firmware update");
  ASSERT_TRUE(store->GetHost("node-6", &h).ok());
  EXPECT_EQ(h.state, HostState::kIsolated);
  std::vector<HistoryEntry> history;
  ASSERT_TRUE(store->HostHistory("node-5", 10, &history).ok());
  EXPECT_EQ(history.size(), 1u);  // the person's hold only
  IncidentRecord got;
  ASSERT_TRUE(store->GetIncident(inc.id, &got).ok());
  ASSERT_EQ(got.actions.size(), 1u);
  EXPECT_EQ(got.actions[0].host, "node-6");
}

TEST_P(HostsTest, BadChangesAreRefused) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  bool changed = true;
  ManualHostChange m = ByPerson("node-1", HostState::kHeld, 100, "x");
  m.incident = "inc-404";
  EXPECT_TRUE(store->SetHostState(m, &changed).IsNotFound());
  EXPECT_FALSE(changed);
  m = ByPerson("node-1", HostState::kHeld, 100, "x");
  m.actor.clear();  // a person's change names the person
  EXPECT_TRUE(store->SetHostState(m, &changed).IsInvalidArgument());
  m = ByPerson("node-1", HostState::kHeld, INFINITY, "x");
  EXPECT_TRUE(store->SetHostState(m, &changed).IsInvalidArgument());
  HostRecord h;
  EXPECT_TRUE(store->GetHost("node-1", &h).IsNotFound());
}

INSTANTIATE_TEST_SUITE_P(Backends, HostsTest, ::testing::Values(Backend::kSqlite, Backend::kPostgres), BackendName);

TEST_P(HostsTest, HistorySinceListsEveryHostsChangesFromATime) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  bool changed = false;
  ASSERT_TRUE(store->SetHostState(ByPerson("node-2", HostState::kHeld, 100, "a"), &changed).ok());
  ASSERT_TRUE(store->SetHostState(ByPerson("node-1", HostState::kIsolated, 200, "b"), &changed).ok());
  ASSERT_TRUE(store->SetHostState(ByPerson("node-1", HostState::kInService, 300, "c"), &changed).ok());
  std::vector<HistoryEntry> h;
  ASSERT_TRUE(store->HistorySince(150, 10, &h).ok());
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h[0].host, "node-1");
  EXPECT_EQ(h[0].to, HostState::kIsolated);
  EXPECT_EQ(h[1].to, HostState::kInService);
  EXPECT_EQ(h[1].at, 300);
  ASSERT_TRUE(store->HistorySince(-INFINITY, 2, &h).ok());
  ASSERT_EQ(h.size(), 2u);  // the oldest ones
  EXPECT_EQ(h[0].host, "node-2");
  EXPECT_TRUE(store->HistorySince(NAN, 10, &h).IsInvalidArgument());
}

}  // namespace
}  // namespace aegis::store::test
