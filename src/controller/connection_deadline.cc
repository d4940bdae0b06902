#include "controller/connection_deadline.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <set>

namespace aegis::controller {

namespace {

// The inode of `fd` when it is a TCP socket accepted on `port` (local port `port`, with a
// peer: not the listening socket, not a client of the port), else 0.
uint64_t AcceptedOn(int fd, int port) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) return 0;
  sockaddr_storage local{}, peer{};
  socklen_t n = sizeof local;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &n) != 0) return 0;
  int local_port = -1;
  if (local.ss_family == AF_INET) local_port = ntohs(reinterpret_cast<sockaddr_in*>(&local)->sin_port);
  else if (local.ss_family == AF_INET6) local_port = ntohs(reinterpret_cast<sockaddr_in6*>(&local)->sin6_port);
  if (local_port != port) return 0;
  n = sizeof peer;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &n) != 0) return 0;
  return static_cast<uint64_t>(st.st_ino);
}

}  // namespace

ConnectionDeadline::ConnectionDeadline(int port, double deadline_s, std::atomic<uint64_t>* cut, Env* env)
    : port_(port), deadline_s_(deadline_s), cut_(cut), env_(env ? env : Env::Default()) {}

ConnectionDeadline::~ConnectionDeadline() { Stop(); }

void ConnectionDeadline::Start() {
  if (deadline_s_ <= 0 || thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      lock.unlock();
      Scan(env_->NowMonotonicSeconds());
      lock.lock();
      cv_.wait_for(lock, std::chrono::seconds(1), [this] { return stop_; });
    }
  });
}

void ConnectionDeadline::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

size_t ConnectionDeadline::Scan(double now) {
  DIR* dir = ::opendir("/proc/self/fd");
  if (!dir) return 0;
  std::set<std::pair<int, uint64_t>> seen;
  size_t cut = 0;
  while (dirent* e = ::readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0' || fd == ::dirfd(dir)) continue;
    const uint64_t inode = AcceptedOn(static_cast<int>(fd), port_);
    if (inode == 0) continue;
    const std::pair<int, uint64_t> key{static_cast<int>(fd), inode};
    seen.insert(key);
    auto [it, fresh] = first_seen_.emplace(key, now);
    if (fresh || now - it->second <= deadline_s_) continue;
    // The worker may have closed it and a new connection taken the number since: only the
    // same socket (inode) is cut.
    if (AcceptedOn(static_cast<int>(fd), port_) == inode && ::shutdown(static_cast<int>(fd), SHUT_RDWR) == 0) ++cut;
  }
  ::closedir(dir);
  for (auto it = first_seen_.begin(); it != first_seen_.end();)
    it = seen.count(it->first) ? std::next(it) : first_seen_.erase(it);
  if (cut_) *cut_ += cut;
  return cut;
}

}  // namespace aegis::controller
