#include "store/pg_connection.h"

#include <charconv>
#include <string_view>
#include <vector>

namespace aegis::store {

namespace {

constexpr size_t kMaxPreparedStatements = 256;

std::string TrimmedMessage(const char* m) {
  std::string s = m ? m : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

struct ResultGuard {
  PGresult* res;
  ~ResultGuard() { PQclear(res); }
};

std::string NumberText(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace

PgConnection::~PgConnection() { PQfinish(conn_); }

Status PgConnection::Connect(const PgSettings& settings, std::unique_ptr<PgConnection>* out) {
  // Keywords are applied in order and the URL (dbname, expanded) comes last, so that
  // whatever it sets wins over these defaults.
  const char* keys[] = {"connect_timeout", "keepalives", "keepalives_idle", "keepalives_interval",
                        "keepalives_count", "tcp_user_timeout", "client_encoding", "application_name",
                        "dbname", nullptr};
  const char* values[] = {"5", "1", "5", "2", "3", "10000", "UTF8", settings.application_name.c_str(),
                          settings.url.c_str(), nullptr};
  PGconn* conn = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  if (conn == nullptr) return Status::ResourceExhausted("postgresql: no memory for a connection");
  if (PQstatus(conn) != CONNECTION_OK) {
    const std::string msg = "postgresql: cannot connect: " + TrimmedMessage(PQerrorMessage(conn));
    const bool password = PQconnectionNeedsPassword(conn) != 0;
    PQfinish(conn);
    return password ? Status::PermissionDenied(msg) : Status::Unavailable(msg);
  }
  // Notices and warnings (a ROLLBACK with no transaction open, after a failed COMMIT)
  // would go to stderr: errors are what the store reports, as Status.
  PQsetNoticeProcessor(conn, [](void*, const char*) {}, nullptr);
  std::unique_ptr<PgConnection> c(new PgConnection(conn));
  // The server's side of the keepalives: it notices a dead client (a lost leader) and ends
  // its session, releasing its locks.
  // The server need not even send notices ("relation already exists, skipping").
  std::string setup = "SET client_min_messages = warning; SET statement_timeout = " +
                      std::to_string(settings.statement_timeout_ms) +
                      "; SET idle_in_transaction_session_timeout = 60000"
                      "; SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 2; SET tcp_keepalives_count = 3";
  if (PQserverVersion(conn) >= 120000) setup += "; SET tcp_user_timeout = 10000";
  PGresult* res = PQexec(conn, setup.c_str());
  ResultGuard guard{res};
  if (PQresultStatus(res) != PGRES_COMMAND_OK) return c->Failure(res, "session setup");
  *out = std::move(c);
  return Status::Ok();
}

bool PgConnection::Unusable() const {
  return PQstatus(conn_) != CONNECTION_OK || PQtransactionStatus(conn_) != PQTRANS_IDLE;
}

Status PgConnection::Prepare(std::string_view sql, const std::string** name) {
  const std::string key(sql);
  if (auto it = prepared_.find(key); it != prepared_.end()) {
    *name = &it->second;
    return Status::Ok();
  }
  if (prepared_.size() >= kMaxPreparedStatements) {
    PGresult* res = PQexec(conn_, "DEALLOCATE ALL");
    ResultGuard guard{res};
    if (PQresultStatus(res) != PGRES_COMMAND_OK) return Failure(res, "deallocate");
    prepared_.clear();
  }
  std::string statement_name = "aegis_" + std::to_string(next_name_++);
  PGresult* res = PQprepare(conn_, statement_name.c_str(), key.c_str(), 0, nullptr);
  ResultGuard guard{res};
  if (PQresultStatus(res) != PGRES_COMMAND_OK) return Failure(res, "prepare");
  *name = &prepared_.emplace(key, std::move(statement_name)).first->second;
  return Status::Ok();
}

Status PgConnection::Exec(std::string_view sql, std::span<const SqlParam> params, SqlRows* rows, int64_t* changed) {
  transient_ = false;
  PGresult* res = nullptr;
  if (params.empty()) {
    const std::string text(sql);
    res = PQexecParams(conn_, text.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0);
  } else {
    const std::string* name = nullptr;
    if (Status st = Prepare(sql, &name); !st.ok()) return st;
    std::vector<std::string> storage(params.size());
    std::vector<const char*> values(params.size(), nullptr);
    for (size_t i = 0; i < params.size(); ++i) {
      const SqlParam& p = params[i];
      switch (p.kind()) {
        case SqlParam::Kind::kNull: continue;
        case SqlParam::Kind::kInt: storage[i] = std::to_string(p.int_value()); break;
        case SqlParam::Kind::kReal: storage[i] = NumberText(p.real_value()); break;
        case SqlParam::Kind::kText: storage[i] = std::string(p.text_value()); break;
      }
      values[i] = storage[i].c_str();
    }
    res = PQexecPrepared(conn_, name->c_str(), static_cast<int>(params.size()), values.data(), nullptr, nullptr, 0);
  }
  ResultGuard guard{res};
  const ExecStatusType status = PQresultStatus(res);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) return Failure(res, "statement");
  if (rows) {
    const int fields = PQnfields(res), tuples = PQntuples(res);
    rows->Reset(static_cast<size_t>(fields));
    for (int r = 0; r < tuples; ++r)
      for (int f = 0; f < fields; ++f) {
        if (PQgetisnull(res, r, f))
          rows->AddNull();
        else
          rows->AddText(std::string(PQgetvalue(res, r, f), static_cast<size_t>(PQgetlength(res, r, f))));
      }
  }
  if (changed) {
    const std::string_view n = PQcmdTuples(res);
    int64_t v = 0;
    std::from_chars(n.data(), n.data() + n.size(), v);
    *changed = v;
  }
  return Status::Ok();
}

Status PgConnection::Failure(const PGresult* res, std::string_view context) {
  const char* state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  const std::string code = state ? state : "";
  std::string msg = "postgresql: " + std::string(context) + ": " +
                    TrimmedMessage(res && *PQresultErrorMessage(res) ? PQresultErrorMessage(res)
                                                                     : PQerrorMessage(conn_));
  if (!code.empty()) msg += " (SQLSTATE " + code + ")";
  const std::string_view cls = std::string_view(code).substr(0, 2);
  // Passing: a lock or deadlock between transactions, a connection lost (the pool opens a
  // new one), a server shutting down.
  transient_ = code == "40001" || code == "40P01" || code == "55P03" || cls == "08" || code.starts_with("57P") ||
               PQstatus(conn_) != CONNECTION_OK;
  if (transient_ || code == "57014") return Status::Unavailable(std::move(msg));
  if (code == "23505") return Status::AlreadyExists(std::move(msg));
  if (cls == "22" || cls == "23") return Status::InvalidArgument(std::move(msg));
  if (cls == "53" || cls == "54") return Status::ResourceExhausted(std::move(msg));
  if (cls == "28" || code == "42501") return Status::PermissionDenied(std::move(msg));
  if (code == "3D000") return Status::NotFound(std::move(msg));
  if (cls == "XX") return Status::Corruption(std::move(msg));
  return Status::IOError(std::move(msg));
}

}  // namespace aegis::store
