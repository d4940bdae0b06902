// Event records of the CCL probe and the pool they come from. A pool belongs to one lane
// (one thread's view of one communicator, comm_state.h): its owner pops and pushes with
// plain loads and stores; a thread that ends an event it did not start (a collective
// started by the application thread and ended by the proxy thread) hands it back through
// a lock-free list that the owner takes whole when its own list runs dry. Records are
// allocated in blocks of 256 as the lane needs them, up to a cap; past the cap Pop()
// returns nullptr, the event is not tracked (NCCL accepts a null handle) and `exhausted`
// says so. Records are never freed: NCCL may name a stopped event as a parent later, and
// `generation` tells such a stale parent apart.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace aegis::probe {

class Lane;
struct PeerSlot;
struct Event;

// What every handle the probe gives NCCL starts with. Handles go out as HandleHead* and
// come back through it, so an Event and a StepRec are told apart by `type` alone.
struct HandleHead {
  // Read by other threads to validate a parent handle: atomics, relaxed.
  std::atomic<uint32_t> generation{0};  // bumped on every reuse
  std::atomic<uint8_t> type{0};          // abi::EventType bit, kStepInOp, or 0: free
  uint8_t flags = 0;                     // kPosted / kDone / kTimed (proxy steps)
};

// A proxy step kept inside its op's record (per-op storage): NCCL holds at most
// NCCL_STEPS (8) steps of an op alive, at step % 8, so a step costs no pool operation.
constexpr uint8_t kStepInOp = 0x90;
constexpr int kStepSlots = 8;
struct StepRec : HandleHead {
  Event* op = nullptr;  // set once, when the record's block is allocated
  // Copied from the op at start, so that a state or a stop needs no load through `op`:
  // the thread that may count into `slot` directly, and that slot.
  uint64_t owner_id = 0;
  PeerSlot* slot = nullptr;
  uint64_t bytes = 0;
  uint64_t post_tick = 0;  // Ticks() at post, for timed requests
};

struct alignas(64) Event : HandleHead {
  uint8_t dir = 0;                       // proxy op / step: 0 send, 1 recv
  uint8_t channels = 0;                  // collective: kernel channels announced
  bool counts_channels = false;          // collective: complete when `channels` have ended
  Lane* lane = nullptr;                  // the lane whose pool holds this record (null: static)
  Event* next_free = nullptr;
  Event* parent = nullptr;
  uint32_t parent_generation = 0;
  int32_t peer = -1;
  // Proxy op / step.
  PeerSlot* slot = nullptr;  // the counters of (peer, dir) in `lane` (op: never null, see Lane::sink)
  uint64_t bytes = 0;        // step: its size; op (NCCL < 2.27): bytes per step
  uint64_t post_tick = 0;    // step: Ticks() at post, for timed requests
  // Proxy op: its steps. An op stopped while steps are alive is recycled by the last.
  // owner_id: the ThreadState id of the thread that started the op in its own lane; a
  // step reported by that thread counts straight into `slot`.
  uint64_t owner_id = 0;
  StepRec steps[kStepSlots];
  std::atomic<bool> stopped{false};
  // Collective (or p2p).
  std::atomic<int> refs{0};  // self + announced channels + live proxy ops (+ channels, NCCL < 2.27)
  std::atomic<uint8_t> channels_done{0};
  int func = 0;
  uint64_t seq = 0;
  uint64_t coll_bytes = 0;
  uint64_t start_ns = 0;
  std::atomic<uint64_t> gpu_start{UINT64_MAX}, gpu_end{0};  // pTimer bounds over channels
  // Kernel channel.
  uint64_t ch_start = 0, ch_end = 0;
};

enum EventFlags : uint8_t { kPosted = 1, kDone = 2, kTimed = 4 };

class EventPool {
 public:
  static constexpr uint32_t kBlock = 256;
  // May throw std::bad_alloc (its block list is reserved here, never on NCCL's path).
  explicit EventPool(uint32_t capacity) : capacity_(capacity) { blocks_.reserve(capacity / kBlock + 1); }
  EventPool(const EventPool&) = delete;
  EventPool& operator=(const EventPool&) = delete;

  // Owner thread only.
  Event* Pop(Lane* owner) {
    Event* e = free_;
    if (!e) e = Refill(owner);
    if (e) free_ = e->next_free;
    return e;
  }
  void PushLocal(Event* e) {
    Recycle(e);
    e->next_free = free_;
    free_ = e;
  }
  // Any other thread.
  void PushRemote(Event* e);

  uint64_t exhausted() const { return exhausted_.load(std::memory_order_relaxed); }
  uint32_t allocated() const { return allocated_.load(std::memory_order_relaxed); }

 private:
  static void Recycle(Event* e) {
    e->type.store(0, std::memory_order_relaxed);
    // Only the thread handing the record back writes it: no read-modify-write needed.
    e->generation.store(e->generation.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  Event* Refill(Lane* owner);

  Event* free_ = nullptr;                     // owner only
  std::atomic<Event*> remote_{nullptr};       // handed back by other threads
  std::vector<std::unique_ptr<Event[]>> blocks_;  // owner only
  uint32_t capacity_;
  std::atomic<uint32_t> allocated_{0};
  std::atomic<uint64_t> exhausted_{0};
};

}  // namespace aegis::probe
