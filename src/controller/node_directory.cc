#include "controller/node_directory.h"

#include <algorithm>

#include "bundle/bundle_reader.h"
#include "controller/job_scope.h"

namespace aegis::controller {

namespace {

constexpr size_t kHistoryLimit = 100000;

}  // namespace

NodeDirectory::NodeDirectory(store::Store* store, Env* env, double report_s, double refresh_s)
    : store_(store), env_(env), report_s_(report_s), refresh_s_(refresh_s) {}

void NodeDirectory::Invalidate() {
  std::lock_guard<std::mutex> l(mu_);
  refreshed_at_ = -INFINITY;
}

void NodeDirectory::Heard(const std::string& node, double at) {
  std::lock_guard<std::mutex> l(mu_);
  double& last = heard_[node];
  last = std::max(last, at);
}

double NodeDirectory::LastHeard(const std::string& node) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = heard_.find(node);
  return it == heard_.end() ? NAN : it->second;
}

Status NodeDirectory::ScopeOf(const std::string& node, NodeScope* out) {
  std::lock_guard<std::mutex> l(mu_);
  const double now = env_->NowEpochSeconds();
  Status s;
  if (!(now < refreshed_at_ + refresh_s_)) s = RefreshLocked(now);
  auto it = scopes_.find(node);
  *out = it == scopes_.end() ? NodeScope() : it->second;
  return s;
}

Status NodeDirectory::RefreshLocked(double now) {
  std::vector<store::JobRecord> running;
  if (Status s = store_->ListJobs(store::JobState::kRunning, &running); !s.ok()) return s;
  store::IncidentFilter filter;
  filter.undecided_only = true;
  std::vector<store::IncidentRecord> open;
  if (Status s = store_->ListIncidents(filter, &open); !s.ok()) return s;

  std::vector<Job> jobs;
  double earliest = INFINITY;
  for (const store::JobRecord& r : running) {
    Job j;
    if (!ParseJob(r.body, &j, nullptr).ok()) continue;
    j.id = r.id;
    if (std::isnan(j.started_at)) j.started_at = r.started_at;
    j.ended_at = NAN;
    earliest = std::min(earliest, j.started_at);
    jobs.push_back(std::move(j));
  }
  std::vector<store::HistoryEntry> history;
  if (std::isfinite(earliest))
    if (Status s = store_->HistorySince(earliest, kHistoryLimit, &history); !s.ok()) return s;

  std::map<std::string, NodeScope> scopes;
  for (Job& j : jobs) {
    j.not_before = ReturnsDuring(j, history);
    for (const std::string& h : j.hosts) {
      NodeScope& sc = scopes[h];
      if (!sc.job.empty() && !(j.started_at > sc.since)) continue;  // the newest job wins
      sc.job = j.id;
      sc.since = WindowOpening(j, h);
      sc.report_s = report_s_;
    }
  }
  // Undecided incidents: their jobs' hosts flush up to the incident's opening.
  std::map<std::string, std::vector<std::string>> hosts_of;
  for (const Job& j : jobs) hosts_of[j.id] = j.hosts;
  for (const store::IncidentRecord& inc : open) {
    auto it = hosts_of.find(inc.job);
    if (it == hosts_of.end()) {
      store::JobRecord record;
      Status s = store_->GetJob(inc.job, &record);
      if (s.IsNotFound()) continue;
      if (!s.ok()) return s;
      Job j;
      if (!ParseJob(record.body, &j, nullptr).ok()) continue;
      it = hosts_of.emplace(inc.job, j.hosts).first;
    }
    for (const std::string& h : it->second) {
      NodeScope& sc = scopes[h];
      sc.flush = std::isnan(sc.flush) ? inc.opened_at : std::max(sc.flush, inc.opened_at);
      sc.report_s = report_s_;
    }
  }
  scopes_ = std::move(scopes);
  refreshed_at_ = now;
  return Status::Ok();
}

}  // namespace aegis::controller
