// What the controller tells each node's agent in the answer to its posts (docs/api.md,
// "The answer's scope"), and when it last heard from each agent:
//   job       the job running on the node (the newest started, when several name it), with
//   since     where that job's window opens for this host (its start, or a person's
//             return of the host to service during it): the agent tags what it reads with
//             the job from then on;
//   report_s  how often to post while a job runs on the node or a flush is wanted (empty
//             posts when nothing is queued): how the agent hears of a job's end quickly;
//   flush     an undecided incident of a job on this node opened at this time: the agent
//             ships what it holds and sends a heartbeat covering it, which completes the
//             incident's picture.
// Built from the store (running jobs, undecided incidents, host history), so any instance
// on the database answers alike; read again when older than `refresh_s` or after
// Invalidate() (this instance changed a job, an incident or a host). Thread-safe: the
// HTTP threads and the decision loop share it.
#pragma once
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "common/status.h"
#include "env/env.h"
#include "store/store.h"

namespace aegis::controller {

struct NodeScope {
  std::string job;        // "" when no job runs on the node
  double since = NAN;     // NaN without a job
  double report_s = NAN;  // NaN: the agent's own heartbeat period
  double flush = NAN;     // NaN: nothing to flush for
};

class NodeDirectory {
 public:
  NodeDirectory(store::Store* store, Env* env, double report_s, double refresh_s = 1.0);

  // The scope of `node` now. A store that cannot be read leaves the last scope known
  // (and says so in the Status).
  Status ScopeOf(const std::string& node, NodeScope* out);
  // Read the store again at the next question.
  void Invalidate();

  // The agent of `node` posted at `at` (controller clock).
  void Heard(const std::string& node, double at);
  // When it last posted to this instance; NaN if never.
  double LastHeard(const std::string& node) const;

 private:
  Status RefreshLocked(double now);

  store::Store* store_;
  Env* env_;  // its wall clock: when agents were heard (not owned)
  double report_s_;
  double refresh_s_;
  mutable std::mutex mu_;
  double refreshed_at_ = -INFINITY;  // guarded by mu_
  std::map<std::string, NodeScope> scopes_;  // guarded by mu_; nodes without a job or flush absent
  std::map<std::string, double> heard_;      // guarded by mu_
};

}  // namespace aegis::controller
