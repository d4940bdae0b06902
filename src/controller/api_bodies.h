// The request bodies of the controller's HTTP API (docs/api.md, docs/openapi.yaml), read
// and validated before anything is stored: a body that is not of the documented shape, a
// field of the wrong JSON kind or an unknown enum value is an InvalidArgument naming the
// field (the API answers 400 with it); unknown fields are ignored. In an event batch a
// bad event costs only itself: it is listed as rejected and the rest go on. Pure
// functions, thread-safe; each has a libFuzzer target (fuzz/controller_*_fuzz.cc).
#pragma once
#include <optional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bundle/model.h"
#include "rules/catalog.h"
#include "common/status.h"
#include "wire/event.h"
#include "store/records.h"

namespace aegis::controller {

// Who posted an event batch and what the controller holds it to.
struct EventPolicy {
  // The caller's node (a token of scope agent@NODE): the batch must be from it (else
  // PermissionDenied: 403) and each event about it: a log event of its own kernel or
  // training log (nodes/NODE/kernel.log or train.log, no switch log), a probe it sent;
  // another event is rejected on its own. "": the caller may speak for any node.
  std::string node;
  // Log events take this catalogue's class, component and flags (event_classes.h); an
  // event naming a rule it does not have is rejected. null: as the agent sent them.
  const Catalog* catalog = nullptr;
};

// POST /api/v1/events: {"node", "agent", "events": [...]}.
struct EventBatch {
  std::string node;   // the posting agent's host
  std::string agent;  // the agent's instance id
  struct Rejected {
    size_t index = 0;
    std::string id;  // empty when the event had no usable id
    std::string reason;
  };
  std::vector<store::Event> events;      // the valid ones, ready for Store::AppendEvents
  std::vector<std::shared_ptr<const wire::DecodedEvent>> decoded;  // each of events, decoded
  std::vector<size_t> event_index;       // position of each in the posted array
  std::vector<Rejected> rejected;
  size_t decodes = 0;                    // events decoded (valid or not): each once
  size_t foreign = 0;                    // rejected: about another node than the caller's
  size_t unknown_rules = 0;              // rejected: a rule the catalogue does not have
  size_t corrected = 0;                  // accepted with the catalogue's class instead of the agent's
};
// An agent's class the catalogue overrode is kept in the stored event as "agent_class".
Status ParseEventBatch(std::string_view body, const EventPolicy& policy, EventBatch* out);

// POST /api/v1/jobs: a job.json (as in a bundle) whose state is "running" (or absent).
// `now` stands in for a missing started_at. `body` is the job.json to store: the posted
// object with state "running" and started_at filled in.
struct JobStart {
  Job job;
  std::string body;
};
Status ParseJobStart(std::string_view body, double now, JobStart* out);

// POST /api/v1/jobs/{id}/end: {"state": "failed"|"hung"|"slow"|"done", "ended_at"?}.
struct JobEnd {
  JobState state = JobState::kFailed;
  double ended_at = NAN;  // NaN: when the controller receives it
};
Status ParseJobEnd(std::string_view body, JobEnd* out);

// POST /api/v1/hosts/{host}/state: {"state": "in_service"|"isolated"|"repair"|"offline"|"held",
// "reason"?, "incident"?}.
struct HostStateRequest {
  store::HostState state = store::HostState::kInService;
  std::string reason;
  std::string incident;
};
Status ParseHostStateRequest(std::string_view body, HostStateRequest* out);

// PUT /api/v1/topology and --topology: a topology.json. Strict: every node needs a host
// name (a plain name, listed once) and each field its documented kind.
Status ParseTopologyBody(std::string_view body, Topology* out);

}  // namespace aegis::controller
