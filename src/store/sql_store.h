// The Store (store.h) written once over the SQL layer (sql_connection.h): every method is
// one transaction on a leased connection, run again when it failed for a passing reason
// (a lock held by another process, a deadlock, a connection dropped before the commit),
// at most kMaxAttempts times. Host rows are locked in host-name order, after the incident
// row, so that concurrent decisions cannot deadlock. Thread-safe as its backend is.
// Appends are committed in groups: a batch that arrives while another commits waits, and
// the first waiting batch then commits every batch queued behind it in one transaction (as
// leveldb groups its writes), so that concurrent agents share one fsync instead of queueing
// for one each.
#pragma once
#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "store/sql_connection.h"
#include "store/store.h"

namespace aegis::store {

class SqlStore final : public Store {
 public:
  // Creates or migrates the schema; FailedPrecondition for a schema newer than this build.
  // `env` (not owned, outlives the store): StoreOptions::env.
  static Status Create(std::unique_ptr<SqlBackend> backend, Env* env, std::unique_ptr<Store>* out);

  std::string_view backend() const override { return backend_->dialect().name; }
  Status Ping() override;

  Status AppendEvents(std::span<const Event> batch, AppendResult* result) override;
  Status EventsAfter(int64_t after_seq, size_t limit, std::vector<Event>* out) override;
  Status EventsInRange(const EventRange& range, std::vector<Event>* out) override;
  Status PruneEvents(double received_before, std::span<const wire::EventType> types, size_t* deleted) override;

  Status PutJob(const JobRecord& job, bool* applied) override;
  Status GetJob(std::string_view id, JobRecord* out) override;
  Status ListJobs(std::optional<JobState> state, std::vector<JobRecord>* out) override;

  Status OpenIncident(const IncidentOpening& opening, IncidentRecord* out, bool* created) override;
  Status GetIncident(std::string_view id, IncidentRecord* out) override;
  Status ListIncidents(const IncidentFilter& filter, std::vector<IncidentRecord>* out) override;
  Status RecordDecision(const Decision& decision, DecisionOutcome* outcome) override;

  Status RecordAction(const ActionRecord& action, bool* inserted) override;
  Status UpdateActionResult(std::string_view key, ActionResult result, std::string_view detail,
                            double at) override;
  Status GetAction(std::string_view key, ActionRecord* out) override;
  Status ActionsWithResult(ActionResult result, size_t limit, std::vector<ActionRecord>* out) override;

  Status RegisterHosts(std::span<const std::string> hosts, double at, size_t* added) override;
  Status SetHostState(const ManualHostChange& change, bool* changed) override;
  Status GetHost(std::string_view host, HostRecord* out) override;
  Status ListHosts(std::vector<HostRecord>* out) override;
  Status HostHistory(std::string_view host, size_t limit, std::vector<HistoryEntry>* out) override;
  Status HistorySince(double from, size_t limit, std::vector<HistoryEntry>* out) override;

  Status PutTopology(std::string_view json, double at) override;
  Status GetTopology(std::string* json, double* updated_at) override;

  Status NewLeaderLock(std::unique_ptr<LeaderLock>* out) override { return backend_->NewLeaderLock(out); }

  static constexpr int kMaxAttempts = 4;
  // The most events one group commit takes (a batch bigger than this commits alone).
  static constexpr size_t kMaxGroupEvents = 5000;

 private:
  struct PendingAppend;
  SqlStore(std::unique_ptr<SqlBackend> backend, Env* env) : backend_(std::move(backend)), env_(env) {}
  Status Migrate();
  // Commits the valid events of every batch of `group` in one transaction.
  Status CommitAppends(std::span<PendingAppend* const> group);

  // Runs body(SqlConnection&) -> Status inside one transaction, as the file comment says.
  // The body must set its outputs only from what it read in this attempt.
  template <typename Body>
  Status Transact(bool write, Body&& body);

  std::unique_ptr<SqlBackend> backend_;
  Env* const env_;
  std::mutex append_mu_;                      // guards append_queue_
  std::deque<PendingAppend*> append_queue_;  // batches waiting to commit; the front one commits
};

template <typename Body>
Status SqlStore::Transact(bool write, Body&& body) {
  const SqlDialect& d = backend_->dialect();
  for (int attempt = 1;; ++attempt) {
    std::unique_ptr<ConnectionLease> lease;
    Status st = backend_->Lease(&lease);
    if (!st.ok()) return st;
    SqlConnection& c = lease->conn();
    bool committing = false;
    st = c.Exec(write ? d.begin_write : d.begin_read, {});
    if (st.ok()) st = body(c);
    if (st.ok()) {
      committing = true;
      st = c.Exec("COMMIT", {});
      if (st.ok()) return st;
    }
    const bool transient = c.LastFailureTransient();
    (void)c.Exec("ROLLBACK", {});  // fails harmlessly when no transaction is open
    // A failed COMMIT may have committed (SQLite: a failed fsync leaves the commit frame in
    // the WAL, which recovery keeps): it is not tried again; the caller gets its error as it
    // came (IOError, ResourceExhausted for a full disk, Unavailable for a lock) and the
    // store's writes are safe to repeat.
    if (committing || !transient || attempt == kMaxAttempts) return st;
    // Real time, whatever the Env: the pause lets another process's transaction end.
    std::this_thread::sleep_for(std::chrono::milliseconds(20 * attempt));
  }
}

}  // namespace aegis::store
