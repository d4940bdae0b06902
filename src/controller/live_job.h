// LiveJob: the controller's picture of one job while it runs and until its incident is
// decided: an IncidentBuilder fed with the events of the job's hosts that are the job's
// (InScope, job_scope.h) and with the switches' and probes' events (which concern any
// job) as the events arrive, so that a decision is one Decide(View()) away; plus the
// job's collective progress for hang detection (the controller-clock time of the last
// change of any rank's CCL counters). Rebuilt from the store after a restart, or when a
// person returns one of its hosts to service, by feeding the stored events again. Not
// thread-safe: owned by the decision loop.
#pragma once
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "controller/job_scope.h"
#include "wire/event.h"
#include "engine/engine.h"
#include "engine/incident_builder.h"

namespace aegis::controller {

class LiveJob {
 public:
  LiveJob(Job job, const Topology& topology);

  const Job& job() const { return job_; }
  // Whether an event belongs to this job (InJobScope over the job's window: its start,
  // the hosts' not_before, its end once SetEnded said it).
  bool InScope(const wire::DecodedEvent& e, double received_at, const ScopeOptions& options) const;
  // The job ended at `ended_at` (as reported), which the controller learned at `known_at`.
  void SetEnded(double ended_at, double known_at = NAN) {
    scope_.ended_at = ended_at;
    end_known_at_ = known_at;
  }
  double scope_end() const { return scope_.ended_at; }
  const std::set<std::string>& hosts() const { return hosts_; }
  bool HasHost(const std::string& host) const { return hosts_.count(host) != 0; }
  void SetTopology(const Topology& topology);

  // One event of this job (a host of it, a switch, a probe). `now`: the controller's
  // clock when it arrived (for hang detection). Heartbeats are not the job's business.
  void Feed(const wire::DecodedEvent& e, double now);

  // Hang detection: whether any CCL record was seen, and when any rank's counters last
  // changed (controller clock; the time of the first record, or of a rebuild).
  bool has_ccl() const { return !progress_.empty(); }
  double last_progress() const { return last_progress_; }
  void ResetProgressClock(double now) { last_progress_ = now; }

  // The decision on the picture as of now, for a job in `state` that ended at `ended_at`
  // (NaN: still running). Cheap when state and end do not change between calls.
  Verdict DecideAs(JobState state, double ended_at, const Catalog& catalog, const DecideOptions& options);
  // Lets a later decision list what could not be had (an agent silent after the end).
  void ReportMissing(const std::string& where, const std::string& why);

  IncidentBuilder& builder() { return builder_; }
  size_t events_fed() const { return events_fed_; }
  double last_received() const { return last_received_; }
  void set_last_received(double t) { last_received_ = std::max(last_received_, t); }

 private:
  Job job_;
  Job scope_;  // id, start, end and not_before of job_, without its hosts: what InScope reads
  double end_known_at_ = NAN;
  std::set<std::string> hosts_;
  IncidentBuilder builder_;
  std::map<std::pair<std::string, int>, std::pair<double, uint64_t>> progress_;  // (comm, rank) -> (ts, counters)
  double last_progress_ = 0;
  size_t events_fed_ = 0;
  size_t probes_ = 0;
  std::map<std::string, uint64_t> ccl_lines_;  // CCL records seen per snapshot file
  double last_received_ = 0;
};

}  // namespace aegis::controller
