// A real PostgreSQL server of the tests' own: initdb into a fresh directory under /tmp
// (as the postgres user when running as root, since the server refuses to run as root),
// started with pg_ctl on a free loopback port with its socket in that directory, trust
// authentication for the postgres user; stopped and removed by Stop().
//
// One server serves a whole test run: ctest starts it once (store_tests
// --pg-server-start=STATE, a fixture) and each test process finds it through the state
// file named by AEGIS_STORE_PG_STATE; a test binary run by hand starts its own on first
// use and stops it at exit. Each test gets a database of its own (CreateDatabase).
#pragma once
#include <memory>
#include <string>

#include "common/status.h"

namespace aegis::store::test {

class PgServer {
 public:
  struct Options {
    // false: fsync off, for test speed (no test crashes the server itself); true: the
    // server's defaults, for the benchmark.
    bool durable = false;
  };

  // The directory holding initdb and pg_ctl (AEGIS_PG_BINDIR, else the newest
  // /usr/lib/postgresql/N/bin); "" when PostgreSQL is not installed.
  static std::string BinDir();

  static Status Start(const Options& options, std::unique_ptr<PgServer>* out);
  // A server started by another process, from its state file (see Save).
  static Status Load(const std::string& state_path, std::unique_ptr<PgServer>* out);
  Status Save(const std::string& state_path) const;
  // Stops the server (immediate shutdown) and removes its directory.
  Status Stop();

  int port() const { return port_; }
  std::string Url(const std::string& database) const;
  // A new, empty database with a unique name.
  Status CreateDatabase(std::string* name, std::string* url);
  Status DropDatabase(const std::string& name);
  // Runs one statement in the "postgres" database as the superuser.
  Status Admin(const std::string& sql);

 private:
  std::string dir_;
  int port_ = 0;
};

// The server for this test process: the ctest fixture's, else one started now and stopped
// at exit. nullptr (with *why) when none can be had.
PgServer* SharedPgServer(std::string* why);
// Stops the server SharedPgServer started in this process, if it did.
void StopOwnPgServer();

}  // namespace aegis::store::test
