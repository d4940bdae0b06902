#include "pg_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <vector>

namespace aegis::store::test {

namespace fs = std::filesystem;

namespace {

bool IsProgram(const fs::path& p) { return access(p.c_str(), X_OK) == 0; }

// A loopback port nobody listens on now.
int FreePort() {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s < 0) return 0;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = 0;
  if (bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  close(s);
  return port;
}

// Runs a program (as the postgres user when we are root), its output appended to `log`.
// Returns its exit code, or -1 when it could not run.
int Run(std::vector<std::string> argv, const std::string& cwd, const std::string& log) {
  if (geteuid() == 0) argv.insert(argv.begin(), {"/usr/sbin/runuser", "-u", "postgres", "--"});
  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  const int out = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (out < 0) return -1;
  const pid_t pid = fork();
  if (pid < 0) {
    close(out);
    return -1;
  }
  if (pid == 0) {
    dup2(out, STDOUT_FILENO);
    dup2(out, STDERR_FILENO);
    if (chdir(cwd.c_str()) != 0) _exit(126);
    execv(args[0], args.data());
    _exit(127);
  }
  close(out);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string Tail(const std::string& path) {
  std::ifstream in(path);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return all.size() > 2000 ? all.substr(all.size() - 2000) : all;
}

}  // namespace

std::string PgServer::BinDir() {
  if (const char* env = std::getenv("AEGIS_PG_BINDIR"); env && *env)
    return IsProgram(fs::path(env) / "initdb") && IsProgram(fs::path(env) / "pg_ctl") ? env : "";
  std::string best;
  int best_version = -1;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    const fs::path bin = entry.path() / "bin";
    const int version = std::atoi(entry.path().filename().c_str());
    if (version > best_version && IsProgram(bin / "initdb") && IsProgram(bin / "pg_ctl")) {
      best = bin.string();
      best_version = version;
    }
  }
  return best;
}

Status PgServer::Start(const Options& options, std::unique_ptr<PgServer>* out) {
  const std::string bin = BinDir();
  if (bin.empty()) return Status::NotFound("PostgreSQL is not installed");
  std::string tmpl = (fs::temp_directory_path() / "aegis-pg-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) return Status::IOError("mkdtemp failed");
  auto server = std::unique_ptr<PgServer>(new PgServer());
  server->dir_ = tmpl;
  const auto fail = [&](Status st) {
    std::error_code ec;
    fs::remove_all(tmpl, ec);
    return st;
  };
  if (geteuid() == 0) {
    const passwd* pw = getpwnam("postgres");
    if (pw == nullptr) return fail(Status::FailedPrecondition("running as root and there is no postgres user"));
    if (chown(tmpl.c_str(), pw->pw_uid, pw->pw_gid) != 0) return fail(Status::IOError("chown " + tmpl));
  }
  const std::string data = tmpl + "/data", log = tmpl + "/setup.log";
  if (Run({bin + "/initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "-N"}, tmpl,
          log) != 0)
    return fail(Status::IOError("initdb failed: " + Tail(log)));
  // The port is free when chosen but could be taken before the server binds it: retry.
  for (int attempt = 0; attempt < 5; ++attempt) {
    const int port = FreePort();
    std::string server_options = "-c port=" + std::to_string(port) + " -c listen_addresses=127.0.0.1" +
                                 " -c unix_socket_directories=" + tmpl + " -c max_connections=300";
    if (!options.durable) server_options += " -c fsync=off -c full_page_writes=off";
    if (Run({bin + "/pg_ctl", "-D", data, "-l", tmpl + "/server.log", "-w", "-t", "60", "-o", server_options,
             "start"},
            tmpl, log) == 0) {
      server->port_ = port;
      *out = std::move(server);
      return Status::Ok();
    }
  }
  return fail(Status::IOError("pg_ctl start failed: " + Tail(log) + Tail(tmpl + "/server.log")));
}

Status PgServer::Load(const std::string& state_path, std::unique_ptr<PgServer>* out) {
  std::ifstream in(state_path);
  auto server = std::unique_ptr<PgServer>(new PgServer());
  if (!(in >> server->port_ >> server->dir_)) return Status::NotFound("no PostgreSQL state in " + state_path);
  *out = std::move(server);
  return Status::Ok();
}

Status PgServer::Save(const std::string& state_path) const {
  std::ofstream out(state_path, std::ios::trunc);
  out << port_ << " " << dir_ << "\n";
  out.close();
  return out ? Status::Ok() : Status::IOError("cannot write " + state_path);
}

Status PgServer::Stop() {
  if (dir_.empty()) return Status::Ok();
  const std::string bin = BinDir();
  int rc = -1;
  if (!bin.empty())
    rc = Run({bin + "/pg_ctl", "-D", dir_ + "/data", "-m", "immediate", "-w", "stop"}, dir_, dir_ + "/setup.log");
  std::error_code ec;
  fs::remove_all(dir_, ec);
  dir_.clear();
  return rc == 0 ? Status::Ok() : Status::IOError("pg_ctl stop failed");
}

std::string PgServer::Url(const std::string& database) const {
  return "postgresql://postgres@127.0.0.1:" + std::to_string(port_) + "/" + database;
}

Status PgServer::Admin(const std::string& sql) {
  PGconn* conn = PQconnectdb((Url("postgres") + "?connect_timeout=10").c_str());
  if (PQstatus(conn) != CONNECTION_OK) {
    Status st = Status::Unavailable(std::string("admin connection: ") + PQerrorMessage(conn));
    PQfinish(conn);
    return st;
  }
  PGresult* res = PQexec(conn, sql.c_str());
  const ExecStatusType status = PQresultStatus(res);
  Status st = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK
                  ? Status::Ok()
                  : Status::IOError(sql + ": " + PQresultErrorMessage(res));
  PQclear(res);
  PQfinish(conn);
  return st;
}

Status PgServer::CreateDatabase(std::string* name, std::string* url) {
  static std::atomic<int> counter{0};
  const auto ticks = std::chrono::steady_clock::now().time_since_epoch().count();
  *name = "t_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + "_" + std::to_string(ticks % 1000000);
  Status st = Admin("CREATE DATABASE " + *name);
  if (st.ok()) *url = Url(*name);
  return st;
}

Status PgServer::DropDatabase(const std::string& name) { return Admin("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); }

namespace {
std::mutex shared_mu;
std::unique_ptr<PgServer> shared_server;
bool shared_is_own = false;
}  // namespace

PgServer* SharedPgServer(std::string* why) {
  std::lock_guard<std::mutex> lock(shared_mu);
  if (shared_server) return shared_server.get();
  if (const char* state = std::getenv("AEGIS_STORE_PG_STATE"); state && *state) {
    Status st = PgServer::Load(state, &shared_server);
    if (!st.ok()) *why = "the ctest fixture's PostgreSQL server is not running: " + st.ToString();
    return shared_server.get();
  }
  Status st = PgServer::Start({}, &shared_server);
  if (!st.ok()) {
    *why = st.ToString();
    return nullptr;
  }
  shared_is_own = true;
  return shared_server.get();
}

void StopOwnPgServer() {
  std::lock_guard<std::mutex> lock(shared_mu);
  if (shared_server && shared_is_own) (void)shared_server->Stop();
  shared_server.reset();
}

}  // namespace aegis::store::test
