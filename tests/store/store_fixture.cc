#include "store_fixture.h"

#include <libpq-fe.h>
#include <sqlite3.h>

namespace aegis::store::test {

std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::kSqlite ? "SQLite" : "PostgreSQL";
}

void PrintTo(Backend backend, std::ostream* os) {
  *os << (backend == Backend::kSqlite ? "SQLite" : "PostgreSQL");
}

void StoreFixture::Prepare(Backend backend) {
  backend_ = backend;
  if (backend == Backend::kSqlite) {
    url_ = "sqlite:" + dir_.path() + "/aegis.db";
    return;
  }
  if (PgServer::BinDir().empty()) GTEST_SKIP() << "PostgreSQL is not installed";
  std::string why;
  server_ = SharedPgServer(&why);
  ASSERT_NE(server_, nullptr) << why;
  Status st = server_->CreateDatabase(&db_name_, &url_);
  ASSERT_TRUE(st.ok()) << st.ToString();
}

void StoreFixture::TearDown() {
  if (server_ && !db_name_.empty()) {
    Status st = server_->DropDatabase(db_name_);
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
}

std::unique_ptr<Store> StoreFixture::OpenStore(const StoreOptions& options) {
  std::unique_ptr<Store> store;
  Status st = Store::Open(url_, &store, options);
  EXPECT_TRUE(st.ok()) << url_ << ": " << st.ToString();
  return store;
}

Event MakeEvent(const std::string& id, const std::string& node, double at, wire::EventType type,
                size_t body_bytes) {
  Event e;
  e.id = id;
  e.node = node;
  e.type = type;
  e.at = at;
  e.received_at = 1764500000.5;
  std::string text = "line of " + id;
  if (text.size() < body_bytes) text.append(body_bytes - text.size(), 'x');
  e.body = "{\"text\":\"" + text + "\",\"file\":\"kernel.log\"}";
  return e;
}

Status RunRawSql(const std::string& url, const std::string& sql) {
  if (url.rfind("sqlite:", 0) == 0) {
    sqlite3* db = nullptr;
    int rc = sqlite3_open(url.substr(7).c_str(), &db);
    if (rc == SQLITE_OK) rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
    Status st = rc == SQLITE_OK ? Status::Ok() : Status::IOError(sqlite3_errmsg(db));
    sqlite3_close(db);
    return st;
  }
  PGconn* conn = PQconnectdb(url.c_str());
  PGresult* res = PQexec(conn, sql.c_str());
  const ExecStatusType status = PQresultStatus(res);
  Status st = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK ? Status::Ok()
                                                                      : Status::IOError(PQerrorMessage(conn));
  PQclear(res);
  PQfinish(conn);
  return st;
}

}  // namespace aegis::store::test
