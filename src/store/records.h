// The records of the controller's durable store (store.h): what the node agents reported
// (events), the jobs the controller follows, the incidents opened for them and how each
// was decided, the actions taken, and the state of every host with its history. Plain
// values, no behaviour beyond naming; times are seconds since the Unix epoch (UTC) as
// double, NaN where a time is unknown or not reached yet (an undecided incident).
#pragma once
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/vocabulary.h"
#include "wire/event_type.h"

namespace aegis::store {

// A job's state is the engine's (common/vocabulary.h): spelt in one place.
using ::aegis::JobState;
using ::aegis::ParseJobState;
using ::aegis::ToString;

// Where a host stands. A host the store has no row for is in service. `held` is a
// person's hold: decisions do not move a held host (Store::RecordDecision).
enum class HostState { kInService, kIsolated, kRepair, kOffline, kHeld };
// Why an incident was opened. kCriticalError: a critical error on a host of a job that
// still runs (decided at once; the job's end opens its own incident).
enum class Trigger { kJobFailed, kJobHung, kCclStall, kSlow, kManual, kCriticalError };
// Who changed a host's state: the controller deciding an incident, or a person.
enum class ChangedBy { kDecision, kPerson };
// What an action does to a host (the status JSON calls it "do").
enum class ActionOp { kDrain, kResume, kAnnotate };
// Where it is carried out: kNone, only recorded (no --action backend).
enum class ActionBackend { kNone, kSlurm, kKubernetes, kExec };
// How it stands: kRecorded, never to be carried out (dry run, no backend); kPending, to be
// carried out; kOk / kFailed, what the backend answered.
enum class ActionResult { kPending, kRecorded, kOk, kFailed };

// The names used in the database and in JSON: "in_service", "isolated", "repair",
// "offline", "held"; "running", "failed", "hung", "slow", "done"; "job_failed",
// "job_hung", "ccl_stall", "slow", "manual", "critical_error"; "decision", "person";
// "drain", "resume", "annotate"; "none", "slurm", "kubernetes", "exec"; "pending",
// "recorded", "ok", "failed".
std::string_view ToString(HostState s);
std::string_view ToString(Trigger t);
std::string_view ToString(ChangedBy b);
std::string_view ToString(ActionOp o);
std::string_view ToString(ActionBackend b);
std::string_view ToString(ActionResult r);
std::optional<HostState> ParseHostState(std::string_view s);
std::optional<Trigger> ParseTrigger(std::string_view s);
std::optional<ChangedBy> ParseChangedBy(std::string_view s);
std::optional<ActionOp> ParseActionOp(std::string_view s);
std::optional<ActionBackend> ParseActionBackend(std::string_view s);
std::optional<ActionResult> ParseActionResult(std::string_view s);

// One thing an agent reported. `id` is the agent's own, unique across the cluster: a batch
// sent again after a lost answer inserts nothing new.
struct Event {
  std::string id;
  std::string node;
  wire::EventType type = wire::EventType::kLog;  // stored by its name (wire/event_type.h)
  double at = NAN;           // when it happened; NaN when the agent could not tell
  double received_at = NAN;  // when the controller got it; NaN: the store's clock at append
  std::string body;          // one JSON text
  int64_t seq = 0;           // assigned by the store: increasing in commit order; ignored on append
};

// An event of a batch that was not stored, and why (InvalidArgument, ResourceExhausted).
struct RejectedEvent {
  size_t index = 0;  // position in the batch
  Status why;
};

struct AppendResult {
  size_t added = 0;       // new events stored
  size_t duplicates = 0;  // ids already stored (or repeated in the batch)
  std::vector<RejectedEvent> rejected;
};

// Events of some hosts in a time window, for building an incident, ordered by (time, seq).
// An event's time here is RangeTime(): `at`, or `received_at` when `at` is unknown.
struct EventRange {
  std::vector<std::string> hosts;  // empty: every host
  double from = -INFINITY;         // inclusive
  double to = INFINITY;            // inclusive
  std::vector<wire::EventType> types;  // empty: every type
  size_t limit = 100000;           // at most this many, earliest first
  // Paging: only events after this one in (time, seq) order; set both from the last event
  // of the previous page (RangeTime(e), e.seq). after_seq 0: no cursor.
  double after_time = NAN;
  int64_t after_seq = 0;
};

inline double RangeTime(const Event& e) { return std::isnan(e.at) ? e.received_at : e.at; }

struct JobRecord {
  std::string id;
  JobState state = JobState::kRunning;
  std::string body;  // the job.json text
  double started_at = NAN;
  double ended_at = NAN;
  double updated_at = NAN;  // required: an update older than the stored one is not applied
};

// An action the controller takes (or, in dry-run, only records) on a host.
struct ActionRecord {
  std::string key;       // idempotency key, e.g. "inc-42/drain/node-7": recorded once
  std::string incident;  // empty for an action outside any incident
  std::string host;
  ActionOp op = ActionOp::kDrain;
  ActionBackend backend = ActionBackend::kNone;
  bool dry_run = false;
  double at = NAN;               // when it was recorded; NaN: the decision's time, or now
  ActionResult result = ActionResult::kPending;
  std::string detail;              // what the backend said
  double updated_at = NAN;         // when `result` last changed (reads only)
};

struct IncidentRecord {
  std::string id;  // "inc-42" when the store assigns it
  std::string job;
  Trigger trigger = Trigger::kJobFailed;
  double opened_at = NAN;
  double decided_at = NAN;  // NaN until decided
  std::string verdict;      // the verdict JSON text; empty until decided
  std::string decided_by;   // the deciding controller's name; empty until decided
  std::vector<ActionRecord> actions;  // filled by reads, ordered by time then key
  bool decided() const { return !std::isnan(decided_at); }
};

// Opening an incident is idempotent per (job, trigger): the first opening creates it, later
// ones (a restarted controller, a second controller) return it.
struct IncidentOpening {
  std::string job;
  Trigger trigger = Trigger::kJobFailed;
  double opened_at = NAN;
  std::string id;  // empty: the store assigns "inc-N"
};

struct IncidentFilter {
  bool undecided_only = false;
  std::string job;  // empty: every job
  size_t limit = 1000;  // the newest ones first
};

struct HostRecord {
  std::string host;
  HostState state = HostState::kInService;
  double since = NAN;
  std::string incident;  // the incident behind the current state, if any
  std::string reason;
};

// One host's new state within a decision.
struct HostChange {
  std::string host;
  HostState to = HostState::kIsolated;
  std::string reason;
};

// A person's change of one host's state.
struct ManualHostChange {
  std::string host;
  HostState to = HostState::kInService;
  std::string reason;
  std::string actor;     // who (required)
  double at = NAN;       // NaN: now
  std::string incident;  // optional: the incident it answers
};

struct HistoryEntry {
  std::string host;
  double at = NAN;
  HostState from = HostState::kInService;
  HostState to = HostState::kInService;
  std::string incident;
  std::string reason;
  ChangedBy by = ChangedBy::kDecision;
  std::string actor;  // the person, or the deciding controller's name
};

// Everything one decision writes, in one transaction.
struct Decision {
  std::string incident;
  std::string verdict;  // the verdict JSON text
  double decided_at = NAN;
  std::string decided_by;  // the controller's name (e.g. "host:pid"); required
  std::vector<HostChange> hosts;  // at most one change per host
  std::vector<ActionRecord> actions;  // their `incident` is set to this one
};

// What RecordDecision found: applied, or the decision that was already there.
struct DecisionOutcome {
  bool applied = false;
  double decided_at = NAN;
  std::string decided_by;
  // Hosts the decision left alone because a person holds them (state held): neither their
  // state changed nor their actions were recorded.
  std::vector<std::string> held_hosts;
};

}  // namespace aegis::store
