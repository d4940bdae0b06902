// What a verdict does to the hosts: the store::Decision recorded for an incident. Pure.
//   isolate  the hosts named go to `isolated` (reason e.g. "Xid 79 on gpu3"), one "drain"
//            action each per backend; unless the decision must wait for a person, when
//            they go to `held` and no action is recorded:
//              - decisions would then have isolated more than max(1, floor(
//                max_isolate_share x the topology's hosts)) hosts within the isolation
//                window (a fault that seems to take out many machines at once is more
//                likely the fabric, a rule or the controller itself; the first isolation
//                of a small cluster always goes ahead), or
//              - the verdict's confidence level is "low" (a weak decision must not drain
//                a node by itself).
//   repair   the hosts named go to `repair` (reason: what to repair), a "drain" each;
//   offline  the hosts named go to `offline` (offline diagnosis), a "drain" each;
//   none     nothing changes.
// A host already in the state a decision names is left as it is (no change, no second
// drain): the job-end decision after an early critical incident repeats its isolation.
// A host a person holds is left alone by the store (Store::RecordDecision).
// Actions are recorded, never carried out here: backend "none" and result "recorded"
// without --action; with --action, one per backend, result "pending" (for the executor of
// a later release); with --dry-run, dry_run true and result "recorded".
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "controller/options.h"
#include "engine/verdict.h"
#include "store/records.h"

namespace aegis::controller {

struct PlanInputs {
  std::string incident;
  std::string decided_by;
  double now = 0;
  std::string verdict_json;  // VerdictToJson of the verdict
  size_t topology_hosts = 0;
  // Names the topology knows: a verdict's host outside it (a switch, a stale name) gets no
  // state. Empty: no topology yet, every name is taken.
  std::set<std::string> known_hosts;
  std::map<std::string, store::HostState> current;  // hosts the store knows, and their state
  bool dry_run = false;
  std::vector<ActionTarget> backends;
  double max_isolate_share = 0.05;
  // Hosts that decisions isolated within the isolation window (IsolatedRecently), and the
  // window, for the reason of a hold.
  std::set<std::string> isolated_recently;
  double isolate_window_s = 3600;
};

struct Plan {
  store::Decision decision;
  bool held = false;
  std::string held_why;  // "" unless held
};

Plan PlanDecision(const Verdict& verdict, const PlanInputs& in);

// The hosts that decisions moved to `isolated` at or after `since`, from the store's host
// history (HistorySince): the isolation limit's count, the same after a restart.
std::set<std::string> IsolatedRecently(const std::vector<store::HistoryEntry>& history, double since);

// How many hosts decisions may isolate within the window: max(1, floor(share x hosts)).
size_t IsolationBudget(double max_isolate_share, size_t topology_hosts);

// "Xid 79 on gpu3", "nvlink-error on gpu1", "ccl_compute on gpu5": why a host is isolated.
std::string IsolationReason(const Verdict& v, const IsolateEntry& entry);

// The actions of a person's change of a host to `to` (a drain when taken out of service, a
// resume when returned to it), keyed by `key_prefix`.
std::vector<store::ActionRecord> ManualActions(const std::string& host, store::HostState from, store::HostState to,
                                               const std::string& key_prefix, double now, bool dry_run,
                                               const std::vector<ActionTarget>& backends);

}  // namespace aegis::controller
