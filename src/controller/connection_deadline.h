// A deadline on every connection to the controller's port, whatever it is doing. The HTTP
// library bounds the wait for each read (--read-timeout), not a request as a whole, so a
// client that sends a byte a second would hold one of the server's workers for as long as
// it likes, and a few dozen such clients every worker. This watchdog finds the process's
// sockets accepted on `port` (through /proc/self/fd: the library does not say which socket
// a worker serves), remembers when each was first seen, and shuts down (SHUT_RDWR) one
// open longer than the deadline: the worker's blocking read returns at once, it closes
// the socket and takes the next. A kept-alive connection is cut too once it is that old;
// clients reconnect (agents resend the batch: ids make it harmless).
//
// Lifetime: Start() after the server listens, Stop() (or the destructor) before it stops.
// Threads: its own, scanning every second; Scan() is for tests, from one thread.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "env/env.h"

namespace aegis::controller {

class ConnectionDeadline {
 public:
  // `cut` (may be null, not owned) counts the connections shut down.
  ConnectionDeadline(int port, double deadline_s, std::atomic<uint64_t>* cut = nullptr, Env* env = nullptr);
  ~ConnectionDeadline();

  void Start();
  void Stop();

  // One look at the sockets at monotonic time `now`; the number shut down.
  size_t Scan(double now);

 private:
  int port_;
  double deadline_s_;
  std::atomic<uint64_t>* cut_;
  Env* env_;
  std::map<std::pair<int, uint64_t>, double> first_seen_;  // (fd, inode) -> when; Scan's thread only
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace aegis::controller
