// Opening a store: URLs, files that are not databases, unreachable servers, the schema
// kept across reopening and refused when newer than this build.
#include <sys/stat.h>

#include <fstream>
#include <thread>

#include "store/schema.h"
#include "store_fixture.h"

namespace aegis::store::test {
namespace {

TEST(StoreOpenTest, UrlsOtherThanSqliteAndPostgresqlAreRefused) {
  for (const char* url : {"", "mysql://db/x", "sqlite:", "sqlite://relative/path.db", "file:/tmp/x.db",
                          "postgresql:/x", "SQLITE:/tmp/x"}) {
    std::unique_ptr<Store> store;
    Status st = Store::Open(url, &store);
    EXPECT_TRUE(st.IsInvalidArgument()) << url << ": " << st.ToString();
    EXPECT_FALSE(store);
  }
  std::unique_ptr<Store> store;
  EXPECT_TRUE(Store::Open(std::string_view("sqlite:/tmp/a\0b", 15), &store).IsInvalidArgument());
}

TEST(StoreOpenTest, SqliteAcceptsBothPathForms) {
  ScratchDir dir;
  std::unique_ptr<Store> store;
  ASSERT_TRUE(Store::Open("sqlite:" + dir.path() + "/one.db", &store).ok());
  EXPECT_EQ(store->backend(), "sqlite");
  ASSERT_TRUE(Store::Open("sqlite://" + dir.path() + "/two.db", &store).ok());
  std::ifstream two(dir.path() + "/two.db");
  EXPECT_TRUE(two.good());
}

TEST(StoreOpenTest, ANewSqliteFileIsItsOwnersOnly) {
  ScratchDir dir;
  std::unique_ptr<Store> store;
  ASSERT_TRUE(Store::Open("sqlite:" + dir.path() + "/aegis.db", &store).ok());
  ASSERT_TRUE(store->PutTopology("{\"nodes\": []}", 1.0).ok());  // a write: the -wal file exists
  for (const char* f : {"/aegis.db", "/aegis.db-wal"}) {
    struct stat st {};
    ASSERT_EQ(::stat((dir.path() + f).c_str(), &st), 0) << f;
    EXPECT_EQ(st.st_mode & 0777, 0600u) << f;
  }
}

TEST(StoreOpenTest, AFileThatIsNotADatabaseIsCorruption) {
  ScratchDir dir;
  const std::string path = dir.path() + "/garbage.db";
  std::ofstream(path) << std::string(8192, '\x5a');
  std::unique_ptr<Store> store;
  Status st = Store::Open("sqlite:" + path, &store);
  EXPECT_EQ(st.code(), Status::Code::kCorruption) << st.ToString();
}

TEST(StoreOpenTest, AFileInAMissingDirectoryIsAnIOError) {
  ScratchDir dir;
  std::unique_ptr<Store> store;
  Status st = Store::Open("sqlite:" + dir.path() + "/no/such/dir/x.db", &store);
  EXPECT_EQ(st.code(), Status::Code::kIOError) << st.ToString();
}

TEST(StoreOpenTest, AnUnreachableServerIsUnavailable) {
  std::unique_ptr<Store> store;
  // Port 1 on loopback: nobody listens, the connection is refused at once.
  Status st = Store::Open("postgresql://postgres@127.0.0.1:1/aegis?connect_timeout=2", &store);
  EXPECT_TRUE(st.IsUnavailable()) << st.ToString();
  EXPECT_EQ(st.message().find("password"), std::string::npos);
}

// A new file switches to write-ahead logging when it is first opened, which takes its
// exclusive lock; SQLite refuses the switch at once (no busy wait) while another opener
// holds it. Raced on 100 new files by 8 openers each (without the retry, 3 or 4 rounds
// of 100 failed).
TEST(StoreOpenTest, SqliteStoresOpenedTogetherOnANewFileAllOpen) {
  ScratchDir dir;
  constexpr int kRounds = 100;
  constexpr int kStores = 8;
  int failures = 0;
  for (int round = 0; round < kRounds; ++round) {
    const std::string url = "sqlite:" + dir.path() + "/race-" + std::to_string(round) + ".db";
    std::vector<std::unique_ptr<Store>> stores(kStores);
    std::vector<Status> results(kStores);
    std::vector<std::thread> threads;
    for (int i = 0; i < kStores; ++i) threads.emplace_back([&, i] { results[i] = Store::Open(url, &stores[i]); });
    for (auto& t : threads) t.join();
    for (const Status& st : results) {
      if (st.ok()) continue;
      ++failures;
      ADD_FAILURE() << "round " << round << ": " << st.ToString();
    }
  }
  EXPECT_EQ(failures, 0);
}

class SchemaTest : public StoreTest {};

TEST_P(SchemaTest, AReopenedStoreKeepsItsData) {
  {
    auto store = OpenStore();
    ASSERT_TRUE(store);
    EXPECT_EQ(store->backend(), postgres() ? "postgresql" : "sqlite");
    AppendResult r;
    ASSERT_TRUE(store->AppendEvents(std::vector<Event>{MakeEvent("e1", "n", 1)}, &r).ok());
    ASSERT_TRUE(store->PutTopology("{}", 5).ok());
  }
  auto store = OpenStore();
  ASSERT_TRUE(store);
  std::vector<Event> events;
  ASSERT_TRUE(store->EventsAfter(0, 10, &events).ok());
  ASSERT_EQ(events.size(), 1u);
  std::string topology;
  double at = 0;
  ASSERT_TRUE(store->GetTopology(&topology, &at).ok());
  // The store counts on its incident numbers surviving too.
  IncidentRecord inc;
  bool created = false;
  ASSERT_TRUE(store->OpenIncident({"j", Trigger::kJobFailed, 1, ""}, &inc, &created).ok());
  EXPECT_EQ(inc.id, "inc-1");
}

TEST_P(SchemaTest, ASchemaNewerThanThisBuildIsRefused) {
  ASSERT_TRUE(OpenStore());
  Status st = RunRawSql(url(), "UPDATE schema_version SET version = version + 1");
  ASSERT_TRUE(st.ok()) << st.ToString();
  std::unique_ptr<Store> store;
  st = Store::Open(url(), &store);
  EXPECT_EQ(st.code(), Status::Code::kFailedPrecondition) << st.ToString();
}

TEST_P(SchemaTest, StoresOpenedAtOnceCreateTheSchemaOnce) {
  constexpr int kStores = 4;
  std::vector<std::unique_ptr<Store>> stores(kStores);
  std::vector<Status> results(kStores);
  std::vector<std::thread> threads;
  for (int i = 0; i < kStores; ++i) threads.emplace_back([&, i] { results[i] = Store::Open(url(), &stores[i]); });
  for (auto& t : threads) t.join();
  for (const Status& st : results) EXPECT_TRUE(st.ok()) << st.ToString();
}

INSTANTIATE_TEST_SUITE_P(Backends, SchemaTest, ::testing::Values(Backend::kSqlite, Backend::kPostgres), BackendName);

// A database of schema version 1 (before critical_error incidents) is migrated in place:
// its incidents, and the actions, hosts and history that refer to them, stay.
TEST_P(SchemaTest, AVersion1DatabaseIsMigrated) {
  const SqlTypes types = postgres() ? SqlTypes{"DOUBLE PRECISION", "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY", false}
                                    : SqlTypes{"REAL", "INTEGER PRIMARY KEY AUTOINCREMENT", true};
  const std::vector<std::vector<std::string>> migrations = SchemaMigrations(types);
  for (const std::string& sql : migrations[0]) ASSERT_TRUE(RunRawSql(url(), sql).ok()) << sql;
  for (const char* sql :
       {"CREATE TABLE schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)",
        "INSERT INTO schema_version (id, version) VALUES (1, 1)",
        "INSERT INTO incidents (id, job, triggered_by, opened_at, decided_at, verdict, decided_by) "
        "VALUES ('inc-1', 'j1', 'job_failed', 10, 11, '{}', 'c')",
        "INSERT INTO actions (key, incident, host, op, backend, dry_run, at, result, detail, updated_at) "
        "VALUES ('inc-1/drain/n1/none', 'inc-1', 'n1', 'drain', 'none', 0, 11, 'recorded', '', 11)",
        "INSERT INTO hosts (host, state, since, incident, reason) VALUES ('n1', 'isolated', 11, 'inc-1', 'Xid 79')",
        "INSERT INTO host_history (host, at, from_state, to_state, incident, reason, changed_by, actor) "
        "VALUES ('n1', 11, 'in_service', 'isolated', 'inc-1', 'Xid 79', 'decision', 'c')",
        "UPDATE counters SET value = 1 WHERE name = 'incident'"})
    ASSERT_TRUE(RunRawSql(url(), sql).ok()) << sql;
  auto store = OpenStore();
  ASSERT_TRUE(store);
  IncidentRecord inc;
  ASSERT_TRUE(store->GetIncident("inc-1", &inc).ok());
  EXPECT_TRUE(inc.decided());
  ASSERT_EQ(inc.actions.size(), 1u);
  HostRecord h;
  ASSERT_TRUE(store->GetHost("n1", &h).ok());
  EXPECT_EQ(h.incident, "inc-1");
  bool created = false;
  ASSERT_TRUE(store->OpenIncident({"j1", Trigger::kCriticalError, 20, ""}, &inc, &created).ok());
  EXPECT_TRUE(created);
  EXPECT_EQ(inc.id, "inc-2");
  ASSERT_TRUE(store->GetIncident("inc-2", &inc).ok());
  EXPECT_EQ(inc.trigger, Trigger::kCriticalError);
  std::vector<HistoryEntry> history;
  ASSERT_TRUE(store->HistorySince(0, 10, &history).ok());
  EXPECT_EQ(history.size(), 1u);
}

}  // namespace
}  // namespace aegis::store::test
