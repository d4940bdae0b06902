// The controller's durable store: events from the node agents, jobs, incidents and their
// decisions, actions, host states with their history, the topology; and the leadership
// lock that lets one of several controllers act. Two backends behind this one interface:
// SQLite (one file, WAL; the default) and PostgreSQL (shared by several controllers).
//
// Contract:
// - Every call returns a Status and nothing throws. Codes: InvalidArgument for bad input
//   (nothing written), NotFound, AlreadyExists, Unavailable (the database is not reachable
//   or busy now; retrying may succeed; after a failed commit the outcome is unknown, and
//   every write here is safe to repeat), Corruption, IOError, FailedPrecondition (a schema
//   newer than this build).
// - Each write is one transaction: after a crash of the caller at any moment it happened
//   completely or not at all; once it returned ok it is durable (SQLite: synchronous=FULL
//   by default; PostgreSQL: the server's commit).
// - Writes are idempotent where a caller may repeat them: events by id, incidents by
//   (job, trigger), actions by key, decisions by incident (only the first one applies,
//   even when two controllers race; the loser learns who won).
// - Thread-safe. SQLite: one connection behind a mutex (calls run one at a time; several
//   processes may open one file, each transaction waits up to busy_timeout_ms for the
//   others). PostgreSQL: a pool of up to pg_pool_size connections, one per call in flight.
// - Text fields must be UTF-8 without NUL bytes; bodies, verdicts and the topology must be
//   JSON texts. The schema is created, or migrated, when the store is opened.
#pragma once
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "env/env.h"
#include "store/records.h"

namespace aegis::store {

// Leadership among the controllers sharing one store: at most one instance holds it at a
// time, and a holder that dies (killed, machine lost) loses it by itself. PostgreSQL: an
// advisory lock on a session of its own, released by the server when that session ends
// (a killed process at once; a lost machine within about 15 s, through TCP keepalives and
// a user timeout on both ends). SQLite: an exclusive flock() on the side file "PATH-leader",
// released by the kernel when the holder's process ends; one leader per database file.
// A leader must act only while IsHeld() says so, and still relies on the store's
// conditional writes (RecordDecision), since it may lose the lock between two checks.
// Thread-safe.
class LeaderLock {
 public:
  virtual ~LeaderLock() = default;  // releases it
  // One attempt, never waits. *acquired: this instance holds it now (also when it already did).
  // A database that cannot be reached is an error (Unavailable), not a refusal.
  virtual Status TryAcquire(bool* acquired) = 0;
  // Whether this instance still holds it, checked now (PostgreSQL: one round trip on the
  // lock's session; a session that is gone means the lock is lost).
  virtual bool IsHeld() = 0;
  virtual void Release() = 0;
};

struct StoreOptions {
  int pg_pool_size = 4;                // PostgreSQL connections at most, opened as needed
  int pg_statement_timeout_ms = 30000; // PostgreSQL: a statement running longer fails (Unavailable)
  int sqlite_busy_timeout_ms = 5000;   // SQLite: how long to wait for another process's transaction
  // SQLite: fsync every commit (durable across power loss). false: synchronous=NORMAL,
  // durable across a crash of the process but not of the machine; several times faster.
  bool sqlite_sync_full = true;
  // SQLite: the name of a registered VFS (sqlite3_vfs_register) to open the file through;
  // empty: SQLite's default. Unknown names fail the open (InvalidArgument).
  std::string sqlite_vfs;
  // The clock of rows written "now" (no time given); not owned, outlives the store; null:
  // Env::Default(). (The pause between a transaction's attempts is on the real clock: it
  // waits for another process's transaction.)
  Env* env = nullptr;
};

class Store {
 public:
  // url: "sqlite:PATH" (also "sqlite://" + absolute path; the file is created if missing)
  // or "postgresql://user@host:port/db?..." (also "postgres://"; libpq's URI syntax and
  // parameters). Anything else: InvalidArgument. Creates or migrates the schema.
  static Status Open(std::string_view url, std::unique_ptr<Store>* out, const StoreOptions& options = {});

  virtual ~Store() = default;
  virtual std::string_view backend() const = 0;  // "sqlite" or "postgresql"
  // One trivial read: Ok when the database answers now (for a health check).
  virtual Status Ping() = 0;

  // --- events ---
  // Stores the new events of a batch in ONE transaction (which may hold other callers' batches
  // too: the SQL store commits concurrent appends together). Events already stored (same id)
  // are counted as duplicates; invalid ones are listed in `rejected` and skipped, the rest
  // stored (a bad event never costs the batch). Status is not ok only when nothing was
  // written because the database failed.
  virtual Status AppendEvents(std::span<const Event> batch, AppendResult* result) = 0;
  // Events with seq > after_seq, by seq, at most `limit`: resume reading after a restart.
  // An event never becomes visible behind one already read (seq follows commit order).
  virtual Status EventsAfter(int64_t after_seq, size_t limit, std::vector<Event>* out) = 0;
  // Events in a range (records.h), ordered by time then seq; out->size() == range.limit
  // means there may be more.
  virtual Status EventsInRange(const EventRange& range, std::vector<Event>* out) = 0;
  // Both read only the event types this build knows (wire::kEventTypes): rows of another
  // type (a newer release's, in a shared database) are passed over, not an error.
  // Deletes events of these types (empty: every type) received before `received_before`:
  // retention. Sequence numbers are never reused, so a tail's cursor stays valid.
  virtual Status PruneEvents(double received_before, std::span<const wire::EventType> types, size_t* deleted) = 0;

  // --- jobs ---
  // Inserts or replaces a job; *applied is false when the stored one is newer (updated_at).
  virtual Status PutJob(const JobRecord& job, bool* applied) = 0;
  virtual Status GetJob(std::string_view id, JobRecord* out) = 0;  // NotFound
  // Every job, or those in one state, ordered by id.
  virtual Status ListJobs(std::optional<JobState> state, std::vector<JobRecord>* out) = 0;

  // --- incidents and decisions ---
  // Opens the incident of (job, trigger), or returns the one already open (*created false).
  // A caller-assigned id already used by another (job, trigger): AlreadyExists.
  virtual Status OpenIncident(const IncidentOpening& opening, IncidentRecord* out, bool* created) = 0;
  virtual Status GetIncident(std::string_view id, IncidentRecord* out) = 0;  // with its actions; NotFound
  virtual Status ListIncidents(const IncidentFilter& filter, std::vector<IncidentRecord>* out) = 0;
  // Decides an incident in ONE transaction: sets its verdict only if it was not decided
  // yet, and then applies the host changes (each with a history row, by kDecision, actor
  // decided_by) and records the actions (a key already recorded is kept as it was). A host
  // a person holds (state held) is left alone, its actions not recorded, and it is listed
  // in outcome->held_hosts. When the incident was already decided nothing is written:
  // outcome->applied is false and it names the standing decision. NotFound for an unknown
  // incident.
  virtual Status RecordDecision(const Decision& decision, DecisionOutcome* outcome) = 0;

  // --- actions ---
  // Records one action; *inserted is false when its key was already recorded (kept as it was).
  virtual Status RecordAction(const ActionRecord& action, bool* inserted) = 0;
  // Sets an action's result and detail (at: when; NaN: now). NotFound for an unknown key.
  virtual Status UpdateActionResult(std::string_view key, ActionResult result, std::string_view detail,
                                    double at) = 0;
  virtual Status GetAction(std::string_view key, ActionRecord* out) = 0;  // NotFound
  // Actions whose result is `result` (e.g. "pending": to carry out after a restart), oldest first.
  virtual Status ActionsWithResult(ActionResult result, size_t limit, std::vector<ActionRecord>* out) = 0;

  // --- hosts ---
  // Makes the store know these hosts (in service since `at`); known ones are left alone.
  virtual Status RegisterHosts(std::span<const std::string> hosts, double at, size_t* added) = 0;
  // A person's change; writes a history row when the state changes (*changed), and none
  // when the host is already in that state.
  virtual Status SetHostState(const ManualHostChange& change, bool* changed) = 0;
  virtual Status GetHost(std::string_view host, HostRecord* out) = 0;  // NotFound: never recorded
  virtual Status ListHosts(std::vector<HostRecord>* out) = 0;          // ordered by host
  // The newest `limit` changes of a host, oldest first.
  virtual Status HostHistory(std::string_view host, size_t limit, std::vector<HistoryEntry>* out) = 0;
  // Changes of every host made at or after `from`, oldest first, at most `limit` (the
  // oldest ones): what decisions took out lately, which hosts a person returned.
  virtual Status HistorySince(double from, size_t limit, std::vector<HistoryEntry>* out) = 0;

  // --- topology (one document) ---
  virtual Status PutTopology(std::string_view json, double at) = 0;
  virtual Status GetTopology(std::string* json, double* updated_at) = 0;  // NotFound

  // --- leadership ---
  // A new lock object on this store's database (see LeaderLock); not yet acquired.
  virtual Status NewLeaderLock(std::unique_ptr<LeaderLock>* out) = 0;
};

}  // namespace aegis::store
