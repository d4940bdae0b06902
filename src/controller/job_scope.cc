#include "controller/job_scope.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace aegis::controller {

bool PlacedByScope(const wire::DecodedEvent& e) {
  if (e.type == wire::EventType::kCcl) return true;
  return e.type == wire::EventType::kLog && e.log.source != SourceKind::kSwitch;
}

std::map<std::string, double, std::less<>> ReturnsDuring(const Job& job, const std::vector<store::HistoryEntry>& history) {
  std::map<std::string, double, std::less<>> out;
  const std::set<std::string> hosts(job.hosts.begin(), job.hosts.end());
  for (const store::HistoryEntry& h : history) {
    if (h.by != store::ChangedBy::kPerson || h.to != store::HostState::kInService || !hosts.count(h.host)) continue;
    if (!(h.at > job.started_at) || h.at >= job.ended_at) continue;  // NaN start: none; NaN end: running
    double& at = out[h.host];
    at = std::max(at, h.at);
  }
  return out;
}

double WindowOpening(const Job& job, const std::string& host) {
  double opening = job.started_at;
  if (auto it = job.not_before.find(host); it != job.not_before.end() && !(it->second <= opening)) opening = it->second;
  return opening;
}

bool InJobScope(const wire::DecodedEvent& e, double received_at, const Job& job, const ScopeOptions& options,
                double end_known_at) {
  if (!PlacedByScope(e)) return true;
  const double opening = WindowOpening(job, e.node);
  if (std::isnan(opening)) return true;  // a job without a start: everything may be its
  const double read = std::isfinite(e.read_at) ? e.read_at : received_at;
  if (std::isnan(read)) return true;
  // Read clearly after the job ended (the next job's lines, while this one waits for its
  // decision): not its, unless the agent still tagged it so.
  const bool came_while_running = !std::isfinite(e.read_at) && received_at <= end_known_at;
  if (std::isfinite(job.ended_at) && read > job.ended_at + options.clock_tolerance_s && e.job != job.id &&
      !came_while_running)
    return false;
  if (!e.job.empty() && e.job == job.id) {
    // Read while the agent knew the job ran: after its start, not necessarily after a
    // person returned the host.
    const bool returned = !std::isnan(job.started_at) && opening > job.started_at;
    return !returned || read >= opening - options.clock_tolerance_s;
  }
  if (!e.job.empty()) return read >= opening + options.clock_tolerance_s;
  return read >= opening - options.clock_tolerance_s;
}

}  // namespace aegis::controller
