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
                           HealthMetrics* health)
    : store_(store), rules_(rules), options_(options), health_(health) {}

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
  const double now = WallNow();
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
  if (Status s = TailEvents(now); !s.ok()) StoreError("reading events", s);
  if ((dirty & kJobs) || now >= next_reconcile_) {
    // Jobs and incidents written by any instance (this one wakes the loop at once).
    next_reconcile_ = now + kReconcileS;
    if (Status s = ReconcileJobs(now); !s.ok()) StoreError("reading jobs", s);
    if (Status s = ReconcileIncidents(now); !s.ok()) StoreError("reading incidents", s);
  }
  DecidePending(now);
  CheckHangs(now);
  if (options_.slow_check_s > 0 && now >= next_slow_) {
    next_slow_ = now + options_.slow_check_s;
    CheckSlow(now);
  }
  health_->live_jobs = static_cast<int64_t>(live_.size());
  health_->pending_incidents = static_cast<int64_t>(pending_.size());
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
  live_.clear();
  running_.clear();
  pending_.clear();
  heartbeats_.clear();
  hang_checked_.clear();
  slow_checked_.clear();
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
  range.types = {"heartbeat"};
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
      auto j = nlohmann::json::parse(e.body, nullptr, false);
      DecodedEvent d;
      if (j.is_discarded() || !DecodeEvent(j, e.node, &d).ok()) continue;  // validated at ingest; a newer format
      Route(d, e.received_at, now);
      ++health_->events_fed;
    }
    if (batch.size() < kTailBatch) return Status::Ok();
  }
}

bool DecisionLoop::InJobWindow(const LiveJob& job, const DecodedEvent& e) const {
  if (e.type == EventType::kFacts || std::isnan(e.at) || std::isnan(job.job().started_at)) return true;
  return e.at >= job.job().started_at - options_.lookback_s;
}

void DecisionLoop::Route(const DecodedEvent& e, double received_at, double now) {
  if (e.type == EventType::kHeartbeat) {
    auto [it, fresh] = heartbeats_.emplace(e.node, e.at);
    if (!fresh) it->second = std::max(it->second, e.at);
    for (auto& [id, job] : live_)  // a report that may complete a picture: latency counts from here
      if (job->HasHost(e.node)) job->set_last_received(received_at);
    return;
  }
  const bool everyone = e.type == EventType::kProbe || (e.type == EventType::kLog && e.log.source == SourceKind::kSwitch);
  for (auto& [id, job] : live_) {
    if (!everyone && !job->HasHost(e.node)) continue;
    if (!InJobWindow(*job, e)) continue;
    job->Feed(e, now);
    job->set_last_received(received_at);
  }
}

// --- jobs and incidents ---

Status DecisionLoop::BuildLiveJob(const store::Job& record, double now, LiveJob** out) {
  Job model;
  if (Status s = ParseJob(record.body, &model, nullptr); !s.ok()) return Status::Corruption("stored job " + record.id + ": " + s.message());
  model.id = record.id;
  model.state = JobState::kRunning;
  model.ended_at = NAN;
  if (std::isnan(model.started_at)) model.started_at = record.started_at;
  auto job = std::make_unique<LiveJob>(model, topology_);
  std::vector<std::string> hosts = model.hosts;
  hosts.insert(hosts.end(), switch_names_.begin(), switch_names_.end());

  // Reads a range page by page (ordered by time, then seq), feeding what the tail has not
  // passed yet.
  auto feed_range = [&](store::EventRange range) -> Status {
    range.limit = kRangePage;
    for (;;) {
      std::vector<store::Event> events;
      if (Status s = store_->EventsInRange(range, &events); !s.ok()) return s;
      for (const store::Event& e : events) {
        if (e.seq > cursor_) continue;
        auto j = nlohmann::json::parse(e.body, nullptr, false);
        DecodedEvent d;
        if (j.is_discarded() || !DecodeEvent(j, e.node, &d).ok()) continue;
        if (!InJobWindow(*job, d)) continue;
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
  facts.types = {"facts"};
  if (Status s = feed_range(facts); !s.ok()) return s;
  store::EventRange rest;
  rest.hosts = hosts;
  rest.types = {"log", "ccl", "metric"};
  if (!std::isnan(model.started_at)) rest.from = model.started_at - options_.lookback_s;
  if (Status s = feed_range(rest); !s.ok()) return s;
  store::EventRange probes;
  probes.types = {"probe"};
  probes.from = rest.from;
  if (Status s = feed_range(probes); !s.ok()) return s;
  job->ResetProgressClock(now);
  auto& owned = live_[record.id];
  owned = std::move(job);
  *out = owned.get();
  return Status::Ok();
}

LiveJob* DecisionLoop::EnsureLiveJob(const std::string& id, double now) {
  if (auto it = live_.find(id); it != live_.end()) return it->second.get();
  store::Job record;
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
  std::vector<store::Job> running;
  if (Status s = store_->ListJobs(store::JobState::kRunning, &running); !s.ok()) return s;
  std::set<std::string> ids;
  for (const store::Job& r : running) {
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
    store::Job record;
    Status s = store_->GetJob(id, &record);
    if (!s.ok() && !s.IsNotFound()) return s;
    std::optional<store::Trigger> trigger;
    if (s.ok() && record.state == store::JobState::kFailed) trigger = store::Trigger::kJobFailed;
    if (s.ok() && record.state == store::JobState::kHung) trigger = store::Trigger::kJobHung;
    if (s.ok() && record.state == store::JobState::kSlow) trigger = store::Trigger::kSlow;
    if (!trigger) {
      live_.erase(id);
      continue;
    }
    store::Incident inc;
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
  std::vector<store::Incident> open;
  if (Status s = store_->ListIncidents(filter, &open); !s.ok()) return s;
  for (const store::Incident& inc : open) {
    if (pending_.count(inc.id)) continue;
    if (!EnsureLiveJob(inc.job, now)) continue;
    const bool own = inc.trigger == store::Trigger::kCclStall ||
                     (inc.trigger == store::Trigger::kSlow && running_.count(inc.job));
    pending_.emplace(inc.id, Pending{inc.job, inc.trigger, inc.opened_at, own});
  }
  return Status::Ok();
}

// --- deciding ---

bool DecisionLoop::PictureComplete(const LiveJob& job, double since, std::vector<std::string>* silent) const {
  silent->clear();
  for (const std::string& h : job.hosts()) {
    auto it = heartbeats_.find(h);
    if (it != heartbeats_.end() && !(it->second >= since)) silent->push_back(h);  // known agent, not caught up
  }
  return silent->empty();
}

void DecisionLoop::DecidePending(double now) {
  std::vector<std::string> done;
  for (const auto& [id, p] : pending_) {
    auto it = live_.find(p.job);
    if (it == live_.end()) {
      if (!EnsureLiveJob(p.job, now)) continue;
      it = live_.find(p.job);
    }
    std::vector<std::string> silent;
    const bool complete = p.immediate || PictureComplete(*it->second, p.opened_at, &silent);
    if (!complete && now < p.opened_at + options_.settle_s) continue;
    if (!leader_) return;
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
  store::Job record;
  Status s = store_->GetJob(p.job, &record);
  if (!s.ok() && !s.IsNotFound()) return s;
  const bool ended = s.ok() && record.state != store::JobState::kRunning;
  JobState state = JobState::kFailed;
  switch (p.trigger) {
    case store::Trigger::kJobFailed: state = JobState::kFailed; break;
    case store::Trigger::kJobHung:
    case store::Trigger::kCclStall: state = JobState::kHung; break;
    case store::Trigger::kSlow: state = JobState::kSlow; break;
    case store::Trigger::kManual: state = ended ? record.state : JobState::kFailed; break;
  }
  double ended_at = NAN;
  if (p.trigger == store::Trigger::kJobFailed || p.trigger == store::Trigger::kJobHung || (p.trigger == store::Trigger::kSlow && ended))
    ended_at = ended && !std::isnan(record.ended_at) ? record.ended_at : p.opened_at;
  if (!complete)
    for (const std::string& h : silent)
      job->ReportMissing("nodes/" + h, "the agent had not reported since the job ended when the decision was taken");
  if (!options_.prometheus.empty() && state == JobState::kSlow)
    FetchPrometheus(job, std::isnan(ended_at) ? now : ended_at, &job->builder());
  std::shared_ptr<const Rules> rules = rules_->Current();
  Verdict v = job->DecideAs(state, ended_at, rules->catalog, options_.decide);
  if (v.job.empty()) v.job = p.job;

  std::vector<store::HostRecord> hosts;
  if (Status hs = store_->ListHosts(&hosts); !hs.ok()) return hs;
  PlanInputs in;
  in.incident = id;
  in.decided_by = options_.name;
  in.now = WallNow();
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
  const double from = std::max(p.opened_at, job->last_received());
  health_->ObserveVerdictLatency(WallNow() - from);
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
  store::Incident inc;
  bool created = false;
  if (Status s = store_->OpenIncident({job, trigger, now, ""}, &inc, &created); !s.ok()) return s;
  if (created) {
    ++health_->incidents_opened;
    Log(fmt::format("{} opened for job {}: {}", inc.id, job, store::ToString(trigger)));
  }
  if (!inc.decided()) pending_.emplace(inc.id, Pending{job, trigger, inc.opened_at, true});
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
