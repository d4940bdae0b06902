// The fixture every backend-independent store test runs under: each test gets a store of
// its own, a fresh SQLite file in a scratch directory or a fresh database on the tests'
// PostgreSQL server (pg_server.h). A PostgreSQL test is skipped only when PostgreSQL is not
// installed; a server that cannot be started fails it.
#pragma once
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "pg_server.h"
#include "scratch_dir.h"
#include "store/store.h"

namespace aegis::store::test {

enum class Backend { kSqlite, kPostgres };
std::string BackendName(const ::testing::TestParamInfo<Backend>& info);
void PrintTo(Backend backend, std::ostream* os);  // for gtest's messages

class StoreFixture : public ::testing::Test {
 protected:
  void TearDown() override;
  // Call from SetUp: chooses the backend and makes url() name a fresh database.
  void Prepare(Backend backend);

  // A new Store on url() (a second call gives a second store, as a second controller
  // would have); nullptr after a test failure when it cannot be opened.
  std::unique_ptr<Store> OpenStore(const StoreOptions& options = {});
  const std::string& url() const { return url_; }
  bool postgres() const { return backend_ == Backend::kPostgres; }
  PgServer* pg_server() const { return server_; }
  const ScratchDir& scratch() const { return dir_; }

 private:
  Backend backend_ = Backend::kSqlite;
  ScratchDir dir_;
  PgServer* server_ = nullptr;
  std::string db_name_;
  std::string url_;
};

// The suite parameterised over both backends.
class StoreTest : public StoreFixture, public ::testing::WithParamInterface<Backend> {
 protected:
  void SetUp() override { Prepare(GetParam()); }
};

// Test data helpers.
Event MakeEvent(const std::string& id, const std::string& node, double at, wire::EventType type = wire::EventType::kLog,
                size_t body_bytes = 0);
// Runs one statement on the database behind a store URL, bypassing the store (to damage or
// age a database on purpose).
Status RunRawSql(const std::string& url, const std::string& sql);

}  // namespace aegis::store::test
