// A stand-in for NCCL 2.28 driving the profiler plugin exactly as NCCL does: dlopen the
// .so, resolve ncclProfiler_v5, init one context per (communicator, rank) with the mask
// pointer, then per collective: Coll start/stop on the application thread; KernelCh,
// ProxyOp and ProxyStep events (with their wait states) on a proxy thread.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "probe/nccl_profiler_abi.h"

namespace aegis::test {

class FakeNccl {
 public:
  explicit FakeNccl(const std::string& plugin_path);
  ~FakeNccl();
  const probe::abi::Profiler_v5* v5() const { return v5_; }
  const probe::abi::Profiler_v4* v4() const { return v4_; }

  struct Rank {
    void* ctx = nullptr;
    int rank = 0, nranks = 0;
  };
  // One communicator of nranks contexts.
  std::vector<Rank> InitComm(uint64_t hash, const char* name, int nranks, int nnodes);

  // How one collective goes on one rank.
  struct Step {
    bool complete = true;     // false: posted, never completed (a stuck request)
    int delay_us = 0;         // time between post and completion
  };
  struct Plan {
    int send_peer = -1, recv_peer = -1;
    int steps = 4;
    size_t step_bytes = 1 << 20;
    bool kernel_finishes = true;  // false: the collective never completes on the GPU
    std::function<Step(int step, bool send)> step;  // default: complete at once
  };
  // Launches a collective on the application thread; the proxy thread plays it out.
  void Collective(const Rank& r, uint64_t seq, const Plan& plan);
  // Waits until the proxy thread has played out everything queued.
  void Drain();
  void Finalize(const Rank& r);

 private:
  void ProxyLoop();
  void* lib_ = nullptr;
  const probe::abi::Profiler_v5* v5_ = nullptr;
  const probe::abi::Profiler_v4* v4_ = nullptr;
  std::mutex mu_;
  std::condition_variable cv_, idle_cv_;
  std::deque<std::function<void()>> work_;
  bool busy_ = false, stop_ = false;
  std::thread proxy_;
};

}  // namespace aegis::test
