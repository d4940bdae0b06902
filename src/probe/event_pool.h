// Fixed pool of event records for one communicator: lock-free pop/push (Treiber stacks
// of indices with an ABA tag), so that NCCL's application and proxy threads start and
// stop events without allocating or locking. The free list is split in shards, one per
// thread (round robin), so that two threads do not fight over one cache line. A full pool returns nullptr: the event is
// then not tracked (NCCL accepts a null handle) and the pool's `exhausted` count says so.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>

namespace aegis::probe {

class CommState;

struct alignas(64) Event {  // own cache lines: two threads never share one
  uint32_t generation = 0;  // bumped on every reuse, so that a stale parent is detected
  uint8_t type = 0;         // abi::EventType bit of this event (0: free)
  CommState* comm = nullptr;
  void* owner = nullptr;  // the plugin's per-communicator context (pool and counters)
  Event* parent = nullptr;
  uint32_t parent_generation = 0;
  std::atomic<int> refs{0};  // collectives: self + expected kernel channels + live proxy ops
  // Collective (or p2p).
  int func = 0;
  uint64_t seq = 0;
  uint64_t bytes = 0;
  uint64_t start_ns = 0;
  uint8_t channels = 0;
  std::atomic<uint8_t> channels_done{0};
  std::atomic<uint64_t> gpu_start{UINT64_MAX}, gpu_end{0};  // pTimer bounds over channels
  // Proxy op.
  int peer = -1;
  bool is_send = false;
  // Proxy step / kernel channel.
  bool posted = false, done = false;
  uint64_t post_ns = 0;
  uint64_t step_bytes = 0;
  uint64_t ch_start = 0;
};

class EventPool {
 public:
  explicit EventPool(uint32_t capacity);
  Event* Pop();
  void Push(Event* e);
  uint64_t exhausted() const { return exhausted_.load(std::memory_order_relaxed); }

 private:
  static constexpr int kShards = 4;
  struct alignas(64) Head {
    std::atomic<uint64_t> v{0};  // (tag << 32) | (index + 1); index + 1 == 0: empty
  };
  Event* PopFrom(Head& h);
  uint32_t capacity_;
  std::unique_ptr<Event[]> events_;
  std::unique_ptr<std::atomic<uint32_t>[]> next_;
  Head heads_[kShards];
  std::atomic<uint64_t> exhausted_{0};
};

}  // namespace aegis::probe
