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
  std::atomic<uint8_t> type{0};          // abi::EventType bit, a StepState, or 0: free
  uint8_t flags = 0;                     // a step in a pool event: kPosted / kDone / kTimed
};

// A proxy step kept inside its op's record (per-op storage): NCCL holds at most
// NCCL_STEPS (8) steps of an op alive, at step % 8, so a step costs no pool operation.
// Its `type` is the state of its request, so that a state or a stop decides what to do
// from one byte: started, posted (timed or not), done. The values are apart from every
// abi::EventType bit; kStepStarted and kStepDone differ in bit 0 only, so do the two
// posted states.
enum StepState : uint8_t {
  kStepFree = 0,
  kStepStarted = 0x90,      // no request posted yet
  kStepDone = 0x91,         // posted and completed: counted, nothing left to do at its stop
  kStepPosted = 0x92,       // posted; completes at a done state or at its stop
  kStepPostedTimed = 0x93,  // posted and timed (post_tick): its completion goes to the ring
};
constexpr bool IsStepInOp(uint8_t type) { return (type & 0xfc) == kStepStarted; }
constexpr int kStepSlots = 8;  // a power of two: the slot is step % 8, a mask
static_assert((kStepSlots & (kStepSlots - 1)) == 0);

struct StepRec : HandleHead {
  Event* op = nullptr;     // set once, when the record's block is allocated
  uint64_t bytes = 0;      // the request's size (NCCL < 2.27: the op's chunk size)
  uint64_t post_tick = 0;  // Ticks() at post, for timed requests
};
static_assert(sizeof(StepRec) == 32);

// The fields a step's start, states and stop read from its op come first: one cache line
// with the op's header; the steps follow, two to a line.
struct alignas(64) Event : HandleHead {
  uint8_t dir = 0;                 // proxy op / step: 0 send, 1 recv
  uint8_t channels = 0;            // collective: kernel channels announced
  // Proxy op: the ThreadToken() of the thread that started it in its own lane; 0 for any
  // other record, and for an op once stopped or once that thread has given its lanes up.
  // A step started, reported and stopped by the owner counts straight into `slot`; that
  // `owner` matches the caller also says that the record is a live op, so the fast path
  // reads nothing else of it.
  std::atomic<uintptr_t> owner{0};
  PeerSlot* slot = nullptr;        // the counters of (peer, dir) in `lane` (op: never null, see Lane::sink)
  std::atomic<bool> stopped{false};  // op: stopped while steps were alive; recycled by the last
  bool counts_channels = false;    // collective: complete when `channels` have ended
  int32_t peer = -1;
  uint64_t bytes = 0;              // op (NCCL < 2.27): bytes per step; step: its size
  Lane* lane = nullptr;            // the lane whose pool holds this record (null: static)
  Event* next_free = nullptr;
  Event* parent = nullptr;
  uint32_t parent_generation = 0;
  // A proxy step in a pool event (its op's slot was taken, or the op is not ours).
  uint64_t post_tick = 0;          // Ticks() at post, for timed requests
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
  // Proxy op: its steps. An op stopped while steps are alive is recycled by the last.
  alignas(64) StepRec steps[kStepSlots];
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
  // Owner only: f(record) for every record allocated, free or not.
  template <typename F>
  void ForEach(F&& f) {
    uint32_t left = allocated_.load(std::memory_order_relaxed);
    for (auto& block : blocks_)
      for (uint32_t i = 0; i < kBlock && left > 0; ++i, --left) f(block[i]);
  }

  uint64_t exhausted() const { return exhausted_.load(std::memory_order_relaxed); }
  uint32_t allocated() const { return allocated_.load(std::memory_order_relaxed); }

 private:
  static void Recycle(Event* e) {
    e->type.store(0, std::memory_order_relaxed);
    e->owner.store(0, std::memory_order_relaxed);  // only a live, unstopped op has an owner
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
