#include "store/pg_backend.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "store/pg_connection.h"
#include "store/pg_leader_lock.h"
#include "store/schema.h"

namespace aegis::store {

namespace {

// How long a call waits for a free connection when all are leased.
constexpr std::chrono::seconds kLeaseWait(30);

// The transaction-scoped advisory locks (kAdvisoryLockClass, id), spelled out.
static_assert(kAdvisoryLockClass == 1095059283 && kAppendLockId == 2 && kMigrationLockId == 3);

const SqlDialect& Dialect() {
  static const auto* migrations = new std::vector<std::vector<std::string>>(
      SchemaMigrations({"DOUBLE PRECISION", "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY", false}));
  static const SqlDialect dialect{
      .name = "postgresql",
      .begin_write = "BEGIN",
      .begin_read = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
      // Identity values are taken in insertion order but two transactions could commit in
      // the other order, and a reader resuming after the larger seq would never see the
      // smaller one: appends take turns instead (the lock is released after the commit
      // is visible).
      .serialize_appends = "SELECT pg_advisory_xact_lock(1095059283, 2)",
      .serialize_migrations = "SELECT pg_advisory_xact_lock(1095059283, 3)",
      .lock_row = " FOR UPDATE",
      .migrations = migrations,
  };
  return dialect;
}

class PgPool;

class PgLease final : public ConnectionLease {
 public:
  PgLease(PgPool* pool, std::unique_ptr<PgConnection> conn) : pool_(pool), conn_(std::move(conn)) {}
  ~PgLease() override;
  SqlConnection& conn() override { return *conn_; }

 private:
  PgPool* pool_;
  std::unique_ptr<PgConnection> conn_;
};

class PgPool {
 public:
  PgPool(PgSettings settings, size_t max) : settings_(std::move(settings)), max_(max < 1 ? 1 : max) {}

  Status Lease(std::unique_ptr<ConnectionLease>* out) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!cv_.wait_for(lock, kLeaseWait, [&] { return !idle_.empty() || open_ < max_; }))
      return Status::Unavailable("postgresql: all " + std::to_string(max_) + " connections busy for " +
                                 std::to_string(kLeaseWait.count()) + " s");
    if (!idle_.empty()) {
      std::unique_ptr<PgConnection> c = std::move(idle_.back());
      idle_.pop_back();
      *out = std::make_unique<PgLease>(this, std::move(c));
      return Status::Ok();
    }
    ++open_;
    lock.unlock();  // connecting takes a round trip or more: others may use idle ones meanwhile
    std::unique_ptr<PgConnection> c;
    Status st = PgConnection::Connect(settings_, &c);
    if (!st.ok()) {
      lock.lock();
      --open_;
      cv_.notify_one();
      return st;
    }
    *out = std::make_unique<PgLease>(this, std::move(c));
    return Status::Ok();
  }

  void Return(std::unique_ptr<PgConnection> c) {
    std::lock_guard<std::mutex> lock(mu_);
    if (c->Unusable())
      --open_;  // dropped: the next lease opens a new one
    else
      idle_.push_back(std::move(c));
    cv_.notify_one();
  }

 private:
  const PgSettings settings_;
  const size_t max_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<PgConnection>> idle_;
  size_t open_ = 0;  // leased and idle
};

PgLease::~PgLease() { pool_->Return(std::move(conn_)); }

class PgBackend final : public SqlBackend {
 public:
  PgBackend(PgSettings settings, size_t pool_size) : settings_(settings), pool_(std::move(settings), pool_size) {}
  const SqlDialect& dialect() const override { return Dialect(); }
  Status Lease(std::unique_ptr<ConnectionLease>* out) override { return pool_.Lease(out); }
  Status NewLeaderLock(std::unique_ptr<LeaderLock>* out) override {
    *out = NewPgLeaderLock(settings_.url);
    return Status::Ok();
  }

 private:
  const PgSettings settings_;
  PgPool pool_;
};

}  // namespace

Status OpenPgBackend(const std::string& url, const StoreOptions& options, std::unique_ptr<SqlBackend>* out) {
  PgSettings settings{url, "aegis", options.pg_statement_timeout_ms};
  auto backend = std::make_unique<PgBackend>(settings, static_cast<size_t>(options.pg_pool_size));
  std::unique_ptr<ConnectionLease> lease;
  if (Status st = backend->Lease(&lease); !st.ok()) return st;
  lease.reset();
  *out = std::move(backend);
  return Status::Ok();
}

}  // namespace aegis::store
