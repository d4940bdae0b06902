#include "controller/decision_loop.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "bundle/bundle_reader.h"
#include "controller/decision_plan.h"
#include "controller/iso_time.h"
#include "metrics/prometheus_client.h"

namespace aegis::controller {

namespace {

constexpr size_t kTailBatch = 4000;
constexpr size_t kRangePage = 50000;
constexpr double kLeadRetryS = 1.0;
constexpr double kLockCheckS = 1.0;
constexpr double kReconcileS = 1.0;
constexpr double kTopologyS = 5.0;
constexpr double kReturnsS = 5.0;             // host returns written by other instances
constexpr double kPruneS = 3600.0;            // retention runs this often
constexpr double kHeartbeatKeepS = 86400.0;   // heartbeats are kept this long
constexpr size_t kHistoryLimit = 100000;
constexpr double kAliveS = 3.0;               // an agent that posted this recently is not silent
constexpr double kBusyWaitSettles = 6.0;      // a busy agent is waited for up to this many --settle

void Log(const std::string& line) {
  std::string out = "aegis controller: " + line + "\n";
  std::fwrite(out.data(), 1, out.size(), stderr);
}

// Says what a periodic fetch could not get, once per fetch.
class LogOnce : public Reporter {
 public:
  void Report(std::string_view where, const Status& status) override {
    if (said_ || status.ok()) return;
    said_ = true;
    Log(std::string(where) + ": " + status.ToString());
  }

 private:
  bool said_ = false;
};

}  // namespace

DecisionLoop::DecisionLoop(store::Store* store, LiveRules* rules, const ControllerOptions& options,
                           HealthMetrics* health, NodeDirectory* nodes, FreshEvents* fresh)
    : store_(store),
      rules_(rules),
      options_(options),
      health_(health),
      nodes_(nodes),
      fresh_(fresh),
      env_(options.env ? options.env : Env::Default()) {}

DecisionLoop::~DecisionLoop() { Stop(); }

void DecisionLoop::Start() {
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] { Loop(); });
}

void DecisionLoop::Stop() {
  stop_ = true;
  Wake();
  if (thread_.joinable()) thread_.join();
  if (lock_) lock_->Release();
  leader_ = false;
  health_->leader = 0;
}

void DecisionLoop::Wake(unsigned reasons) {
  {
    std::lock_guard<std::mutex> l(wake_mu_);
    woken_ = true;
    dirty_ |= reasons;
  }
  wake_cv_.notify_one();
}

void DecisionLoop::Loop() {
  while (!stop_) {
    RunOnce();
    std::unique_lock<std::mutex> l(wake_mu_);
    wake_cv_.wait_for(l, std::chrono::milliseconds(leader_ ? 100 : 250), [&] { return woken_ || stop_.load(); });
    woken_ = false;
  }
}

void DecisionLoop::RunOnce() {
  RunPass();
  ++health_->loop_passes;
  if (options_.progress) options_.progress->Notify();
}

void DecisionLoop::RunPass() {
  const double now = env_->NowEpochSeconds();
  if (!leader_) {
    if (now >= next_lead_try_) TryLead(now);
    if (!leader_) return;
  } else if (now >= next_lock_check_) {
    next_lock_check_ = now + kLockCheckS;
    if (!lock_->IsHeld()) {
      Resign("lost the leader lock");
      return;
    }
  }
  unsigned dirty;
  {
    std::lock_guard<std::mutex> l(wake_mu_);
    dirty = dirty_;
    dirty_ = 0;
  }
  if ((dirty & kTopology) || now >= next_topology_) {
    next_topology_ = now + kTopologyS;
    if (Status s = LoadTopology(false); !s.ok()) StoreError("reading the topology", s);
  }
  if ((dirty & kHosts) || now >= next_returns_) {
    next_returns_ = now + kReturnsS;
    if (Status s = RefreshReturns(now); !s.ok()) StoreError("reading host history", s);
  }
  if ((dirty & kJobs) || now >= next_reconcile_) {
    // Jobs and incidents written by any instance (this one wakes the loop at once). Read
    // before the events: a job's end is stored after its events, so every event of a job
    // seen ended here is in the tail read next, and no decision below lacks one (read
    // after the tail, an end could come with events the tail had not reached yet).
    next_reconcile_ = now + kReconcileS;
    if (Status s = ReconcileJobs(now); !s.ok()) StoreError("reading jobs", s);
    if (Status s = ReconcileIncidents(now); !s.ok()) StoreError("reading incidents", s);
  }
  if (Status s = TailEvents(now); !s.ok()) StoreError("reading events", s);
  CheckCritical(now);
  DecidePending(now);
  CheckHangs(now);
  if (options_.slow_check_s > 0 && now >= next_slow_) {
    next_slow_ = now + options_.slow_check_s;
    CheckSlow(now);
  }
  if (now >= next_prune_) {
    next_prune_ = now + kPruneS;
    PruneEvents(now);
  }
  health_->live_jobs = static_cast<int64_t>(live_.size());
  health_->pending_incidents = static_cast<int64_t>(pending_.size());
}

// Retention, by the leader alone (one DELETE per type group an hour). Jobs still followed
// (live_: running, or ended with an incident undecided) hold back the cut to their start
// less lookback_s, so that a rebuild after a takeover reads what the first leader read.
void DecisionLoop::PruneEvents(double now) {
  if (options_.event_retention_s <= 0) return;
  double before = now - options_.event_retention_s;
  for (const auto& [id, job] : live_)
    if (std::isfinite(job->job().started_at)) before = std::min(before, job->job().started_at - options_.lookback_s);
  static constexpr wire::EventType kEvidence[] = {wire::EventType::kLog, wire::EventType::kCcl, wire::EventType::kMetric,
                                                  wire::EventType::kProbe};
  static constexpr wire::EventType kHeartbeats[] = {wire::EventType::kHeartbeat};
  size_t evidence = 0, heartbeats = 0;
  if (Status s = store_->PruneEvents(before, kEvidence, &evidence); !s.ok()) return StoreError("pruning events", s);
  // A heartbeat matters for minutes (whether an agent is alive); a day is kept to look back at.
  if (Status s = store_->PruneEvents(now - kHeartbeatKeepS, kHeartbeats, &heartbeats); !s.ok())
    return StoreError("pruning heartbeats", s);
  health_->events_pruned += evidence + heartbeats;
  if (evidence + heartbeats > 0)
    Log(fmt::format("retention: deleted {} event(s) received before {:.0f} and {} heartbeat(s)", evidence, before,
                    heartbeats));
}

void DecisionLoop::StoreError(const char* what, const Status& s) {
  ++health_->store_errors;
  Log(fmt::format("{}: {}", what, s.ToString()));
}

// --- leadership ---

void DecisionLoop::TryLead(double now) {
  next_lead_try_ = now + kLeadRetryS;
  if (!lock_) {
    if (Status s = store_->NewLeaderLock(&lock_); !s.ok()) {
      StoreError("creating the leader lock", s);
      return;
    }
  }
  bool acquired = false;
  if (Status s = lock_->TryAcquire(&acquired); !s.ok()) {
    StoreError("taking the leader lock", s);
    return;
  }
  if (!acquired) return;
  if (Status s = Recover(now); !s.ok()) {
    StoreError("resuming from the store", s);
    lock_->Release();
    return;
  }
  leader_ = true;
  health_->leader = 1;
  next_lock_check_ = now + kLockCheckS;
  Log(fmt::format("leading: {} running job(s), {} undecided incident(s), events after #{}", running_.size(),
                  pending_.size(), cursor_));
}

void DecisionLoop::Resign(const char* why) {
  Log(std::string("standing by: ") + why);
  leader_ = false;
  health_->leader = 0;
  if (lock_) lock_->Release();
  ForgetLivePicture();
}

// What a leader keeps in memory; rebuilt from the store when it (again) leads.
void DecisionLoop::ForgetLivePicture() {
  if (fresh_) fresh_->Clear();  // kept for a tail that starts afresh
  live_.clear();
  running_.clear();
  pending_.clear();
  heartbeats_.clear();
  hang_checked_.clear();
  slow_checked_.clear();
  critical_checked_.clear();
  critical_seen_.clear();
  topology_at_ = NAN;
}

Status DecisionLoop::Recover(double now) {
  ForgetLivePicture();
  if (Status s = LoadTopology(true); !s.ok()) return s;
  // Everything stored up to here is read through the jobs' rebuilds; the tail goes on
  // after it, so no event is fed twice or missed.
  if (Status s = FindLastSeq(&cursor_); !s.ok()) return s;
  if (Status s = LoadHeartbeats(now); !s.ok()) return s;
  if (Status s = ReconcileJobs(now); !s.ok()) return s;
  return ReconcileIncidents(now);
}

// The newest event's seq, by search: "is there an event after x" is monotone in x.
Status DecisionLoop::FindLastSeq(int64_t* seq) {
  std::vector<store::Event> one;
  auto exists_after = [&](int64_t x, bool* yes) {
    Status s = store_->EventsAfter(x, 1, &one);
    *yes = !one.empty();
    return s;
  };
  bool yes = false;
  if (Status s = exists_after(0, &yes); !s.ok()) return s;
  if (!yes) {
    *seq = 0;
    return Status::Ok();
  }
  int64_t lo = 0, hi = 1;  // an event after lo; none known after hi yet
  for (;;) {
    if (Status s = exists_after(hi, &yes); !s.ok()) return s;
    if (!yes) break;
    lo = hi;
    hi *= 2;
  }
  while (hi - lo > 1) {  // invariant: an event after lo, none after hi
    const int64_t mid = lo + (hi - lo) / 2;
    if (Status s = exists_after(mid, &yes); !s.ok()) return s;
    (yes ? lo : hi) = mid;
  }
  *seq = hi;
  return Status::Ok();
}

Status DecisionLoop::LoadTopology(bool force) {
  std::string text;
  double at = NAN;
  Status s = store_->GetTopology(&text, &at);
  if (s.IsNotFound()) return Status::Ok();
  if (!s.ok()) return s;
  if (!force && at == topology_at_) return Status::Ok();
  Topology t;
  if (Status p = ParseTopology(text, &t, nullptr); !p.ok()) return Status::Corruption("stored topology: " + p.message());
  topology_ = std::move(t);
  topology_at_ = at;
  known_hosts_.clear();
  for (const auto& n : topology_.nodes) known_hosts_.insert(n.host);
  switch_names_.clear();
  for (const auto& sw : topology_.switches)
    if (!sw.name.empty()) switch_names_.push_back(sw.name);
  for (auto& [id, job] : live_) job->SetTopology(topology_);
  return Status::Ok();
}

Status DecisionLoop::LoadHeartbeats(double now) {
  store::EventRange range;
  range.types = {wire::EventType::kHeartbeat};
  range.from = now - std::max(600.0, 4 * options_.settle_s);
  std::vector<store::Event> events;
  if (Status s = store_->EventsInRange(range, &events); !s.ok()) return s;
  for (const auto& e : events)
    if (e.seq <= cursor_ && std::isfinite(e.at)) heartbeats_[e.node] = std::max(heartbeats_[e.node], e.at);
  return Status::Ok();
}

// --- events ---

Status DecisionLoop::TailEvents(double now) {
  std::vector<store::Event> batch;
  for (;;) {
    if (Status s = store_->EventsAfter(cursor_, kTailBatch, &batch); !s.ok()) return s;
    for (const store::Event& e : batch) {
      cursor_ = std::max(cursor_, e.seq);
      auto d = Decode(e);
      if (!d) continue;
      Route(*d, e.received_at, now);
      ++health_->events_fed;
    }
    if (batch.size() < kTailBatch) return Status::Ok();
  }
}

std::shared_ptr<const wire::DecodedEvent> DecisionLoop::Decode(const store::Event& e) {
  if (fresh_)
    if (auto kept = fresh_->Take(e)) return kept;
  ++health_->events_decoded;
  auto j = nlohmann::json::parse(e.body, nullptr, false);
  auto d = std::make_shared<wire::DecodedEvent>();
  if (j.is_discarded() || !wire::DecodeEvent(j, e.node, d.get()).ok()) return nullptr;
  return d;
}

bool DecisionLoop::InJobWindow(const LiveJob& job, const wire::DecodedEvent& e, double received_at) const {
  if (PlacedByScope(e)) return job.InScope(e, received_at, options_.scope);
  if (e.type == wire::EventType::kFacts || std::isnan(e.at) || std::isnan(job.job().started_at)) return true;
  return e.at >= job.job().started_at - options_.lookback_s;
}

void DecisionLoop::Route(const wire::DecodedEvent& e, double received_at, double now) {
  if (e.type == wire::EventType::kHeartbeat) {
    auto [it, fresh] = heartbeats_.emplace(e.node, e.at);
    if (!fresh) it->second = std::max(it->second, e.at);
    for (auto& [id, job] : live_)  // a report that may complete a picture: latency counts from here
      if (job->HasHost(e.node)) job->set_last_received(received_at);
    return;
  }
  const bool everyone = e.type == wire::EventType::kProbe || (e.type == wire::EventType::kLog && e.log.source == SourceKind::kSwitch);
  const bool critical = e.type == wire::EventType::kLog && e.log.event.line_class == LineClass::kCritical && !everyone;
  for (auto& [id, job] : live_) {
    if (!everyone && !job->HasHost(e.node)) continue;
    if (!InJobWindow(*job, e, received_at)) continue;
    job->Feed(e, now);
    job->set_last_received(received_at);
    if (critical && running_.count(id) && !critical_checked_.count(id)) critical_seen_.insert(id);
  }
}

// --- jobs and incidents ---

Status DecisionLoop::BuildLiveJob(const store::JobRecord& record, double now, LiveJob** out) {
  Job model;
  if (Status s = ParseJob(record.body, &model, nullptr); !s.ok()) return Status::Corruption("stored job " + record.id + ": " + s.message());
  model.id = record.id;
  model.state = JobState::kRunning;
  model.ended_at = NAN;
  if (std::isnan(model.started_at)) model.started_at = record.started_at;
  const double ended_at = record.state == store::JobState::kRunning ? NAN
                          : std::isnan(record.ended_at)              ? record.updated_at
                                                                     : record.ended_at;
  {
    Job window = model;  // returns during the job count, not those after its end
    window.ended_at = ended_at;
    if (Status s = LoadReturns(window, &model.not_before); !s.ok()) return s;
  }
  auto job = std::make_unique<LiveJob>(model, topology_);
  if (!std::isnan(ended_at)) job->SetEnded(ended_at, record.updated_at);
  std::vector<std::string> hosts = model.hosts;
  hosts.insert(hosts.end(), switch_names_.begin(), switch_names_.end());

  // Reads a range page by page (ordered by time, then seq), feeding what the tail has not
  // passed yet. A critical line among them is looked at as if it had just arrived (one
  // that came while no controller led).
  bool critical = false;
  auto feed_range = [&](store::EventRange range) -> Status {
    range.limit = kRangePage;
    for (;;) {
      std::vector<store::Event> events;
      if (Status s = store_->EventsInRange(range, &events); !s.ok()) return s;
      for (const store::Event& e : events) {
        if (e.seq > cursor_) continue;
        auto decoded = Decode(e);
        if (!decoded) continue;
        const wire::DecodedEvent& d = *decoded;
        if (!InJobWindow(*job, d, e.received_at)) continue;
        critical = critical || (d.type == wire::EventType::kLog && d.log.event.line_class == LineClass::kCritical &&
                                d.log.source != SourceKind::kSwitch);
        job->Feed(d, now);
        job->set_last_received(e.received_at);
      }
      if (events.size() < range.limit) return Status::Ok();
      range.after_time = store::RangeTime(events.back());  // the next page
      range.after_seq = events.back().seq;
    }
  };
  store::EventRange facts;
  facts.hosts = model.hosts;
  facts.types = {wire::EventType::kFacts};
  if (Status s = feed_range(facts); !s.ok()) return s;
  store::EventRange rest;
  rest.hosts = hosts;
  rest.types = {wire::EventType::kLog, wire::EventType::kCcl, wire::EventType::kMetric};
  if (!std::isnan(model.started_at)) rest.from = model.started_at - options_.lookback_s;
  if (Status s = feed_range(rest); !s.ok()) return s;
  store::EventRange probes;
  probes.types = {wire::EventType::kProbe};
  probes.from = rest.from;
  if (Status s = feed_range(probes); !s.ok()) return s;
  job->ResetProgressClock(now);
  if (critical && record.state == store::JobState::kRunning && !critical_checked_.count(record.id))
    critical_seen_.insert(record.id);
  auto& owned = live_[record.id];
  owned = std::move(job);
  *out = owned.get();
  return Status::Ok();
}

LiveJob* DecisionLoop::EnsureLiveJob(const std::string& id, double now) {
  if (auto it = live_.find(id); it != live_.end()) return it->second.get();
  store::JobRecord record;
  Status s = store_->GetJob(id, &record);
  if (!s.ok()) {
    if (!s.IsNotFound()) StoreError("reading a job", s);
    return nullptr;
  }
  LiveJob* job = nullptr;
  if (s = BuildLiveJob(record, now, &job); !s.ok()) {
    StoreError("rebuilding a job", s);
    return nullptr;
  }
  return job;
}

Status DecisionLoop::ReconcileJobs(double now) {
  std::vector<store::JobRecord> running;
  if (Status s = store_->ListJobs(store::JobState::kRunning, &running); !s.ok()) return s;
  std::set<std::string> ids;
  for (const store::JobRecord& r : running) {
    ids.insert(r.id);
    if (!live_.count(r.id)) {
      LiveJob* job = nullptr;
      if (Status s = BuildLiveJob(r, now, &job); !s.ok()) return s;
    }
  }
  running_ = std::move(ids);
  // Jobs that ended: their incident (opened by whoever ended them; opened here too, in
  // case that instance died in between) is decided; a job done is forgotten.
  std::vector<std::string> ended;
  for (const auto& [id, job] : live_)
    if (!running_.count(id)) ended.push_back(id);
  for (const std::string& id : ended) {
    bool referenced = false;
    for (const auto& [inc, p] : pending_) referenced = referenced || p.job == id;
    if (referenced) continue;
    store::JobRecord record;
    Status s = store_->GetJob(id, &record);
    if (!s.ok() && !s.IsNotFound()) return s;
    if (s.ok()) live_[id]->SetEnded(std::isnan(record.ended_at) ? now : record.ended_at, record.updated_at);
    std::optional<store::Trigger> trigger;
    if (s.ok() && record.state == store::JobState::kFailed) trigger = store::Trigger::kJobFailed;
    if (s.ok() && record.state == store::JobState::kHung) trigger = store::Trigger::kJobHung;
    if (s.ok() && record.state == store::JobState::kSlow) trigger = store::Trigger::kSlow;
    if (!trigger) {
      live_.erase(id);
      continue;
    }
    store::IncidentRecord inc;
    bool created = false;
    const double at = std::isnan(record.ended_at) ? now : record.ended_at;
    if (Status o = store_->OpenIncident({id, *trigger, at, ""}, &inc, &created); !o.ok()) return o;
    if (created) ++health_->incidents_opened;
    if (inc.decided()) live_.erase(id);
    else pending_.emplace(inc.id, Pending{id, *trigger, inc.opened_at, false});
  }
  return Status::Ok();
}

Status DecisionLoop::ReconcileIncidents(double now) {
  store::IncidentFilter filter;
  filter.undecided_only = true;
  std::vector<store::IncidentRecord> open;
  if (Status s = store_->ListIncidents(filter, &open); !s.ok()) return s;
  for (const store::IncidentRecord& inc : open) {
    if (pending_.count(inc.id)) continue;
    if (!EnsureLiveJob(inc.job, now)) continue;
    const bool own = inc.trigger == store::Trigger::kCclStall || inc.trigger == store::Trigger::kCriticalError ||
                     (inc.trigger == store::Trigger::kSlow && running_.count(inc.job));
    pending_.emplace(inc.id, Pending{inc.job, inc.trigger, inc.opened_at, own});
  }
  return Status::Ok();
}

// --- deciding ---

bool DecisionLoop::PictureComplete(const LiveJob& job, double since, double now, std::vector<std::string>* silent,
                                   std::vector<std::string>* busy) const {
  silent->clear();
  busy->clear();
  for (const std::string& h : job.hosts()) {
    auto it = heartbeats_.find(h);
    if (it == heartbeats_.end() || it->second >= since) continue;  // unknown agent, or caught up
    const double heard = nodes_ ? nodes_->LastHeard(h) : NAN;
    (heard >= now - kAliveS ? busy : silent)->push_back(h);
  }
  return silent->empty() && busy->empty();
}

void DecisionLoop::DecidePending(double now) {
  std::vector<std::string> done;
  for (const auto& [id, p] : pending_) {
    auto it = live_.find(p.job);
    if (it == live_.end()) {
      if (!EnsureLiveJob(p.job, now)) continue;
      it = live_.find(p.job);
    }
    std::vector<std::string> silent, busy;
    const bool complete = p.immediate || PictureComplete(*it->second, p.opened_at, now, &silent, &busy);
    if (!complete && now < p.opened_at + options_.settle_s) continue;
    // An agent still posting is catching up (a backlog): waited for, up to a bound.
    if (!complete && !busy.empty() && now < p.opened_at + kBusyWaitSettles * options_.settle_s) continue;
    if (!leader_) return;
    for (const std::string& h : busy) silent.push_back(h);
    Status s = DecideIncident(id, p, complete, silent, now);
    if (!s.ok()) {
      StoreError("recording a decision", s);
      if (!s.IsUnavailable()) done.push_back(id);  // not retried: a bad record would fail again
      continue;
    }
    done.push_back(id);
  }
  for (const std::string& id : done) {
    const std::string job = pending_[id].job;
    pending_.erase(id);
    bool referenced = false;
    for (const auto& [inc, p] : pending_) referenced = referenced || p.job == job;
    if (!referenced && !running_.count(job)) live_.erase(job);
  }
}

Status DecisionLoop::DecideIncident(const std::string& id, const Pending& p, bool complete,
                                    const std::vector<std::string>& silent, double now) {
  LiveJob* job = live_.at(p.job).get();
  store::JobRecord record;
  Status s = store_->GetJob(p.job, &record);
  if (!s.ok() && !s.IsNotFound()) return s;
  const bool ended = s.ok() && record.state != store::JobState::kRunning;
  JobState state = JobState::kFailed;
  switch (p.trigger) {
    case store::Trigger::kJobFailed:
    case store::Trigger::kCriticalError: state = JobState::kFailed; break;
    case store::Trigger::kJobHung:
    case store::Trigger::kCclStall: state = JobState::kHung; break;
    case store::Trigger::kSlow: state = JobState::kSlow; break;
    case store::Trigger::kManual: state = ended ? record.state : JobState::kFailed; break;
  }
  double ended_at = NAN;
  if (p.trigger == store::Trigger::kJobFailed || p.trigger == store::Trigger::kJobHung || (p.trigger == store::Trigger::kSlow && ended))
    ended_at = ended && !std::isnan(record.ended_at) ? record.ended_at : p.opened_at;
  if (!complete)
    for (const std::string& h : silent) {
      const double heard = nodes_ ? nodes_->LastHeard(h) : NAN;
      job->ReportMissing("nodes/" + h, heard >= now - kAliveS
                                           ? "the agent was still sending what it had read when the decision was taken"
                                           : "the agent had not reported since the job ended when the decision was taken");
    }
  if (!options_.prometheus.empty() && state == JobState::kSlow)
    FetchPrometheus(job, std::isnan(ended_at) ? now : ended_at, &job->builder());
  std::shared_ptr<const Rules> rules = rules_->Current();
  Verdict v = job->DecideAs(state, ended_at, rules->catalog, options_.decide);
  if (v.job.empty()) v.job = p.job;

  std::vector<store::HostRecord> hosts;
  if (Status hs = store_->ListHosts(&hosts); !hs.ok()) return hs;
  const double window_from = now - options_.isolate_window_s;
  std::vector<store::HistoryEntry> recent;
  if (Status hs = store_->HistorySince(window_from, kHistoryLimit, &recent); !hs.ok()) return hs;
  PlanInputs in;
  in.incident = id;
  in.decided_by = options_.name;
  in.now = env_->NowEpochSeconds();
  in.isolated_recently = IsolatedRecently(recent, window_from);
  in.isolate_window_s = options_.isolate_window_s;
  in.verdict_json = VerdictToJson(v);
  in.topology_hosts = topology_.nodes.size();
  in.known_hosts = known_hosts_;
  for (const auto& h : hosts) in.current[h.host] = h.state;
  in.dry_run = options_.dry_run;
  in.backends = options_.actions;
  in.max_isolate_share = options_.max_isolate_share;
  Plan plan = PlanDecision(v, in);
  // The lock is checked right before the write; the write itself is conditional, so a
  // leader that lost the lock in between still cannot decide an incident twice.
  if (!lock_->IsHeld()) {
    Resign("lost the leader lock");
    return Status::Ok();
  }
  store::DecisionOutcome outcome;
  if (Status rs = store_->RecordDecision(plan.decision, &outcome); !rs.ok()) return rs;
  if (!outcome.applied) {
    ++health_->decisions_lost;
    Log(fmt::format("{} was already decided by {}", id, outcome.decided_by));
    return Status::Ok();
  }
  ++health_->decisions;
  if (plan.held) ++health_->decisions_held;
  if (nodes_) nodes_->Invalidate();  // no flush is wanted for it any more
  const double from = std::max(p.opened_at, job->last_received());
  health_->ObserveVerdictLatency(env_->NowEpochSeconds() - from);
  std::string who;
  for (const auto& h : plan.decision.hosts) {
    const bool left = std::find(outcome.held_hosts.begin(), outcome.held_hosts.end(), h.host) != outcome.held_hosts.end();
    who += " " + h.host + "->" + (left ? std::string("(held by a person)") : std::string(store::ToString(h.to)));
  }
  Log(fmt::format("{} (job {}, {}): {} {} by {}{}{}", id, p.job, store::ToString(p.trigger), ToString(v.action),
                  ToString(v.cause), ToString(v.stage), who, options_.dry_run ? " [dry run]" : ""));
  return Status::Ok();
}

Status DecisionLoop::OpenOwnIncident(const std::string& job, store::Trigger trigger, double now) {
  store::IncidentRecord inc;
  bool created = false;
  if (Status s = store_->OpenIncident({job, trigger, now, ""}, &inc, &created); !s.ok()) return s;
  if (created) {
    ++health_->incidents_opened;
    Log(fmt::format("{} opened for job {}: {}", inc.id, job, store::ToString(trigger)));
  }
  if (!inc.decided()) pending_.emplace(inc.id, Pending{job, trigger, inc.opened_at, true});
  return Status::Ok();
}

// A critical line on a running job's host: the engine, on the picture as it is, decides
// by its first stage (a critical line is never outvoted) and the incident is decided at
// once. Once per job: a later fault on another host waits for the job's end.
void DecisionLoop::CheckCritical(double now) {
  if (critical_seen_.empty()) return;
  std::shared_ptr<const Rules> rules = rules_->Current();
  std::vector<std::string> seen(critical_seen_.begin(), critical_seen_.end());
  critical_seen_.clear();
  for (const std::string& id : seen) {
    auto it = live_.find(id);
    if (it == live_.end() || !running_.count(id) || critical_checked_.count(id)) continue;
    Verdict v = it->second->DecideAs(JobState::kFailed, NAN, rules->catalog, options_.decide);
    if (v.stage != Stage::kCriticalError) continue;
    if (Status s = OpenOwnIncident(id, store::Trigger::kCriticalError, now); !s.ok()) {
      StoreError("opening a critical-error incident", s);
      continue;
    }
    critical_checked_.insert(id);
  }
}

Status DecisionLoop::LoadReturns(const Job& job, std::map<std::string, double, std::less<>>* not_before) {
  not_before->clear();
  if (std::isnan(job.started_at)) return Status::Ok();
  std::vector<store::HistoryEntry> history;
  if (Status s = store_->HistorySince(job.started_at, kHistoryLimit, &history); !s.ok()) return s;
  *not_before = ReturnsDuring(job, history);
  return Status::Ok();
}

// A person returned a host of a live job to service: its window moved, and which of its
// events are the job's must be decided again, so the picture is rebuilt from the store.
Status DecisionLoop::RefreshReturns(double now) {
  double earliest = INFINITY;
  for (const auto& [id, job] : live_) earliest = std::min(earliest, job->job().started_at);
  if (!std::isfinite(earliest)) return Status::Ok();
  std::vector<store::HistoryEntry> history;  // one read for every live job
  if (Status s = store_->HistorySince(earliest, kHistoryLimit, &history); !s.ok()) return s;
  std::vector<std::string> moved;
  for (const auto& [id, job] : live_) {
    Job window = job->job();
    window.ended_at = job->scope_end();
    if (ReturnsDuring(window, history) != job->job().not_before) moved.push_back(id);
  }
  for (const std::string& id : moved) {
    store::JobRecord record;
    if (Status s = store_->GetJob(id, &record); !s.ok()) return s.IsNotFound() ? Status::Ok() : s;
    live_.erase(id);
    LiveJob* rebuilt = nullptr;
    if (Status s = BuildLiveJob(record, now, &rebuilt); !s.ok()) return s;
    Log(fmt::format("job {}: a host was returned to service; its picture was rebuilt", id));
  }
  return Status::Ok();
}

void DecisionLoop::CheckHangs(double now) {
  for (const auto& [id, job] : live_) {
    if (!running_.count(id) || hang_checked_.count(id) || !job->has_ccl()) continue;
    if (now - job->last_progress() < options_.hang_after_s) continue;
    if (Status s = OpenOwnIncident(id, store::Trigger::kCclStall, now); !s.ok()) {
      StoreError("opening a hang incident", s);
      continue;
    }
    hang_checked_.insert(id);
  }
}

void DecisionLoop::FetchPrometheus(LiveJob* job, double end, Reporter* reporter) {
  std::shared_ptr<const Rules> rules = rules_->Current();
  std::vector<std::string> names;
  for (const auto& m : rules->catalog.metrics()) names.push_back(m.name);
  const double start = end - 2 * options_.decide.outliers.window_s;
  for (auto& series : FetchFromPrometheus(options_.prometheus, names, start, end, options_.prometheus_step_s, reporter))
    if (job->HasHost(series.host)) job->builder().AddSeries(std::move(series));
}

void DecisionLoop::CheckSlow(double now) {
  std::shared_ptr<const Rules> rules = rules_->Current();
  std::vector<std::string> slow;
  for (const auto& [id, job] : live_) {
    if (!running_.count(id) || slow_checked_.count(id) || hang_checked_.count(id)) continue;
    if (!options_.prometheus.empty()) {
      LogOnce reporter;  // a periodic check reports an unreachable server in the log, not in a verdict
      FetchPrometheus(job.get(), now, &reporter);
    }
    Verdict v = job->DecideAs(JobState::kSlow, NAN, rules->catalog, options_.decide);
    const bool names_one = v.action == Action::kIsolate || v.action == Action::kRepair;
    if (names_one && (v.stage == Stage::kCclDegradation || v.stage == Stage::kMetricOutlier)) slow.push_back(id);
  }
  for (const std::string& id : slow) {
    if (Status s = OpenOwnIncident(id, store::Trigger::kSlow, now); !s.ok()) {
      StoreError("opening a slow-job incident", s);
      continue;
    }
    slow_checked_.insert(id);
  }
}

}  // namespace aegis::controller
