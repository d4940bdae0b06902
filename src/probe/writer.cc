#include "probe/writer.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace aegis::probe {

namespace {
int g_wake_pipe[2] = {-1, -1};
struct sigaction g_previous;

void OnSignal(int sig, siginfo_t* info, void* uctx) {
  if (g_wake_pipe[1] >= 0) {
    const char c = 's';
    ssize_t ignored = ::write(g_wake_pipe[1], &c, 1);  // async-signal-safe wake-up
    (void)ignored;
  }
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction) g_previous.sa_sigaction(sig, info, uctx);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN && g_previous.sa_handler) {
    g_previous.sa_handler(sig);
  }
}

long EnvLong(const char* name, long fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  long x = std::strtol(v, &end, 10);
  return end && *end == 0 && x > 0 ? x : fallback;
}

int SignalFromEnv() {
  const char* v = std::getenv("AEGIS_CCL_SIGNAL");
  if (!v || !*v) return 0;
  if (!std::strcmp(v, "USR1") || !std::strcmp(v, "SIGUSR1")) return SIGUSR1;
  if (!std::strcmp(v, "USR2") || !std::strcmp(v, "SIGUSR2")) return SIGUSR2;
  long n = std::strtol(v, nullptr, 10);
  return n > 0 && n < 65 ? static_cast<int>(n) : 0;
}
}  // namespace

struct Writer::Impl {
  std::mutex mu;  // registry and output; never taken by NCCL's event path
  std::vector<CommState*> comms;
  abi::Logger logger = nullptr;
  std::string dir, path, socket_path;
  size_t max_bytes = 64u << 20;
  long interval_ms = 1000;
  FILE* file = nullptr;
  size_t file_bytes = 0;
  int sock = -1;
  bool warned_file = false, warned_socket = false;
  std::thread thread;
  bool started = false;

  void Warn(const char* what, const std::string& detail, bool* once) {
    if (*once) return;
    *once = true;
    if (logger)
      logger(abi::kLogWarn, abi::kLogAll, __FILE__, __LINE__, "AEGIS CCL probe: %s %s: %s", what, detail.c_str(),
             std::strerror(errno));
    else
      std::fprintf(stderr, "AEGIS CCL probe: %s %s: %s\n", what, detail.c_str(), std::strerror(errno));
  }

  void OpenFile() {
    if (file || warned_file) return;
    ::mkdir(dir.c_str(), 0755);
    file = std::fopen(path.c_str(), "a");
    if (!file) {
      Warn("cannot write", path, &warned_file);
      return;
    }
    struct stat st;
    file_bytes = ::stat(path.c_str(), &st) == 0 ? static_cast<size_t>(st.st_size) : 0;
  }

  void Emit(const std::string& line) {
    OpenFile();
    if (file) {
      if (file_bytes + line.size() + 1 > max_bytes && file_bytes > 0) {
        std::fclose(file);
        file = nullptr;
        std::rename(path.c_str(), (path + ".1").c_str());
        OpenFile();
      }
      if (file) {
        if (std::fwrite(line.data(), 1, line.size(), file) != line.size() || std::fputc('\n', file) == EOF) {
          Warn("write failed on", path, &warned_file);
        } else {
          file_bytes += line.size() + 1;
        }
      }
    }
    if (sock >= 0 && !socket_path.empty()) {
      sockaddr_un addr{};
      addr.sun_family = AF_UNIX;
      std::strncpy(addr.sun_path, socket_path.c_str(), sizeof addr.sun_path - 1);
      if (::sendto(sock, line.data(), line.size(), MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0 &&
          errno != ENOENT && errno != ECONNREFUSED && errno != EAGAIN)
        Warn("cannot send to", socket_path, &warned_socket);
    }
  }

  void Flush() {
    if (file) std::fflush(file);
  }

  void WriteAll(const std::string& host) {
    const int pid = static_cast<int>(::getpid());
    for (CommState* c : comms)
      if (!c->finalized.load() && c->identity_known()) {
        Emit(c->Snapshot(host, pid));
        c->RestartSampling();  // every (peer, direction) times its next request
      }
    Flush();
  }
};

Writer& Writer::Get() {
  static Writer* w = new Writer();  // never destroyed: events may arrive during exit
  return *w;
}

Writer::Writer() : impl_(new Impl) {
  char h[256] = {0};
  ::gethostname(h, sizeof h - 1);
  host_ = h;
  const char* dir = std::getenv("AEGIS_CCL_DIR");
  impl_->dir = dir && *dir ? dir : "/tmp/aegis-ccl";
  impl_->path = impl_->dir + "/" + host_ + "-" + std::to_string(::getpid()) + ".jsonl";
  impl_->max_bytes = static_cast<size_t>(EnvLong("AEGIS_CCL_MAX_MB", 64)) << 20;
  if (long kb = EnvLong("AEGIS_CCL_MAX_KB", 0)) impl_->max_bytes = static_cast<size_t>(kb) << 10;
  impl_->interval_ms = EnvLong("AEGIS_CCL_INTERVAL_MS", 1000);
  const char* sock = std::getenv("AEGIS_CCL_SOCKET");
  impl_->socket_path = sock ? sock : "/run/aegis/ccl.sock";
  if (!impl_->socket_path.empty()) impl_->sock = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
}

void Writer::SetLogger(abi::Logger logger) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (!impl_->logger) impl_->logger = logger;
}

void Writer::Register(CommState* comm) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->comms.push_back(comm);
  if (impl_->started) return;
  impl_->started = true;
  if (::pipe2(g_wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0) g_wake_pipe[0] = g_wake_pipe[1] = -1;
  if (int sig = SignalFromEnv()) {
    struct sigaction sa {};
    sa.sa_sigaction = OnSignal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, &g_previous);
  }
  impl_->thread = std::thread([this] {
    while (true) {
      pollfd p{g_wake_pipe[0], POLLIN, 0};
      ::poll(&p, g_wake_pipe[0] >= 0 ? 1 : 0, static_cast<int>(impl_->interval_ms));
      char drain[64];
      while (g_wake_pipe[0] >= 0 && ::read(g_wake_pipe[0], drain, sizeof drain) > 0) {
      }
      std::lock_guard<std::mutex> lock(impl_->mu);
      impl_->WriteAll(host_);
    }
  });
  ::pthread_setname_np(impl_->thread.native_handle(), "aegis-ccl");  // for top, perf and bench/probe_bench.cc
  impl_->thread.detach();
}

void Writer::Finalize(CommState* comm) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (comm->identity_known()) impl_->Emit(comm->Snapshot(host_, static_cast<int>(::getpid())));
  impl_->Flush();
  comm->finalized.store(true);
}

void Writer::SnapshotAll() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->WriteAll(host_);
}

}  // namespace aegis::probe
