// The SQL layer under the store. The store's logic (sql_store.h) is written once over
// these interfaces, so that both backends keep the same semantics; a backend (SQLite,
// PostgreSQL) supplies connections, a way to lease one, and its dialect: the schema and
// the few statements that differ between the two engines.
// Statements use numbered parameters $1, $2, ... (both engines accept them).
// A SqlConnection is used by one thread at a time, which a ConnectionLease guarantees.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace aegis::store {

class LeaderLock;

// One statement parameter. Text is viewed, not owned: it must outlive the Exec call.
class SqlParam {
 public:
  enum class Kind { kNull, kInt, kReal, kText };
  static SqlParam Null() { return SqlParam(); }
  static SqlParam Int(int64_t v);
  static SqlParam Real(double v);  // NaN binds NULL
  static SqlParam Text(std::string_view v);
  static SqlParam TextOrNull(std::string_view v);  // empty binds NULL

  Kind kind() const { return kind_; }
  int64_t int_value() const { return int_; }
  double real_value() const { return real_; }
  std::string_view text_value() const { return text_; }

 private:
  Kind kind_ = Kind::kNull;
  int64_t int_ = 0;
  double real_ = 0;
  std::string_view text_;
};

// What a statement returned: rows of typed cells. A backend that reads text (PostgreSQL)
// stores text cells; the accessors convert.
class SqlRows {
 public:
  void Reset(size_t columns) {
    columns_ = columns;
    cells_.clear();
  }
  void AddNull() { cells_.emplace_back(); }
  void AddInt(int64_t v) { cells_.emplace_back().SetInt(v); }
  void AddReal(double v) { cells_.emplace_back().SetReal(v); }
  void AddText(std::string v) { cells_.emplace_back().SetText(std::move(v)); }
  size_t size() const { return columns_ == 0 ? 0 : cells_.size() / columns_; }
  bool empty() const { return size() == 0; }

  bool IsNull(size_t row, size_t col) const { return At(row, col).kind == Kind::kNull; }
  std::string Text(size_t row, size_t col) const;  // "" for NULL
  double Real(size_t row, size_t col) const;       // NaN for NULL
  int64_t Int(size_t row, size_t col) const;       // 0 for NULL

 private:
  enum class Kind : uint8_t { kNull, kInt, kReal, kText };
  struct Cell {
    Kind kind = Kind::kNull;
    int64_t i = 0;
    double d = 0;
    std::string s;
    void SetInt(int64_t v) { kind = Kind::kInt, i = v; }
    void SetReal(double v) { kind = Kind::kReal, d = v; }
    void SetText(std::string v) { kind = Kind::kText, s = std::move(v); }
  };
  const Cell& At(size_t row, size_t col) const { return cells_[row * columns_ + col]; }
  size_t columns_ = 0;
  std::vector<Cell> cells_;
};

class SqlConnection {
 public:
  virtual ~SqlConnection() = default;
  // Runs one statement. `rows` (optional) receives what it returned, `changed` (optional)
  // how many rows it inserted, updated or deleted.
  virtual Status Exec(std::string_view sql, std::span<const SqlParam> params, SqlRows* rows = nullptr,
                      int64_t* changed = nullptr) = 0;
  Status Exec(std::string_view sql, std::initializer_list<SqlParam> params, SqlRows* rows = nullptr,
              int64_t* changed = nullptr) {
    return Exec(sql, std::span<const SqlParam>(params.begin(), params.size()), rows, changed);
  }
  // Whether the last failed Exec failed for a passing reason (another transaction's lock,
  // a deadlock, a dropped connection), so that running the transaction again may succeed.
  virtual bool LastFailureTransient() const = 0;
};

// A connection that is this thread's until the lease is destroyed.
class ConnectionLease {
 public:
  virtual ~ConnectionLease() = default;
  virtual SqlConnection& conn() = 0;
};

struct SqlDialect {
  std::string_view name;               // "sqlite", "postgresql"
  std::string_view begin_write;        // starts a transaction that will write
  std::string_view begin_read;         // starts a transaction that only reads
  // Run first in a transaction that appends events, so that seq values become visible in
  // their order (empty where the engine runs one writer at a time anyway).
  std::string_view serialize_appends;
  // Run first in the transaction that creates or migrates the schema (empty: as above).
  std::string_view serialize_migrations;
  std::string_view lock_row;           // appended to a SELECT to lock its rows (" FOR UPDATE")
  // migrations[i]: the statements that bring the schema from version i to i + 1.
  const std::vector<std::vector<std::string>>* migrations = nullptr;
};

class SqlBackend {
 public:
  virtual ~SqlBackend() = default;
  virtual const SqlDialect& dialect() const = 0;
  // Waits for a free connection (opening one if allowed); Unavailable if none can be opened.
  virtual Status Lease(std::unique_ptr<ConnectionLease>* out) = 0;
  virtual Status NewLeaderLock(std::unique_ptr<LeaderLock>* out) = 0;
};

}  // namespace aegis::store
