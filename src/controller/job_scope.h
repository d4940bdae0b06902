// Which events belong to a job: a job's picture (its live decisions, its export) holds
// only what its hosts logged while it ran, never the hosts' past (docs/api.md, "Which
// events are a job's"). Each host's window opens at the job's start, or later where a
// person returned the host to service while the job ran (store host history); what the
// host logged before is history, never a cause.
//
// An agent stamps what it ships with `read_at` (its clock, when it read the line) and
// `job` (the job the controller had told it runs on its node). An event is placed by
// when it was read (without `read_at`: when the controller received it), since a line's
// own time may be missing or inherited; near the window's opening, where clocks cannot
// tell, the stamp decides:
//   - tagged with this job: the job's (after a person's return during the job, only when
//     read after the return less the tolerance);
//   - tagged with another job: the job's only when read clearly after the opening
//     (read_at >= opening + tolerance: the agent had not heard of this job yet);
//   - untagged: the job's when read after the opening less the tolerance;
// and, once the job ended, what was read clearly after its end is not its (unless tagged
// with it).
// A line's own time still counts too: the engine calls a line dated clearly before the
// opening history (OutsideJobWindow, with Job::not_before).
// Pure functions, thread-safe.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "bundle/model.h"
#include "wire/event.h"
#include "store/records.h"

namespace aegis::controller {

struct ScopeOptions {
  double clock_tolerance_s = 2;  // how far an agent's clock and the controller's may differ
};

// The events placed by JobScope: a node agent's log lines and CCL records. Metrics, facts,
// switch logs and probes are not one host's job's (they keep the lookback window).
bool PlacedByScope(const wire::DecodedEvent& e);

// Per host of `job` (its hosts only), when a person returned it to service during the job
// (after started_at, before ended_at when it ended): `history` is the store's host history
// from the job's start on.
std::map<std::string, double, std::less<>> ReturnsDuring(const Job& job, const std::vector<store::HistoryEntry>& history);

// Where a host's window opens: started_at, or its not_before when later.
double WindowOpening(const Job& job, const std::string& host);

// True when event `e` of host e.node (received at `received_at`) belongs to `job`.
// `end_known_at`: when the controller learned that the job ended (NaN: it has not). An
// event the agent did not stamp is placed by when it arrived, and one that arrived before
// the end was known came while the job ran, however early the end it was then told.
bool InJobScope(const wire::DecodedEvent& e, double received_at, const Job& job, const ScopeOptions& options = {},
                double end_known_at = NAN);

}  // namespace aegis::controller
