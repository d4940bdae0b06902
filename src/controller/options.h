// The controller's settings (`aegis controller ...`, README "The controller"), with the
// parsing of the few that have a syntax of their own. Plain data.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/progress_signal.h"
#include "common/status.h"
#include "controller/job_scope.h"
#include "engine/engine.h"
#include "env/env.h"
#include "store/records.h"

namespace aegis::controller {

// Where an action would be carried out: `--action slurm|kubernetes|exec:CMD`. This
// release records actions and carries none out (docs/api.md, "Actions").
struct ActionTarget {
  store::ActionBackend backend = store::ActionBackend::kNone;  // slurm, kubernetes or exec
  std::string command;  // exec: the command
};
Status ParseActionTarget(std::string_view spec, ActionTarget* out);


struct ControllerOptions {
  std::string listen = "127.0.0.1:8470";
  std::string db = "sqlite:/var/lib/aegis/aegis.db";
  // SQLite: fsync every commit (FULL: durable across a power loss) or not (NORMAL: durable
  // across a crash of the controller, not of the machine; several times faster).
  bool sqlite_sync_full = true;
  std::string topology_file;   // loaded at start (replaces the stored topology)
  std::string token_file;      // tokens and scopes (tokens.h); empty: no authentication
  bool allow_anonymous = false;  // allow no token file on a non-loopback address
  // Accept a token file with an `agent` token bound to no node (tokens.h): any node that
  // holds it may post about every other. Off: such a file is refused at start and reload.
  bool allow_shared_agent_token = false;
  std::string tls_cert, tls_key;
  bool dry_run = false;
  std::vector<ActionTarget> actions;
  double hang_after_s = 300;       // no CCL counter change on any rank for this long: a hang
  // Decisions isolate at most max(1, floor(share x the topology's hosts)) hosts within
  // isolate_window_s (counted from the store's host history); more are held for a person.
  double max_isolate_share = 0.05;
  double isolate_window_s = 3600;
  double settle_s = 10;            // after a job ended, wait at most this long for its agents
  double slow_check_s = 60;        // how often running jobs are checked for a straggler; 0: never
  double lookback_s = 3600;        // metrics, switch logs and probes this long before a job started are in its picture
  // Events received this long ago are deleted (0: kept forever), but never what a job the
  // controller still follows (running, or its incident undecided) may read: nothing
  // received after its start less lookback_s. Heartbeats go after a day; facts are kept
  // (a host's newest facts may be older than any retention).
  double event_retention_s = 30 * 86400.0;
  double report_s = 1;             // how often agents of a running job's hosts post (the answer's scope)
  ScopeOptions scope;              // which of its hosts' events are a job's (job_scope.h)
  std::string prometheus;          // slow-job metrics from this Prometheus as well
  double prometheus_step_s = 15;
  std::vector<std::string> rule_dirs;
  std::string name;                // this instance in decisions (default host:pid)
  size_t max_body_bytes = 4u << 20;
  int max_ingest_in_flight = 32;   // more concurrent event posts are answered 503
  int http_threads = 32;
  double client_deadline_s = 120;  // a connection open this long is closed, whatever it does (0: never)
  DecideOptions decide;
  // The clock it decides by (its wall clock: epoch seconds) and the store's; not owned,
  // outlives the controller; null: Env::Default(). Tests give a ManualClockEnv.
  Env* env = nullptr;
  // Notified after each pass of the decision loop (common/progress_signal.h): tests wait on
  // it for a decision. Null in production.
  ProgressSignal* progress = nullptr;
};

}  // namespace aegis::controller
