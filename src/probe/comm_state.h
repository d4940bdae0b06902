// Per-communicator counters of the CCL probe: collective launches and completions per
// function (CL), network work requests posted and completed per peer and direction
// (WR / WC) with bytes and recent throughput, and the last completed collectives with
// their durations. Updated lock-free from NCCL's application and proxy threads; read by
// the snapshot writer. Memory is fixed at creation (sized by nranks), never grows.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace aegis::probe {

constexpr int kMaxFuncs = 12;        // AllReduce, AllGather, ... ; the last slot is "Other"
constexpr int kRecentThroughput = 5;  // L: throughput of the last 5 completed requests
constexpr int kRecentColls = 32;      // K: completed collectives kept for durations

const char* FuncName(int index);
int FuncIndex(const char* name);  // by NCCL's function name; unknown names share "Other"

struct alignas(64) PeerNet {  // one peer's counters never share a cache line with another's
  std::atomic<uint64_t> posted{0}, completed{0}, bytes{0};
  std::atomic<uint64_t> last_post_ns{0}, last_done_ns{0};
  // The last L completed requests: bytes and post-to-completion time.
  std::atomic<uint64_t> ring_bytes[kRecentThroughput]{};
  std::atomic<uint64_t> ring_ns[kRecentThroughput]{};
  std::atomic<uint32_t> ring_next{0};
};

struct RecentColl {
  int func = 0;
  uint64_t seq = 0, bytes = 0;
  double start_ts = 0, td_us = 0;
};

struct CommInfo {
  uint64_t comm_hash = 0;
  std::string comm_name;
  int nranks = 0, nnodes = 0, rank = 0;
  int gpu = -1;  // CUDA device, -1 when unknown
};

class CommState {
 public:
  explicit CommState(const CommInfo& info);
  const CommInfo& info() const { return info_; }

  void CollLaunched(int func, uint64_t seq);
  void CollCompleted(int func, uint64_t seq, uint64_t bytes, uint64_t start_ns, double td_us);
  // dir: 0 send, 1 recv. Out-of-range peers are ignored.
  void Posted(int peer, int dir, uint64_t now_ns);
  void Completed(int peer, int dir, uint64_t bytes, uint64_t post_ns, uint64_t now_ns);

  // One JSON line (spec ccl-snapshot.md), without the trailing newline.
  std::string Snapshot(const std::string& host, int pid) const;

  std::atomic<bool> finalized{false};

 private:
  CommInfo info_;
  std::atomic<uint64_t> launched_[kMaxFuncs]{};
  std::atomic<uint64_t> completed_[kMaxFuncs]{};
  std::unique_ptr<PeerNet[]> net_;  // [peer * 2 + dir]
  mutable std::mutex recent_mu_;    // per communicator, taken once per completed collective
  RecentColl recent_[kRecentColls];
  uint64_t recent_count_ = 0;
};

// Clocks: monotonic nanoseconds for durations, converted to epoch seconds for output.
uint64_t NowNs();
double EpochOf(uint64_t mono_ns);

}  // namespace aegis::probe
