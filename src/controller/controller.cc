#include "controller/controller.h"

#include <unistd.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "bundle/bundle_reader.h"
#include "controller/decision_plan.h"
#include "controller/iso_time.h"

namespace aegis::controller {

namespace {

std::string DefaultName() {
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return std::string(host[0] ? host : "controller") + ":" + std::to_string(getpid());
}

std::optional<store::Trigger> TriggerOf(JobState s) {
  switch (s) {
    case JobState::kFailed: return store::Trigger::kJobFailed;
    case JobState::kHung: return store::Trigger::kJobHung;
    case JobState::kSlow: return store::Trigger::kSlow;
    default: return std::nullopt;
  }
}

// The token file, refused when it holds a token that lets an agent speak for every node
// and the operator did not ask for that.
Status LoadTokens(const ControllerOptions& options, std::shared_ptr<const TokenTable>* out) {
  auto table = std::make_shared<TokenTable>();
  if (Status s = TokenTable::Load(options.token_file, table.get()); !s.ok()) return s;
  if (!table->shared_agent_tokens().empty() && !options.allow_shared_agent_token)
    return Status::InvalidArgument(options.token_file + ": token \"" + table->shared_agent_tokens().front() +
                                   "\" has the agent scope bound to no node, so any node holding it may post events "
                                   "about every other; give each node its own (aegis tokens create --node NODE, "
                                   "scope agent@NODE) or start with --allow-shared-agent-token");
  *out = std::move(table);
  return Status::Ok();
}

}  // namespace

Status Controller::Open(const ControllerOptions& options, std::unique_ptr<Controller>* out) {
  std::unique_ptr<Controller> c(new Controller());
  c->options_ = options;
  if (c->options_.name.empty()) c->options_.name = DefaultName();
  if (!c->options_.env) c->options_.env = Env::Default();
  c->env_ = c->options_.env;
  c->tokens_ = std::make_shared<TokenTable>();
  if (!options.token_file.empty())
    if (Status s = LoadTokens(options, &c->tokens_); !s.ok()) return s;
  c->rules_ = std::make_unique<LiveRules>(options.rule_dirs);
  if (!c->rules_->status().ok()) return c->rules_->status();
  store::StoreOptions store_options;
  store_options.sqlite_sync_full = options.sqlite_sync_full;
  store_options.env = c->env_;
  if (Status s = store::Store::Open(options.db, &c->store_, store_options); !s.ok()) return s;
  if (!options.topology_file.empty()) {
    std::string text;
    if (Status s = ReadSmallFile(options.topology_file, &text); !s.ok()) return s;
    if (Status s = c->PutTopology(text); !s.ok()) return Status::InvalidArgument(options.topology_file + ": " + s.message());
  }
  c->nodes_ = std::make_unique<NodeDirectory>(c->store_.get(), c->env_, options.report_s);
  c->loop_ = std::make_unique<DecisionLoop>(c->store_.get(), c->rules_.get(), c->options_, &c->health_, c->nodes_.get(),
                                            &c->fresh_);
  *out = std::move(c);
  return Status::Ok();
}

Controller::~Controller() { Stop(); }

void Controller::Start() { loop_->Start(); }

void Controller::Stop() {
  if (loop_) loop_->Stop();
}

Status Controller::Ingest(const EventBatch& batch, IngestResult* result) {
  *result = IngestResult();
  result->rejected = batch.rejected;
  health_.events_decoded += batch.decodes;
  if (!batch.events.empty()) {
    // Kept for the loop before the commit, so that it finds them however soon it reads.
    const bool keep = loop_->leader() && batch.decoded.size() == batch.events.size();
    if (keep)
      for (size_t i = 0; i < batch.events.size(); ++i) fresh_.Put(batch.events[i], batch.decoded[i]);
    store::AppendResult appended;
    const Status s = store_->AppendEvents(batch.events, &appended);
    // Not stored, or some of the batch was known already (sent again): nothing of it is
    // kept that the loop may never read back (an entry it does read is still used).
    if (keep && (!s.ok() || appended.duplicates != 0 || !appended.rejected.empty()))
      for (const store::Event& e : batch.events) fresh_.Forget(e.id);
    if (!s.ok()) {
      ++health_.store_errors;
      return s;
    }
    result->accepted = appended.added;
    result->duplicates = appended.duplicates;
    for (const store::RejectedEvent& r : appended.rejected) {
      const size_t i = r.index < batch.event_index.size() ? batch.event_index[r.index] : r.index;
      result->rejected.push_back({i, r.index < batch.events.size() ? batch.events[r.index].id : "", r.why.message()});
    }
  }
  health_.events_accepted += result->accepted;
  health_.events_duplicate += result->duplicates;
  health_.events_rejected += result->rejected.size();
  ++health_.batches;
  if (result->accepted) loop_->Wake(DecisionLoop::kEvents);
  // The agent is told its node's scope; a store that cannot be read now leaves the last
  // one known, which is no reason to refuse a batch already stored.
  nodes_->Heard(batch.node, env_->NowEpochSeconds());
  (void)nodes_->ScopeOf(batch.node, &result->scope);
  return Status::Ok();
}

Status Controller::StartJob(const JobStart& start, bool* created) {
  *created = false;
  const double now = env_->NowEpochSeconds();
  store::JobRecord existing;
  Status s = store_->GetJob(start.job.id, &existing);
  if (s.ok()) {
    if (existing.state != store::JobState::kRunning)
      return Status::FailedPrecondition("job " + start.job.id + " already ended (" +
                                        std::string(store::ToString(existing.state)) + ")");
    return Status::Ok();  // started again: the first start stands
  }
  if (!s.IsNotFound()) return s;
  store::JobRecord job;
  job.id = start.job.id;
  job.state = store::JobState::kRunning;
  job.body = start.body;
  job.started_at = std::isnan(start.job.started_at) ? now : start.job.started_at;
  job.updated_at = now;
  bool applied = false;
  if (s = store_->PutJob(job, &applied); !s.ok()) return s;
  size_t added = 0;
  if (s = store_->RegisterHosts(start.job.hosts, now, &added); !s.ok()) return s;
  *created = applied;
  nodes_->Invalidate();
  loop_->Wake(DecisionLoop::kJobs);
  return Status::Ok();
}

Status Controller::EndJob(const std::string& id, const JobEnd& end, EndJobResult* out) {
  const double now = env_->NowEpochSeconds();
  store::JobRecord job;
  if (Status s = store_->GetJob(id, &job); !s.ok()) return s.IsNotFound() ? Status::NotFound("no job " + id) : s;
  out->job = id;
  out->state = end.state;
  const auto trigger = TriggerOf(end.state);
  if (job.state != store::JobState::kRunning) {
    if (job.state != end.state)
      return Status::FailedPrecondition("job " + id + " already ended (" + std::string(store::ToString(job.state)) + ")");
  }
  const double ended_at = std::isnan(end.ended_at) ? (std::isnan(job.ended_at) ? now : job.ended_at) : end.ended_at;
  // The incident first, then the job's end: a controller that dies in between leaves a
  // running job with an incident (decided as if the job had ended), never an ended job
  // that nobody looks at.
  if (trigger) {
    store::IncidentRecord inc;
    bool created = false;
    if (Status s = store_->OpenIncident({id, *trigger, now, ""}, &inc, &created); !s.ok()) return s;
    if (created) ++health_.incidents_opened;
    out->incident = inc.id;
  }
  if (job.state == store::JobState::kRunning) {
    auto body = nlohmann::json::parse(job.body, nullptr, false);
    if (body.is_object()) {
      body["state"] = std::string(ToString(end.state));
      body["ended_at"] = FormatIsoTime(ended_at);
      job.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    job.state = end.state;
    job.ended_at = ended_at;
    job.updated_at = std::max(now, std::isnan(job.updated_at) ? now : job.updated_at + 1e-6);
    bool applied = false;
    if (Status s = store_->PutJob(job, &applied); !s.ok()) return s;
  }
  nodes_->Invalidate();
  loop_->Wake(DecisionLoop::kJobs);
  return Status::Ok();
}

Status Controller::PutTopology(std::string_view body) {
  Topology t;
  if (Status s = ParseTopologyBody(body, &t); !s.ok()) return s;
  const double now = env_->NowEpochSeconds();
  if (Status s = store_->PutTopology(body, now); !s.ok()) return s;
  std::vector<std::string> hosts;
  for (const auto& n : t.nodes) hosts.push_back(n.host);
  size_t added = 0;
  if (Status s = store_->RegisterHosts(hosts, now, &added); !s.ok()) return s;
  if (loop_) loop_->Wake(DecisionLoop::kTopology);
  return Status::Ok();
}

Status Controller::SetHostState(const std::string& host, const HostStateRequest& request, const Caller& caller,
                                store::HostRecord* out, bool* changed) {
  *changed = false;
  store::HostRecord before;
  if (Status s = store_->GetHost(host, &before); !s.ok())
    return s.IsNotFound() ? Status::NotFound("no host " + host + " (not in the topology nor in any job)") : s;
  const double now = env_->NowEpochSeconds();
  store::ManualHostChange change;
  change.host = host;
  change.to = request.state;
  change.reason = request.reason.empty() ? "set by " + caller.name : request.reason;
  change.actor = caller.name;
  change.at = now;
  change.incident = request.incident;
  if (Status s = store_->SetHostState(change, changed); !s.ok()) return s;
  if (*changed) {
    const std::string prefix = "manual/" + FormatIsoTime(now) + "/" + std::to_string(static_cast<long long>(now * 1e6) % 1000000);
    for (store::ActionRecord& a : ManualActions(host, before.state, request.state, prefix, now, options_.dry_run, options_.actions)) {
      a.incident = request.incident;
      bool inserted = false;
      if (Status s = store_->RecordAction(a, &inserted); !s.ok()) return s;
    }
    nodes_->Invalidate();
    loop_->Wake(DecisionLoop::kHosts);  // a return to service moves the host's job window
  }
  return store_->GetHost(host, out);
}

Status Controller::ReloadRules() { return rules_->Reload(); }

Status Controller::ReloadTokens() {
  if (options_.token_file.empty()) return Status::Ok();
  std::shared_ptr<const TokenTable> table;
  if (Status s = LoadTokens(options_, &table); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(tokens_mu_);
  tokens_ = std::move(table);
  return Status::Ok();
}

std::shared_ptr<const TokenTable> Controller::tokens() const {
  std::lock_guard<std::mutex> lock(tokens_mu_);
  return tokens_;
}

}  // namespace aegis::controller
