// store_tests: the store's test suite, and the two steps of the ctest fixture that runs
// one PostgreSQL server for the whole suite:
//   store_tests --pg-server-start=STATE  starts it, writes STATE (exit 77: not installed)
//   store_tests --pg-server-stop=STATE   stops it, removes STATE
// Without these, the tests run; a PostgreSQL test started by hand brings its own server.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <string_view>

#include "pg_server.h"

namespace {

using aegis::store::test::PgServer;

int StartServer(const std::string& state) {
  if (PgServer::BinDir().empty()) {
    std::printf("PostgreSQL is not installed: skipped\n");
    return 77;
  }
  std::unique_ptr<PgServer> old;
  if (PgServer::Load(state, &old).ok()) (void)old->Stop();  // left by an interrupted run
  std::unique_ptr<PgServer> server;
  aegis::Status st = PgServer::Start({}, &server);
  if (st.ok()) st = server->Save(state);
  if (!st.ok()) {
    std::fprintf(stderr, "cannot start PostgreSQL: %s\n", st.ToString().c_str());
    if (server) (void)server->Stop();
    return 1;
  }
  std::printf("PostgreSQL on %s\n", server->Url("postgres").c_str());
  return 0;
}

int StopServer(const std::string& state) {
  std::unique_ptr<PgServer> server;
  if (!PgServer::Load(state, &server).ok()) return 0;
  aegis::Status st = server->Stop();
  std::remove(state.c_str());
  if (!st.ok()) std::fprintf(stderr, "%s\n", st.ToString().c_str());
  return st.ok() ? 0 : 1;
}

class OwnServerCleanup : public ::testing::Environment {
 public:
  void TearDown() override { aegis::store::test::StopOwnPgServer(); }
};

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--pg-server-start=")) return StartServer(std::string(arg.substr(18)));
    if (arg.starts_with("--pg-server-stop=")) return StopServer(std::string(arg.substr(17)));
  }
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new OwnServerCleanup);
  return RUN_ALL_TESTS();
}
