// The node agent at steady state (not a test): `aegis agent` runs as a child process
// against an in-process stand-in for the controller, following a kernel log and 8 job log
// files (4 idle with 1 MB of history each, 4 with lines trickling in), receiving 8 CCL
// probe records a second on its socket, reading the node's facts and counters, and being
// scraped every 15 s. After a warm-up, its CPU time (utime + stime of /proc/PID/stat) over
// the measured period and its resident memory (VmRSS, VmHWM) are reported; the target is
// under 1% of a core and 50 MB.
//   aegis_agent_bench [SECONDS=60] [LINES_PER_SECOND=20]
#include <httplib.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

double CpuSeconds(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const size_t close = s.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream rest(s.substr(close + 2));
  std::string field;
  double ut = 0, st = 0;
  for (int i = 3; rest >> field; ++i) {
    if (i == 14) ut = std::stod(field);
    if (i == 15) {
      st = std::stod(field);
      break;
    }
  }
  return (ut + st) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

long StatusKb(pid_t pid, const std::string& key) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(key + ":", 0) == 0) return std::atol(line.c_str() + key.size() + 1);
  return -1;
}

int FreePort() {
  httplib::Server s;
  const int port = s.bind_to_any_port("127.0.0.1");
  return port;
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 60;
  const double rate = argc > 2 ? std::atof(argv[2]) : 20;
  signal(SIGPIPE, SIG_IGN);

  std::atomic<uint64_t> events{0}, requests{0};
  httplib::Server ctl;
  ctl.Post("/api/v1/events", [&](const httplib::Request& req, httplib::Response& res) {
    auto body = nlohmann::json::parse(req.body, nullptr, false);
    const size_t n = body.is_object() && body["events"].is_array() ? body["events"].size() : 0;
    events += n;
    ++requests;
    res.set_content(nlohmann::json{{"accepted", n}, {"duplicates", 0}, {"rejected", nlohmann::json::array()}}.dump(),
                    "application/json");
  });
  const int port = ctl.bind_to_any_port("127.0.0.1");
  std::thread server([&] { ctl.listen_after_bind(); });

  char tmpl[] = "/tmp/aegis-agent-bench-XXXXXX";
  const std::string dir = ::mkdtemp(tmpl);
  std::filesystem::create_directories(dir + "/logs");
  const std::string info =
      "[rank3]:node-0007:4242:4300 [3] NCCL INFO Channel 02/0 : 3[3] -> 4[4] via P2P/CUMEM/read\n";
  for (int f = 4; f < 8; ++f) {  // idle files with history
    std::ofstream out(dir + "/logs/rank" + std::to_string(f) + ".log");
    for (size_t b = 0; b < (1u << 20); b += info.size()) out << info;
  }
  std::ofstream(dir + "/kernel.log") << "2026-11-30T10:00:00.000000+00:00 node-0007 kernel: [    1.000000] Linux version 5.15.0\n";
  const int metrics_port = FreePort();

  std::vector<std::string> args = {AEGIS_BIN, "agent", "--controller", "http://127.0.0.1:" + std::to_string(port),
                                   "--node", "node-0007", "--kernel-log", dir + "/kernel.log",
                                   "--train-log", dir + "/logs/*.log", "--ccl-socket", dir + "/ccl.sock",
                                   "--facts", "auto", "--state-dir", dir + "/state",
                                   "--metrics-listen", "127.0.0.1:" + std::to_string(metrics_port)};
  std::vector<char*> cargv;
  for (auto& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, AEGIS_BIN, nullptr, nullptr, cargv.data(), environ) != 0) {
    std::fprintf(stderr, "cannot start %s\n", AEGIS_BIN);
    return 1;
  }

  int sock = ::socket(AF_UNIX, SOCK_DGRAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, (dir + "/ccl.sock").c_str(), sizeof addr.sun_path - 1);
  httplib::Client scraper("127.0.0.1", metrics_port);

  std::vector<std::ofstream> active;
  for (int f = 0; f < 4; ++f) active.emplace_back(dir + "/logs/rank" + std::to_string(f) + ".log", std::ios::app);
  std::ofstream kernel(dir + "/kernel.log", std::ios::app);
  uint64_t lines = 0, records = 0;
  double carry = 0;
  auto drive = [&](double duration) {
    const auto start = std::chrono::steady_clock::now();
    for (int tick = 0;; ++tick) {
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (t >= duration) break;
      carry += rate / 10;  // 10 ticks a second
      for (; carry >= 1; carry -= 1, ++lines) {
        std::ofstream& out = active[lines % active.size()];
        if (lines % 100 == 99)
          out << "[rank1]:node-0007:4242:4300 [1] NCCL WARN NET/IB : Got completion from peer 10.1.3.2<51234> with status=12 opcode=0 len=0 vendor err 129\n";
        else
          out << info;
        out.flush();
      }
      if (tick % 10 == 0) {  // the probe: every (comm, rank) once a second
        for (int rank = 0; rank < 8; ++rank, ++records) {
          char rec[512];
          std::snprintf(rec, sizeof rec,
                        "{\"v\": 1, \"ts\": %.3f, \"host\": \"node-0007\", \"pid\": %d, \"gpu\": %d, \"comm\": "
                        "\"00000000deadbeef\", \"comm_name\": \"dp\", \"nranks\": 8, \"nnodes\": 1, \"rank\": %d, "
                        "\"coll\": {\"AllReduce\": {\"launched\": %d, \"completed\": %d}}, \"net\": [], \"recent\": []}",
                        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(),
                        4000 + rank, rank, rank, tick, tick);
          ::sendto(sock, rec, std::strlen(rec), MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
        }
      }
      if (tick % 100 == 50) {
        kernel << "2026-11-30T10:00:00.000000+00:00 node-0007 kernel: [ 100.000000] eth0: link becomes ready\n";
        kernel.flush();
      }
      if (tick % 150 == 0) scraper.Get("/metrics");
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  };

  drive(10);  // warm-up: rules compiled, history read, first facts and samples
  const double cpu0 = CpuSeconds(pid);
  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t lines0 = lines, events0 = events;
  drive(seconds);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = CpuSeconds(pid) - cpu0;
  const long rss = StatusKb(pid, "VmRSS"), hwm = StatusKb(pid, "VmHWM");

  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ctl.stop();
  server.join();
  std::filesystem::remove_all(dir);

  std::printf("agent steady state over %.0f s: %.2f%% of a core (%.3f s CPU), RSS %.1f MB (peak %.1f MB); "
              "%.0f lines/s, %llu CCL records, %llu events shipped in %llu requests; exit %d\n",
              wall, 100 * cpu / wall, cpu, rss / 1024.0, hwm / 1024.0, static_cast<double>(lines - lines0) / wall,
              static_cast<unsigned long long>(records), static_cast<unsigned long long>(events - events0),
              static_cast<unsigned long long>(requests.load()), WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  nlohmann::json out = {{"cpu_share", cpu / wall}, {"rss_mb", rss / 1024.0}, {"peak_rss_mb", hwm / 1024.0},
                        {"seconds", wall}, {"lines_per_s", static_cast<double>(lines - lines0) / wall}};
  std::printf("%s\n", out.dump().c_str());
  return cpu / wall < 0.01 && rss < 50 * 1024 ? 0 : 1;
}
