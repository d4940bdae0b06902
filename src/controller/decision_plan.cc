#include "controller/decision_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

namespace aegis::controller {

namespace {

// "<prefix>/<op>/<host>/<backend>": an action's idempotency key.
std::string ActionKey(const std::string& prefix, store::ActionOp op, const std::string& host,
                      store::ActionBackend backend) {
  std::string key = prefix;
  key.append("/").append(store::ToString(op)).append("/").append(host).append("/").append(store::ToString(backend));
  return key;
}

// One action per target (a recorded-only one without targets), keyed under `key_prefix`.
std::vector<store::ActionRecord> Drains(const std::string& incident, const std::string& key_prefix,
                                        const std::string& host, store::ActionOp op, double now, bool dry_run,
                                        const std::vector<ActionTarget>& targets) {
  using store::ActionBackend;
  std::vector<store::ActionRecord> out;
  auto one = [&](ActionBackend backend) {
    store::ActionRecord a;
    a.key = ActionKey(key_prefix, op, host, backend);
    a.incident = incident;
    a.host = host;
    a.op = op;
    a.backend = backend;
    a.dry_run = dry_run;
    a.at = now;
    a.result = dry_run || backend == ActionBackend::kNone ? store::ActionResult::kRecorded : store::ActionResult::kPending;
    if (dry_run) {
      a.detail = "dry run: recorded, not carried out";
    } else if (backend == ActionBackend::kNone) {
      a.detail = "no --action backend: recorded only";
    } else {
      a.detail = "to be carried out by the ";
      a.detail.append(store::ToString(backend)).append(" backend (not in this release)");
    }
    out.push_back(std::move(a));
  };
  if (targets.empty()) one(ActionBackend::kNone);
  for (const ActionTarget& t : targets) one(t.backend);
  return out;
}

bool IsOutOfService(store::HostState s) {
  return s == store::HostState::kIsolated || s == store::HostState::kRepair || s == store::HostState::kOffline;
}

std::string RepairReason(const RepairEntry& r) {
  std::string out = "repair " + std::string(ToString(r.component));
  if (!r.key.empty()) out += " " + r.key;
  if (!r.device.empty()) out += " " + r.device;
  if (!r.switch_name.empty()) out += " on " + r.switch_name;
  if (!r.value.empty() || !r.expected.empty())
    out += fmt::format(" (has {}, expected {})", r.value.empty() ? "nothing" : r.value, r.expected);
  return out;
}

}  // namespace

std::string IsolationReason(const Verdict& v, const IsolateEntry& entry) {
  std::string what;
  for (const Evidence& e : v.evidence)
    if (e.host == entry.host && !e.rule.empty()) {
      what = e.rule.rfind("xid-", 0) == 0 ? "Xid " + e.rule.substr(4) : e.rule;
      break;
    }
  if (what.empty()) what = std::string(ToString(v.stage));
  if (!entry.device.empty()) what += " on " + entry.device;
  else if (entry.component != Component::kHost) what += " (" + std::string(ToString(entry.component)) + ")";
  return what;
}

Plan PlanDecision(const Verdict& v, const PlanInputs& in) {
  Plan plan;
  store::Decision& d = plan.decision;
  d.incident = in.incident;
  d.verdict = in.verdict_json;
  d.decided_at = in.now;
  d.decided_by = in.decided_by;
  std::set<std::string> seen;
  auto state_of = [&](const std::string& host) {
    auto it = in.current.find(host);
    return it == in.current.end() ? store::HostState::kInService : it->second;
  };
  auto change = [&](const std::string& host, store::HostState to, std::string reason, bool drain) {
    if (host.empty() || !seen.insert(host).second) return;
    if (!in.known_hosts.empty() && !in.known_hosts.count(host)) return;
    const store::HostState from = state_of(host);
    if (from == to) return;  // already so (an early incident took it out): drained once
    // A host already out of service was drained when it went out: a later verdict may move
    // it on (isolated to repair) but drains nothing twice, and an isolation does not pull
    // a host back from the repair or offline it is in.
    if (IsOutOfService(from) && to == store::HostState::kIsolated) return;
    if (IsOutOfService(from)) drain = false;
    d.hosts.push_back({host, to, std::move(reason)});
    if (drain) {
      auto actions = Drains(in.incident, in.incident, host, store::ActionOp::kDrain, in.now, in.dry_run, in.backends);
      d.actions.insert(d.actions.end(), actions.begin(), actions.end());
    }
  };

  switch (v.action) {
    case Action::kIsolate: {
      std::vector<const IsolateEntry*> entries;
      std::set<std::string> hosts;
      for (const IsolateEntry& e : v.isolate)
        if (!e.host.empty() && hosts.insert(e.host).second) entries.push_back(&e);
      // Hosts this decision would take out, and those decisions took out lately: a host
      // counts once however often it was isolated within the window.
      std::set<std::string> counted = in.isolated_recently;
      size_t added = 0;
      for (const std::string& h : hosts)
        if (state_of(h) != store::HostState::kIsolated && state_of(h) != store::HostState::kHeld) {
          ++added;
          counted.insert(h);
        }
      const size_t total = std::max<size_t>({in.topology_hosts, in.current.size(), hosts.size(), 1});
      const size_t budget = IsolationBudget(in.max_isolate_share, total);
      if (added > 0 && counted.size() > budget) {
        plan.held = true;
        plan.held_why = fmt::format(
            "held for a person: decisions would have isolated {} host(s) within {:g} h, above the {} that "
            "--max-isolate-share {:g}% of {} hosts allows",
            counted.size(), in.isolate_window_s / 3600, budget, in.max_isolate_share * 100, total);
      } else if (v.confidence.level == Strength::kLow) {
        plan.held = true;
        plan.held_why = "held for a person: the verdict's confidence is low (" + v.confidence.basis + ")";
      }
      for (const IsolateEntry* e : entries) {
        const std::string reason = IsolationReason(v, *e);
        if (plan.held) change(e->host, store::HostState::kHeld, plan.held_why + "; would isolate: " + reason, false);
        else change(e->host, store::HostState::kIsolated, reason, true);
      }
      break;
    }
    case Action::kRepair:
      for (const RepairEntry& r : v.repair)
        change(r.host, store::HostState::kRepair, RepairReason(r), true);
      break;
    case Action::kOffline:
      for (const std::string& h : v.offline) change(h, store::HostState::kOffline, "offline diagnosis: " + v.summary, true);
      break;
    case Action::kNone: break;
  }
  return plan;
}

std::set<std::string> IsolatedRecently(const std::vector<store::HistoryEntry>& history, double since) {
  std::set<std::string> out;
  for (const store::HistoryEntry& h : history)
    if (h.by == store::ChangedBy::kDecision && h.to == store::HostState::kIsolated && h.at >= since) out.insert(h.host);
  return out;
}

size_t IsolationBudget(double max_isolate_share, size_t topology_hosts) {
  const double allowed = std::floor(std::max(0.0, max_isolate_share) * static_cast<double>(topology_hosts) + 1e-9);
  return std::max<size_t>(1, static_cast<size_t>(allowed));
}

std::vector<store::ActionRecord> ManualActions(const std::string& host, store::HostState from, store::HostState to,
                                               const std::string& key_prefix, double now, bool dry_run,
                                               const std::vector<ActionTarget>& backends) {
  std::optional<store::ActionOp> op;
  if (IsOutOfService(to) && !IsOutOfService(from)) op = store::ActionOp::kDrain;
  if (to == store::HostState::kInService && IsOutOfService(from)) op = store::ActionOp::kResume;
  if (!op) return {};
  return Drains("", key_prefix, host, *op, now, dry_run, backends);
}

}  // namespace aegis::controller
