// The controller: the live system's centre. It stores what node agents post (events),
// follows jobs, opens incidents and decides them with the same engine as `aegis
// diagnose`, keeps every host's state with its history, and serves all of it over an
// HTTP API (http_api.h; docs/api.md). Storage is a store::Store (SQLite by default,
// PostgreSQL for several controllers, of which one leads: decision_loop.h).
// This class holds the pieces and carries out the API's writes; reads are documents
// built from the store (status_document.h, bundle_export.h). Thread-safe: the HTTP
// server calls it from many threads.
#pragma once
#include <memory>
#include <mutex>
#include <string>

#include "controller/api_bodies.h"
#include "controller/decision_loop.h"
#include "controller/fresh_events.h"
#include "controller/health_metrics.h"
#include "controller/node_directory.h"
#include "controller/options.h"
#include "controller/tokens.h"
#include "match/live_rules.h"
#include "store/store.h"

namespace aegis::controller {

struct IngestResult {
  size_t accepted = 0;
  size_t duplicates = 0;
  std::vector<EventBatch::Rejected> rejected;  // the batch's own and the store's
  NodeScope scope;                             // what the posting agent is told (node_directory.h)
};

struct EndJobResult {
  std::string job;
  JobState state = JobState::kFailed;
  std::string incident;  // empty for a job done
};

class Controller {
 public:
  // Opens the store (creating or migrating its schema), loads the rules and tokens and
  // the --topology file (stored, replacing the previous one). Does not start the loop.
  static Status Open(const ControllerOptions& options, std::unique_ptr<Controller>* out);
  ~Controller();

  void Start();  // the decision loop
  void Stop();

  // --- the API's writes ---
  Status Ingest(const EventBatch& batch, IngestResult* result);
  // AlreadyExists (an idempotent repeat of the same start is ok: *created false).
  // FailedPrecondition when a job of that id already ended.
  Status StartJob(const JobStart& start, bool* created);
  // NotFound for an unknown job; FailedPrecondition when it already ended otherwise.
  Status EndJob(const std::string& id, const JobEnd& end, EndJobResult* out);
  Status PutTopology(std::string_view body);
  // NotFound for a host neither the topology nor any job named.
  Status SetHostState(const std::string& host, const HostStateRequest& request, const Caller& caller,
                      store::HostRecord* out, bool* changed);
  Status ReloadRules();
  // Reads --token-file again (on SIGHUP, after `aegis tokens create|revoke`): requests
  // from then on are checked against it; a file that fails to load (or that would hand
  // out a shared agent token unless allowed) keeps the current tokens and says why.
  Status ReloadTokens();

  store::Store& store() { return *store_; }
  const ControllerOptions& options() const { return options_; }
  std::shared_ptr<const TokenTable> tokens() const;
  HealthMetrics& health() { return health_; }
  LiveRules& rules() { return *rules_; }
  NodeDirectory& nodes() { return *nodes_; }
  double Now() const { return env_->NowEpochSeconds(); }
  bool leader() const { return loop_->leader(); }
  DecisionLoop& loop() { return *loop_; }

 private:
  Controller() = default;

  ControllerOptions options_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<LiveRules> rules_;
  mutable std::mutex tokens_mu_;
  std::shared_ptr<const TokenTable> tokens_;  // guarded by tokens_mu_; replaced whole on reload
  HealthMetrics health_;
  Env* env_ = nullptr;  // options_.env
  std::unique_ptr<NodeDirectory> nodes_;
  FreshEvents fresh_;  // what Ingest decoded, until the loop reads it back
  std::unique_ptr<DecisionLoop> loop_;
};

}  // namespace aegis::controller
