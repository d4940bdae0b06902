#include "store/sqlite_backend.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <charconv>
#include <filesystem>
#include <mutex>
#include <unordered_map>

#include "store/schema.h"
#include "store/sqlite_leader_lock.h"

namespace aegis::store {

namespace {

// Prepared statements kept per connection; past this many (texts built for varying list
// lengths) the cache starts over.
constexpr size_t kMaxCachedStatements = 256;

class SqliteConnection final : public SqlConnection {
 public:
  ~SqliteConnection() override {
    ClearCache();
    sqlite3_close_v2(db_);
  }

  static Status Open(const std::string& path, const StoreOptions& options, std::unique_ptr<SqliteConnection>* out) {
    std::unique_ptr<SqliteConnection> c(new SqliteConnection());
    // The database holds what the nodes logged (a tenant's paths, user names, addresses):
    // a new file is its owner's only (SQLite would make it 0644 under the usual umask), and
    // SQLite gives the -wal and -shm files the database file's mode. An existing file keeps
    // the mode its operator gave it.
    if (options.sqlite_vfs.empty()) {
      const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (fd >= 0) ::close(fd);
    }
    const int rc = sqlite3_open_v2(path.c_str(), &c->db_,
                                   SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                                   options.sqlite_vfs.empty() ? nullptr : options.sqlite_vfs.c_str());
    if (rc != SQLITE_OK) {
      if (c->db_ == nullptr) return Status::ResourceExhausted("sqlite: no memory to open " + path);
      return c->Failure(rc, "open " + path);
    }
    sqlite3_extended_result_codes(c->db_, 1);
    sqlite3_busy_timeout(c->db_, options.sqlite_busy_timeout_ms);
    SqlRows rows;
    Status st = c->SetWriteAheadLogging(options.sqlite_busy_timeout_ms, &rows);
    if (!st.ok()) return st;
    if (rows.empty() || rows.Text(0, 0) != "wal")
      return Status::IOError("sqlite: " + path + " cannot use write-ahead logging (journal mode " +
                             (rows.empty() ? std::string("unknown") : rows.Text(0, 0)) + ")");
    st = c->Exec(options.sqlite_sync_full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL", {});
    if (st.ok()) st = c->Exec("PRAGMA foreign_keys = ON", {});
    if (!st.ok()) return st;
    *out = std::move(c);
    return Status::Ok();
  }

  Status Exec(std::string_view sql, std::span<const SqlParam> params, SqlRows* rows, int64_t* changed) override {
    transient_ = false;
    if (transaction_lost_) {
      // SQLite ended the transaction itself after an I/O error or a full disk (it rolls the
      // whole transaction back on SQLITE_FULL, SQLITE_IOERR and SQLITE_NOMEM, even in the
      // middle of one): a statement run now would commit on its own, outside the
      // transaction its caller believes in. Refused until the caller ends it.
      if (sql == "ROLLBACK") {
        transaction_lost_ = false;
        return Status::Ok();
      }
      if (sql.substr(0, 5) != "BEGIN")
        return Status::IOError("sqlite: the transaction was rolled back after an error; not run: " + std::string(sql));
      transaction_lost_ = false;
    }
    Prepared* p = nullptr;
    if (Status st = Prepare(sql, &p); !st.ok()) return st;
    sqlite3_stmt* s = p->stmt;
    for (size_t slot = 0; slot < p->param_index.size(); ++slot) {
      const size_t i = p->param_index[slot];
      if (i >= params.size()) {
        sqlite3_clear_bindings(s);
        return Status::InvalidArgument("sqlite: statement needs parameter $" + std::to_string(i + 1) + ": " +
                                       std::string(sql));
      }
      const SqlParam& v = params[i];
      const int n = static_cast<int>(slot + 1);
      int rc = SQLITE_OK;
      switch (v.kind()) {
        case SqlParam::Kind::kNull: rc = sqlite3_bind_null(s, n); break;
        case SqlParam::Kind::kInt: rc = sqlite3_bind_int64(s, n, v.int_value()); break;
        case SqlParam::Kind::kReal: rc = sqlite3_bind_double(s, n, v.real_value()); break;
        case SqlParam::Kind::kText:
          rc = sqlite3_bind_text64(s, n, v.text_value().data(), v.text_value().size(), SQLITE_STATIC, SQLITE_UTF8);
          break;
      }
      if (rc != SQLITE_OK) {
        Status st = Failure(rc, "bind");
        sqlite3_clear_bindings(s);
        return st;
      }
    }
    const int columns = sqlite3_column_count(s);
    if (rows) rows->Reset(static_cast<size_t>(columns));
    const bool in_transaction = sqlite3_get_autocommit(db_) == 0;
    for (;;) {
      const int rc = sqlite3_step(s);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) {
        Status st = Failure(rc, "statement");
        if (in_transaction && sqlite3_get_autocommit(db_) != 0) transaction_lost_ = true;
        sqlite3_reset(s);
        sqlite3_clear_bindings(s);
        return st;
      }
      if (!rows) continue;
      for (int col = 0; col < columns; ++col) {
        switch (sqlite3_column_type(s, col)) {
          case SQLITE_NULL: rows->AddNull(); break;
          case SQLITE_INTEGER: rows->AddInt(sqlite3_column_int64(s, col)); break;
          case SQLITE_FLOAT: rows->AddReal(sqlite3_column_double(s, col)); break;
          default: {
            const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(s, col));
            const int bytes = sqlite3_column_bytes(s, col);
            rows->AddText(std::string(text ? text : "", text ? static_cast<size_t>(bytes) : 0));
          }
        }
      }
    }
    if (changed) *changed = sqlite3_changes64(db_);
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return Status::Ok();
  }

  using SqlConnection::Exec;
  bool LastFailureTransient() const override { return transient_; }

 private:
  struct Prepared {
    sqlite3_stmt* stmt = nullptr;
    std::vector<size_t> param_index;  // for each slot of the statement: which parameter ($N - 1)
  };

  SqliteConnection() = default;

  // Switching a new file to write-ahead logging takes the file's exclusive lock, and SQLite
  // answers SQLITE_BUSY at once, without the busy handler, when another connection is
  // switching or reading it at that moment (two processes that create one store together).
  // So the switch is tried again, 10 ms apart, for as long as the busy timeout allows.
  Status SetWriteAheadLogging(int busy_timeout_ms, SqlRows* rows) {
    constexpr int kRetryMs = 10;
    for (int waited_ms = 0;; waited_ms += kRetryMs) {
      Status st = Exec("PRAGMA journal_mode = WAL", {}, rows);
      if (st.ok() || !transient_ || waited_ms >= busy_timeout_ms) return st;
      sqlite3_sleep(kRetryMs);
    }
  }

  void ClearCache() {
    for (auto& [sql, p] : cache_) sqlite3_finalize(p.stmt);
    cache_.clear();
  }

  Status Prepare(std::string_view sql, Prepared** out) {
    const std::string key(sql);
    if (auto it = cache_.find(key); it != cache_.end()) {
      *out = &it->second;
      return Status::Ok();
    }
    if (cache_.size() >= kMaxCachedStatements) ClearCache();
    Prepared p;
    const char* tail = nullptr;
    const int rc = sqlite3_prepare_v3(db_, key.data(), static_cast<int>(key.size()), SQLITE_PREPARE_PERSISTENT,
                                      &p.stmt, &tail);
    if (rc != SQLITE_OK) return Failure(rc, "prepare");
    if (p.stmt == nullptr) return Status::InvalidArgument("sqlite: empty statement");
    if (tail != nullptr && tail != key.data() + key.size()) {  // more than one statement
      sqlite3_finalize(p.stmt);
      return Status::InvalidArgument("sqlite: one statement at a time: " + key);
    }
    const int count = sqlite3_bind_parameter_count(p.stmt);
    for (int slot = 1; slot <= count; ++slot) {
      const char* name = sqlite3_bind_parameter_name(p.stmt, slot);
      size_t n = static_cast<size_t>(slot);
      if (name != nullptr && name[0] == '$') {
        const std::string_view digits(name + 1);
        if (std::from_chars(digits.data(), digits.data() + digits.size(), n).ec != std::errc() || n == 0) {
          sqlite3_finalize(p.stmt);
          return Status::InvalidArgument("sqlite: parameter " + std::string(name) + " is not $N");
        }
      }
      p.param_index.push_back(n - 1);
    }
    *out = &cache_.emplace(key, std::move(p)).first->second;
    return Status::Ok();
  }

  Status Failure(int rc, const std::string& context) {
    const int primary = rc & 0xff;
    std::string msg = "sqlite: " + context + ": " + (db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc));
    transient_ = primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
    switch (primary) {
      case SQLITE_BUSY:
      case SQLITE_LOCKED: return Status::Unavailable(std::move(msg));
      case SQLITE_CONSTRAINT:
        if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY)
          return Status::AlreadyExists(std::move(msg));
        return Status::InvalidArgument(std::move(msg));
      case SQLITE_CORRUPT:
      case SQLITE_NOTADB: return Status::Corruption(std::move(msg));
      case SQLITE_FULL:
      case SQLITE_NOMEM:
      case SQLITE_TOOBIG: return Status::ResourceExhausted(std::move(msg));
      case SQLITE_READONLY:
      case SQLITE_PERM:
      case SQLITE_AUTH: return Status::PermissionDenied(std::move(msg));
      case SQLITE_ERROR:
      case SQLITE_RANGE:
      case SQLITE_MISMATCH: return Status::InvalidArgument(std::move(msg));
      default: return Status::IOError(std::move(msg));
    }
  }

  sqlite3* db_ = nullptr;
  std::unordered_map<std::string, Prepared> cache_;
  bool transient_ = false;
  bool transaction_lost_ = false;  // SQLite rolled back the open transaction after an error
};

const SqlDialect& Dialect() {
  static const auto* migrations =
      new std::vector<std::vector<std::string>>(SchemaMigrations({"REAL", "INTEGER PRIMARY KEY AUTOINCREMENT", true}));
  static const SqlDialect dialect{
      .name = "sqlite",
      // IMMEDIATE: take the write lock first, so that a transaction never fails half-way
      // because another process wrote after it read.
      .begin_write = "BEGIN IMMEDIATE",
      .begin_read = "BEGIN",
      .serialize_appends = "",
      .serialize_migrations = "",
      .lock_row = "",
      .migrations = migrations,
  };
  return dialect;
}

class SqliteLease final : public ConnectionLease {
 public:
  SqliteLease(std::mutex& mu, SqliteConnection& conn) : lock_(mu), conn_(conn) {}
  SqlConnection& conn() override { return conn_; }

 private:
  std::unique_lock<std::mutex> lock_;
  SqliteConnection& conn_;
};

class SqliteBackend final : public SqlBackend {
 public:
  SqliteBackend(std::string path, std::unique_ptr<SqliteConnection> conn)
      : path_(std::move(path)), conn_(std::move(conn)) {}
  const SqlDialect& dialect() const override { return Dialect(); }
  Status Lease(std::unique_ptr<ConnectionLease>* out) override {
    *out = std::make_unique<SqliteLease>(mu_, *conn_);
    return Status::Ok();
  }
  Status NewLeaderLock(std::unique_ptr<LeaderLock>* out) override {
    *out = NewFileLeaderLock(path_ + "-leader");
    return Status::Ok();
  }

 private:
  const std::string path_;
  std::mutex mu_;
  std::unique_ptr<SqliteConnection> conn_;
};

}  // namespace

Status OpenSqliteBackend(const std::string& path, const StoreOptions& options, std::unique_ptr<SqlBackend>* out) {
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  if (ec) return Status::IOError("sqlite: " + path + ": " + ec.message());
  std::unique_ptr<SqliteConnection> conn;
  Status st = SqliteConnection::Open(absolute.string(), options, &conn);
  if (!st.ok()) return st;
  *out = std::make_unique<SqliteBackend>(absolute.string(), std::move(conn));
  return Status::Ok();
}

}  // namespace aegis::store
