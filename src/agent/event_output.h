// Events made by the agent's loop thread, as the JSON text that goes into the on-disk
// queue and, unchanged, into the body sent to the controller. Every event has an `id`
// unique across the cluster and stable across resends ("<node>:<kind>:..."), so that the
// controller recognises one it already has. The loop collects events here and queues
// them in one append per iteration.
// Log storms ship as counts: with coalescing on (the agent's loop), a log event is held
// until the next FlushLogs, and the repeats of the same evidence of its file that come
// meanwhile are added to it (logs/event_aggregate.h): one event with a count, the first
// record's id and fields, the last one's line and time, a few samples. The loop flushes
// with the CCL coalescer (every second, and before it saves the sources' positions), so
// nothing waits longer than that and no position is saved past a held record; at most
// kMaxHeldLogEvents distinct events are held (more flush at once). Single thread.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "agent/counters.h"
#include "logs/event_aggregate.h"
#include "logs/event.h"
#include "sources/event_wire.h"

namespace aegis::agent {

class EventOutput {
 public:
  static constexpr size_t kMaxHeldLogEvents = 1024;

  // `coalesce_logs`: hold log events for FlushLogs (above); else each is queued at once.
  explicit EventOutput(AgentCounters* counters, bool coalesce_logs = false)
      : counters_(counters), coalesce_logs_(coalesce_logs) {}
  void Add(EventType type, std::string json) {
    pending_.push_back(std::move(json));
    types_.push_back(type);
  }
  // A classified log record of `file` (a node's bundle file) with its event id.
  void AddLog(std::string id, const std::string& node, SourceKind source, const std::string& file, LogEvent&& event);
  // The held log events become pending, each with the id of its first record.
  void FlushLogs();
  size_t held_logs() const { return held_count_; }
  size_t pending() const { return pending_.size(); }
  const std::vector<std::string>& events() const { return pending_; }
  // The events were queued: counted, and forgotten here.
  void Queued() {
    for (EventType t : types_) counters_->Add(counters_->events_queued[static_cast<int>(t)]);
    pending_.clear();
    types_.clear();
  }

 private:
  struct HeldLog {  // one bundle file's held events
    std::string node;
    SourceKind source = SourceKind::kKernel;
    LogAggregator events;
    std::vector<std::string> ids;  // by entry: the id of its first record
  };
  AgentCounters* counters_;
  bool coalesce_logs_;
  std::vector<std::string> pending_;
  std::vector<EventType> types_;
  std::map<std::string, HeldLog> held_;  // by file
  size_t held_count_ = 0;
};

// A piece of an event id taken from outside input (a communicator, a device name): kept
// when it uses only the characters ids may hold (letters, digits, . _ - @ + =) and is
// short, else replaced by "h" and a hash of it, so that the controller never rejects an
// id and the same input always gives the same id.
std::string IdPart(std::string_view s);

// The "log" event: LogEventToWire's fields plus the id.
std::string LogEventJson(const std::string& id, const std::string& node, SourceKind source, const std::string& file,
                         LogEvent&& event);

}  // namespace aegis::agent
