// The decision loop: the one thread of a controller that decides, and only while this
// instance holds the store's LeaderLock (a standby serves the API and stores what it is
// sent, but decides nothing). As leader it
//   - reads every stored event back in commit order (Store::EventsAfter; events posted
//     to a standby too) and feeds it to the LiveJob of its host's job when it is that
//     job's (job_scope.h: read within the job's window);
//   - follows jobs and incidents through the store (whichever instance wrote them):
//     a job that started gets a LiveJob, an incident not yet decided is decided once its
//     picture is complete (every job host whose agent is known sent a heartbeat dated
//     after the incident opened; agents are asked to, NodeDirectory) or --settle seconds
//     after it opened, whichever comes first; an agent still posting then is waited for
//     longer (up to 6 x --settle): only silent agents are listed as missing;
//   - opens incidents by itself: a critical error on a running job's host (decided at
//     once: the host is drained while the job may still finish; the job's end opens its
//     own incident, whose verdict holds the same critical lines and so the same hosts,
//     already isolated), a hang when no rank's CCL counters changed for --hang-after
//     seconds, a slow job when the straggler analysis names a device;
//   - limits isolations to max(1, floor(--max-isolate-share x hosts)) per
//     --isolate-window, counted from the store's host history (so across restarts);
//   - records each decision with Store::RecordDecision, which applies only the first
//     decision of an incident: a controller killed at any moment, or two controllers
//     racing, never decide one incident twice.
// Taking the lead (at start, or when the previous leader died) rebuilds everything from
// the store: the topology, running jobs' pictures from their stored events, undecided
// incidents. A person returning a job's host to service moves that host's window
// (Job::not_before): the job's picture is rebuilt. Thread-safe: Wake() and leader() from
// any thread; everything else runs on the loop's thread (or RunOnce in tests, with the
// wall clock of ControllerOptions::env).
#pragma once
#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "controller/fresh_events.h"
#include "controller/health_metrics.h"
#include "controller/live_job.h"
#include "controller/node_directory.h"
#include "controller/options.h"
#include "match/live_rules.h"
#include "store/store.h"

namespace aegis::controller {

class DecisionLoop {
 public:
  DecisionLoop(store::Store* store, LiveRules* rules, const ControllerOptions& options, HealthMetrics* health,
               NodeDirectory* nodes, FreshEvents* fresh = nullptr);
  ~DecisionLoop();
  DecisionLoop(const DecisionLoop&) = delete;
  DecisionLoop& operator=(const DecisionLoop&) = delete;

  void Start();
  void Stop();
  // Something was stored: look now. Events are read at once; jobs, incidents and the
  // topology are otherwise looked at every second or so.
  enum WakeReason : unsigned { kEvents = 1, kJobs = 2, kTopology = 4, kHosts = 8 };
  void Wake(unsigned reasons = kEvents);
  bool leader() const { return leader_.load(); }
  // One pass of the loop (the thread runs it; tests and the benchmark may call it directly
  // when the thread is not started).
  void RunOnce();  // counted in HealthMetrics::loop_passes

 private:
  void RunPass();
  struct Pending {
    std::string job;
    store::Trigger trigger = store::Trigger::kJobFailed;
    double opened_at = 0;
    bool immediate = false;  // the picture is as complete as it gets (a hang, a slow job, a critical error)
  };

  void Loop();
  void TryLead(double now);
  void Resign(const char* why);
  Status Recover(double now);
  void ForgetLivePicture();
  Status FindLastSeq(int64_t* seq);
  Status LoadTopology(bool force);
  Status LoadHeartbeats(double now);
  Status TailEvents(double now);
  // A stored event decoded: as ingest kept it (FreshEvents), or decoded here and counted.
  // Null for a body that does not decode (validated at ingest: a newer format).
  std::shared_ptr<const wire::DecodedEvent> Decode(const store::Event& e);
  void Route(const wire::DecodedEvent& e, double received_at, double now);
  bool InJobWindow(const LiveJob& job, const wire::DecodedEvent& e, double received_at) const;
  Status LoadReturns(const Job& job, std::map<std::string, double, std::less<>>* not_before);
  Status RefreshReturns(double now);
  Status ReconcileJobs(double now);
  Status ReconcileIncidents(double now);
  Status BuildLiveJob(const store::JobRecord& record, double now, LiveJob** out);
  LiveJob* EnsureLiveJob(const std::string& id, double now);
  void DecidePending(double now);
  // Hosts whose agent is known and has not reported since `since`: `silent` ones (no post
  // for a while) and `busy` ones (still posting).
  bool PictureComplete(const LiveJob& job, double since, double now, std::vector<std::string>* silent,
                       std::vector<std::string>* busy) const;
  Status DecideIncident(const std::string& id, const Pending& p, bool complete, const std::vector<std::string>& silent,
                        double now);
  void CheckCritical(double now);
  void CheckHangs(double now);
  void CheckSlow(double now);
  void PruneEvents(double now);
  void FetchPrometheus(LiveJob* job, double end, Reporter* reporter);
  Status OpenOwnIncident(const std::string& job, store::Trigger trigger, double now);
  void StoreError(const char* what, const Status& s);

  store::Store* store_;
  LiveRules* rules_;
  ControllerOptions options_;
  HealthMetrics* health_;
  NodeDirectory* nodes_;
  FreshEvents* fresh_;  // may be null
  Env* env_;  // options.env

  std::atomic<bool> leader_{false};
  std::atomic<bool> stop_{false};
  std::mutex wake_mu_;
  std::condition_variable wake_cv_;
  bool woken_ = false;              // guarded by wake_mu_
  unsigned dirty_ = 0;              // WakeReasons, guarded by wake_mu_
  std::thread thread_;

  // --- the loop thread's own state ---
  std::unique_ptr<store::LeaderLock> lock_;
  double next_lead_try_ = 0, next_lock_check_ = 0, next_reconcile_ = 0, next_topology_ = 0, next_slow_ = 0, next_returns_ = 0,
         next_prune_ = 0;
  Topology topology_;
  double topology_at_ = NAN;
  std::set<std::string> known_hosts_;
  std::vector<std::string> switch_names_;
  int64_t cursor_ = 0;
  std::map<std::string, std::unique_ptr<LiveJob>> live_;
  std::set<std::string> running_;               // live jobs the store says are running
  std::map<std::string, double> heartbeats_;    // node -> newest heartbeat `at`
  std::map<std::string, Pending> pending_;      // incident id -> what it waits for
  std::set<std::string> hang_checked_, slow_checked_, critical_checked_;  // jobs whose own incident was opened
  std::set<std::string> critical_seen_;  // running jobs fed a critical line since the last check
};

}  // namespace aegis::controller
