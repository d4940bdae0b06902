#include "store/pg_leader_lock.h"

#include <mutex>

#include "store/pg_connection.h"

namespace aegis::store {

namespace {

// The lock's (class, id), spelled in the statements below.
static_assert(kAdvisoryLockClass == 1095059283 && kLeaderLockId == 1);
constexpr std::string_view kTryLock = "SELECT pg_try_advisory_lock(1095059283, 1)";
constexpr std::string_view kUnlock = "SELECT pg_advisory_unlock(1095059283, 1)";
// The two-key form of an advisory lock shows as objsubid 2 in pg_locks.
constexpr std::string_view kHolding =
    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() "
    "AND classid = 1095059283 AND objid = 1 AND objsubid = 2 AND granted";

class PgLeaderLock final : public LeaderLock {
 public:
  explicit PgLeaderLock(std::string url) : settings_{std::move(url), "aegis-leader", 5000} {}
  ~PgLeaderLock() override { Release(); }

  Status TryAcquire(bool* acquired) override {
    std::lock_guard<std::mutex> lock(mu_);
    *acquired = false;
    if (held_ && CheckLocked()) {
      *acquired = true;
      return Status::Ok();
    }
    held_ = false;
    if (conn_ && conn_->Unusable()) conn_.reset();
    if (!conn_)
      if (Status st = PgConnection::Connect(settings_, &conn_); !st.ok()) return st;
    SqlRows rows;
    Status st = conn_->Exec(kTryLock, {}, &rows);
    if (!st.ok()) {
      conn_.reset();
      return st;
    }
    held_ = !rows.empty() && rows.Text(0, 0) == "t";
    *acquired = held_;
    return Status::Ok();
  }

  bool IsHeld() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!held_) return false;
    if (!CheckLocked()) {
      held_ = false;
      conn_.reset();  // a session that lost the lock is not reused: a new one starts clean
    }
    return held_;
  }

  void Release() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (conn_ && held_) (void)conn_->Exec(kUnlock, {});
    conn_.reset();  // ending the session releases the lock whatever the unlock said
    held_ = false;
  }

 private:
  bool CheckLocked() {
    if (!conn_) return false;
    SqlRows rows;
    return conn_->Exec(kHolding, {}, &rows).ok() && !rows.empty() && rows.Int(0, 0) == 1;
  }

  const PgSettings settings_;
  std::mutex mu_;
  std::unique_ptr<PgConnection> conn_;
  bool held_ = false;
};

}  // namespace

std::unique_ptr<LeaderLock> NewPgLeaderLock(std::string url) { return std::make_unique<PgLeaderLock>(std::move(url)); }

}  // namespace aegis::store
