// Events made by the agent's loop thread, as the JSON text that goes into the on-disk
// queue and, unchanged, into the body sent to the controller. Every event has an `id`
// unique across the cluster and stable across resends ("<node>:<kind>:..."), so that the
// controller recognises one it already has. The loop collects events here and queues
// them in one append per iteration.
//
// Every event is stamped (docs/agent.md, "Stamps"): `read_at`, when the agent read what
// made it (epoch seconds, this host's clock), and `job`, the job the controller had said
// runs on this node at that time (SetScope; absent when none).
//
// Log storms ship as counts: with coalescing on (the agent's loop), a log event is held
// until the next FlushLogs, and the repeats of the same evidence of its file, read under
// the same job, that come meanwhile are added to it (logs/event_aggregate.h): one event
// with a count, the first record's id, fields and stamp, the last one's line and time, a
// few samples. The loop flushes with the CCL coalescer (every second, before it saves the
// sources' positions, and when the controller asks for a flush), so nothing waits longer
// than that and no position is saved past a held record; at most kMaxHeldLogEvents
// distinct events are held (more flush at once). Single thread.
#pragma once
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "agent/counters.h"
#include "env/env.h"
#include "logs/event.h"
#include "logs/event_aggregate.h"
#include "wire/log_event.h"

namespace aegis::agent {

class EventOutput {
 public:
  static constexpr size_t kMaxHeldLogEvents = 1024;

  // `coalesce_logs`: hold log events for FlushLogs (above); else each is queued at once.
  // `env` (not owned; null: Env::Default()): its wall clock stamps events read "now".
  explicit EventOutput(AgentCounters* counters, bool coalesce_logs = false, Env* env = nullptr);
  // `json`: one event object; `read_at`: when its line was read (NaN: now).
  void Add(EventType type, std::string json, double read_at = NAN);
  // A classified log record of `file` (a node's bundle file) with its event id, read at
  // `read_at` (NaN: now).
  void AddLog(std::string id, const std::string& node, SourceKind source, const std::string& file, LogEvent&& event,
              double read_at = NAN);
  // The held log events become pending, each with the id and stamp of its first record.
  void FlushLogs();
  size_t held_logs() const { return held_count_; }

  // The controller said `job` runs on this node since `since` (its clock; NaN: unknown),
  // or ("") that none does. Lines read from `since` on (from now when later, or for
  // none) are tagged with it.
  void SetScope(const std::string& job, double since);
  // The job tagged on a line read at `t`.
  const std::string& JobAt(double t) const;
  const std::string& job() const { return scopes_.empty() ? none_ : scopes_.back().second; }

  size_t pending() const { return pending_.size(); }
  const std::vector<std::string>& events() const { return pending_; }
  // The events were queued: counted, and forgotten here.
  void Queued() {
    for (EventType t : types_) counters_->Add(counters_->events_queued[static_cast<int>(t)]);
    pending_.clear();
    types_.clear();
  }

 private:
  struct HeldLog {  // one bundle file's held events read under one job
    std::string node;
    SourceKind source = SourceKind::kKernel;
    LogAggregator events;
    std::vector<std::string> ids;   // by entry: the id of its first record
    std::vector<double> read_at;    // by entry: when its first record was read
  };
  AgentCounters* counters_;
  bool coalesce_logs_;
  Env* env_;
  std::vector<std::string> pending_;
  std::vector<EventType> types_;
  std::map<std::pair<std::string, std::string>, HeldLog> held_;  // by (file, job tagged when read)
  size_t held_count_ = 0;
  std::vector<std::pair<double, std::string>> scopes_;  // (from, job), by time; "" for none
  std::string none_;
};

// Adds `"read_at": T` and, when `job` is not empty, `"job": JOB` to one JSON object's text.
void StampEvent(std::string* json, double read_at, const std::string& job);

// A piece of an event id taken from outside input (a communicator, a device name): kept
// when it uses only the characters ids may hold (letters, digits, . _ - @ + =) and is
// short, else replaced by "h" and a hash of it, so that the controller never rejects an
// id and the same input always gives the same id.
std::string IdPart(std::string_view s);

// The "log" event: wire::LogEventToWire's fields plus the id.
std::string LogEventJson(const std::string& id, const std::string& node, SourceKind source, const std::string& file,
                         LogEvent&& event);

}  // namespace aegis::agent
