// The documents the API reads out of the store (docs/api.md): hosts, incidents with their
// verdicts and actions, and the status document of `aegis status --json`:
//   {"hosts": [{"host", "state", "since", "incident", "reason"}],
//    "incidents": [{"id", "job", "opened_at", "decided_at", "verdict", "actions":
//                   [{"host", "do", "backend", "dry_run", "at", "result"}]}]}
// and the agents document (GET /api/v1/agents, beside it in `aegis status`):
//   [{"node", "heard_at", "lag_s", "queue_events", "silent"}]
// each known host's agent by its newest heartbeat stored within the last 10 minutes (by
// any instance): when it was received, the agent's queue lag and length then; silent when
// none came within kSilentAfterS (heard_at null when none in 10 minutes).
// Times are RFC 3339 UTC ("2026-11-30T10:12:05Z"); a time not reached yet, an incident a
// host state does not refer to and a verdict not decided yet are null. Thread-safe.
#pragma once
#include <nlohmann/json.hpp>

#include "common/status.h"
#include "store/store.h"

namespace aegis::controller {

using ordered_json = nlohmann::ordered_json;

ordered_json HostJson(const store::HostRecord& h);
ordered_json ActionJson(const store::ActionRecord& a);
// `detail` adds the trigger, who decided, and each action's key and detail.
ordered_json IncidentJson(const store::IncidentRecord& inc, bool detail);

// An agent whose newest heartbeat is older than this is silent (agents send one every
// 30 s by default: three missed).
constexpr double kSilentAfterS = 90;

Status StatusDocument(store::Store& store, size_t max_incidents, ordered_json* out);
// Hosts known to the store, each with its agent's newest heartbeat. `now`: the
// controller's wall clock (epoch seconds).
Status AgentsDocument(store::Store& store, double now, ordered_json* out);
Status HostsDocument(store::Store& store, ordered_json* out);
// One host with its newest history entries.
Status HostDocument(store::Store& store, const std::string& host, ordered_json* out);
Status IncidentsDocument(store::Store& store, const store::IncidentFilter& filter, ordered_json* out);

}  // namespace aegis::controller
