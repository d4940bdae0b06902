// Per-communicator counters of the CCL probe: collective launches and completions per
// function (CL), network requests posted and completed per peer and direction (WR / WC)
// with bytes and recent throughput, and the last completed collectives with durations.
//
// No counter has two writers. Every thread that reports events for a communicator gets
// its own Lane of it (found through a thread-local cache): its own counters, written with
// plain loads and stores, and its own event pool. The snapshot writer reads the lanes with
// acquire loads and adds them up; rings of records it reads under a per-ring sequence
// lock. A lane whose thread exits is left for the next thread to adopt.
//
// Timing: one network request in kTimeEvery per (peer, direction), and the first after
// each snapshot, is timed (two Ticks() reads); the others only count. recent_gbps is the
// throughput of the last kRecentThroughput timed requests, last_post_ts / last_done_ts
// those of the latest timed request. "Is this request timed" is one comparison: the
// owner sets next_timed kTimeEvery requests ahead when it times one, the writer sets it
// to 0 after each snapshot (RestartSampling).
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "probe/event_pool.h"

namespace aegis::probe {

constexpr int kMaxFuncs = 12;         // AllReduce, AllGather, ... ; the last slot is "Other"
constexpr int kRecentThroughput = 5;  // L: timed requests kept per (peer, direction)
constexpr int kRecentColls = 32;      // K: completed collectives kept for durations
constexpr uint64_t kTimeEvery = 32;   // one request in 32 is timed
constexpr int kMaxPeers = 1 << 20;    // when NCCL (< 2.27) does not say how many ranks
constexpr uint32_t kEventsPerLane = 16384;

const char* FuncName(int index);
int FuncIndex(const char* name);  // by NCCL's function name; unknown names share "Other"

// One writer (the lane's owner): add without a read-modify-write instruction.
inline void OwnerAdd(std::atomic<uint64_t>& a, uint64_t d) {
  a.store(a.load(std::memory_order_relaxed) + d, std::memory_order_release);
}
inline void OwnerMax(std::atomic<uint64_t>& a, uint64_t v) {
  if (v > a.load(std::memory_order_relaxed)) a.store(v, std::memory_order_release);
}

// One (peer, direction) in one lane. What a request updates (posted, completed, bytes,
// next_timed) shares the first cache line.
struct alignas(64) PeerSlot {
  std::atomic<uint64_t> posted{0}, completed{0}, bytes{0};
  // `posted` of the next timed request: the owner moves it kTimeEvery ahead when it times
  // one (only from the value it compared, so a reset is never lost); the writer sets it to
  // 0 after each snapshot.
  std::atomic<uint64_t> next_timed{0};
  std::atomic<uint64_t> last_post{0}, last_done{0};  // ticks of the latest timed request
  std::atomic<uint32_t> ring_version{0};             // odd while a ring entry is written
  uint32_t ring_next = 0;                            // owner only
  std::atomic<uint64_t> ring_bytes[kRecentThroughput]{};
  std::atomic<uint64_t> ring_span[kRecentThroughput]{};  // post to completion, ticks
  std::atomic<uint64_t> ring_done[kRecentThroughput]{};  // completion, ticks (orders lanes)
};

// (peer, direction) -> PeerSlot of one lane, in blocks of 64 peers allocated on first use.
class PeerTable {
 public:
  static constexpr int kBlockPeers = 64;
  explicit PeerTable(int nranks);  // nranks <= 0: unknown (kMaxPeers)
  ~PeerTable();
  PeerTable(const PeerTable&) = delete;
  PeerTable& operator=(const PeerTable&) = delete;
  // Owner only. nullptr for a peer out of range or when memory is short.
  PeerSlot* Get(int peer, int dir) {
    const auto p = static_cast<unsigned>(peer);  // a negative peer is out of range too
    if (p >= static_cast<unsigned>(limit_)) return nullptr;
    PeerSlot* block = blocks_[p / kBlockPeers];  // the owner is the only writer: a plain read is current
    if (!block) [[unlikely]] block = NewBlock(p / kBlockPeers);
    return block ? &block[(p % kBlockPeers) * 2 + static_cast<unsigned>(dir)] : nullptr;
  }
  // Any thread: f(peer, dir, slot) for every slot of an allocated block, in peer order.
  template <typename F>
  void ForEach(F&& f) const;
  // Any thread: every slot times its next request.
  void RestartSampling();

 private:
  PeerSlot* NewBlock(unsigned b);
  PeerSlot** blocks_;  // calloc'd; entries published with release, read with acquire
  int limit_;
};

struct RecentColl {
  int func = 0;
  uint64_t seq = 0, bytes = 0, start_ns = 0, done_ns = 0;
  double td_us = 0;
};

class CommState;

// A lane's owner when its thread has exited: never equal to any thread's ThreadState, so
// "is this lane mine" is one comparison, also for a thread that has none yet.
inline const char kOrphanLane = 0;

class Lane {
 public:
  Lane(CommState* comm, int nranks);
  CommState* const comm;
  std::atomic<const void*> owner{&kOrphanLane};  // the ThreadState writing it, or kOrphanLane
  Lane* next = nullptr;                     // in comm's list; set before publication
  EventPool pool{kEventsPerLane};
  PeerTable peers;
  // Where an op to a peer out of range (or beyond memory) counts: never reported, so
  // that the per-request path needs no null check.
  PeerSlot sink;

  // Owner only.
  void CollLaunched(int func, uint64_t seq) { OwnerMax(launched_[func], seq + 1); }
  void CollCompleted(const RecentColl& c);
  // Any thread.
  uint64_t launched(int f) const { return launched_[f].load(std::memory_order_acquire); }
  uint64_t completed(int f) const { return completed_[f].load(std::memory_order_acquire); }
  void ReadRecent(std::vector<RecentColl>* out) const;

 private:
  std::atomic<uint64_t> launched_[kMaxFuncs]{};   // max(seq + 1)
  std::atomic<uint64_t> completed_[kMaxFuncs]{};  // max(seq + 1)
  std::atomic<uint32_t> recent_version_{0};       // odd while an entry is written
  uint64_t recent_count_ = 0;                     // owner only
  struct Entry {
    std::atomic<uint64_t> func{0}, seq{0}, bytes{0}, start_ns{0}, done_ns{0}, td_bits{0};
  } recent_[kRecentColls];
};

// A thread's lanes; a lane's `owner` holds its ThreadState.
struct ThreadState {
  struct Entry {
    const CommState* comm = nullptr;
    Lane* lane = nullptr;
  };
  Entry cache[4];            // most recently used first
  std::vector<Lane*> owned;  // released for adoption when the thread exits
};
extern __thread ThreadState* t_thread __attribute__((tls_model("initial-exec")));

// The calling thread's token, what a proxy op records as its owner (Event::owner): the
// address of the thread's control block, read in one instruction (a thread-local
// variable costs two in a shared library). Unique among live threads; a thread clears it
// from the ops it started when it gives up its lanes (at exit, ReleaseThreadLanes), so
// a later thread given the same address matches none of them.
inline uintptr_t ThreadToken() { return reinterpret_cast<uintptr_t>(__builtin_thread_pointer()); }

struct CommInfo {
  uint64_t comm_hash = 0;
  std::string comm_name;
  int nranks = 0, nnodes = 0, rank = 0;  // 0 ranks / nodes: unknown (NCCL < 2.27)
  int gpu = -1;                          // CUDA device, -1 when unknown
  int api = 0;                           // profiler API version NCCL called (1..5)
};

class CommState {
 public:
  // With `known`: the communicator's identity is given now (NCCL >= 2.27). Otherwise it
  // is learnt from the first collective or p2p descriptor (LearnIdentity).
  CommState(const CommInfo& info, bool known);
  ~CommState();
  CommState(const CommState&) = delete;
  CommState& operator=(const CommState&) = delete;

  // The calling thread's lane; nullptr when memory is short (the event is then dropped).
  Lane* LaneHere() {
    ThreadState* t = t_thread;
    if (t && t->cache[0].comm == this) [[likely]] return t->cache[0].lane;
    return LaneSlow();
  }
  static bool OwnedHere(const Lane* lane) { return lane->owner.load(std::memory_order_relaxed) == t_thread; }

  void LearnIdentity(uint64_t hash, const char* name, int rank);
  bool identity_known() const { return identity_.load(std::memory_order_acquire) == 2; }
  const CommInfo& info() const { return info_; }  // valid once identity_known()

  // One JSON line (docs/formats.md, CCL snapshots), without the trailing newline.
  std::string Snapshot(const std::string& host, int pid) const;
  uint64_t events_dropped() const;
  // After a snapshot (the writer): every (peer, direction) times its next request, so
  // that each snapshot has fresh timings.
  void RestartSampling();

  std::atomic<bool> finalized{false};
  // p2p operations carry no sequence number: one per function, written by the launching
  // (application) thread only, on a line of their own.
  alignas(64) std::atomic<uint64_t> p2p_seq[kMaxFuncs]{};

 private:
  Lane* LaneSlow();
  std::atomic<Lane*> lanes_{nullptr};
  std::atomic<int> identity_{0};  // 0 unknown, 1 being written, 2 known
  CommInfo info_;
};

template <typename F>
void PeerTable::ForEach(F&& f) const {
  const int nblocks = (limit_ + kBlockPeers - 1) / kBlockPeers;
  for (int b = 0; b < nblocks; ++b) {
    const PeerSlot* block = std::atomic_ref<PeerSlot*>(blocks_[b]).load(std::memory_order_acquire);
    if (!block) continue;
    for (int i = 0; i < kBlockPeers * 2; ++i) {
      const int peer = b * kBlockPeers + i / 2;
      if (peer < limit_) f(peer, i % 2, block[i]);
    }
  }
}

// For tests and the writer: the lanes of the calling thread go back to the pool of lanes
// as they would at thread exit.
void ReleaseThreadLanes();

}  // namespace aegis::probe
