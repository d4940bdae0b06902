// Events made by the agent's loop thread, as the JSON text that goes into the on-disk
// queue and, unchanged, into the body sent to the controller. Every event has an `id`
// unique across the cluster and stable across resends ("<node>:<kind>:..."), so that the
// controller recognises one it already has. The loop collects events here and queues
// them in one append per iteration. Single thread.
#pragma once
#include <string>
#include <vector>

#include "agent/counters.h"
#include "logs/event.h"
#include "sources/event_wire.h"

namespace aegis::agent {

class EventOutput {
 public:
  explicit EventOutput(AgentCounters* counters) : counters_(counters) {}
  void Add(EventType type, std::string json) {
    pending_.push_back(std::move(json));
    types_.push_back(type);
  }
  size_t pending() const { return pending_.size(); }
  const std::vector<std::string>& events() const { return pending_; }
  // The events were queued: counted, and forgotten here.
  void Queued() {
    for (EventType t : types_) counters_->Add(counters_->events_queued[static_cast<int>(t)]);
    pending_.clear();
    types_.clear();
  }

 private:
  AgentCounters* counters_;
  std::vector<std::string> pending_;
  std::vector<EventType> types_;
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
