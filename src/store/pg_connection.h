// One libpq connection to PostgreSQL as a SqlConnection: parameters sent as text,
// statements with parameters prepared once per connection, results read as text cells.
// Connecting sets what lets both ends notice a dead peer within seconds: TCP keepalives
// (idle 5 s, every 2 s, 3 probes) and a TCP user timeout of 10 s, on the client through
// libpq and on the server through the session's settings; plus a connect timeout and a
// statement timeout. Parameters given in the URL override the client-side ones.
// Errors are mapped by SQLSTATE, never by message text. One thread at a time.
#pragma once
#include <libpq-fe.h>

#include <memory>
#include <string>
#include <unordered_map>

#include "store/sql_connection.h"

namespace aegis::store {

// Advisory locks taken by the store, as (class, id) pairs: a class of its own ("AEGS") so
// that other applications' locks in the same database do not collide with them.
inline constexpr int kAdvisoryLockClass = 0x41454753;
inline constexpr int kLeaderLockId = 1;     // held by the leading controller's session
inline constexpr int kAppendLockId = 2;     // per transaction: event appends commit in seq order
inline constexpr int kMigrationLockId = 3;  // per transaction: one schema migration at a time

struct PgSettings {
  std::string url;               // "postgresql://..."
  std::string application_name;  // shown in pg_stat_activity
  int statement_timeout_ms = 30000;
};

class PgConnection final : public SqlConnection {
 public:
  ~PgConnection() override;
  // Unavailable when the server cannot be reached; PermissionDenied when it wants a password.
  static Status Connect(const PgSettings& settings, std::unique_ptr<PgConnection>* out);

  Status Exec(std::string_view sql, std::span<const SqlParam> params, SqlRows* rows = nullptr,
              int64_t* changed = nullptr) override;
  using SqlConnection::Exec;
  bool LastFailureTransient() const override { return transient_; }
  // The connection is lost, or left inside a transaction: not to be used again.
  bool Unusable() const;

 private:
  explicit PgConnection(PGconn* conn) : conn_(conn) {}
  Status Prepare(std::string_view sql, const std::string** name);
  Status Failure(const PGresult* res, std::string_view context);

  PGconn* conn_;
  std::unordered_map<std::string, std::string> prepared_;  // statement text -> name
  int next_name_ = 0;
  bool transient_ = false;
};

}  // namespace aegis::store
