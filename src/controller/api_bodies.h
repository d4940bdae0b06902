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
#include "common/status.h"
#include "wire/event.h"
#include "store/records.h"

namespace aegis::controller {

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
};
Status ParseEventBatch(std::string_view body, EventBatch* out);

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
