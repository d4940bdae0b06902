#include "probe/event_pool.h"

namespace aegis::probe {

namespace {
int ThreadShard(int shards) {
  static std::atomic<int> next{0};
  thread_local const int shard = next.fetch_add(1, std::memory_order_relaxed);
  return shard % shards;
}
}  // namespace

EventPool::EventPool(uint32_t capacity)
    : capacity_(capacity), events_(new Event[capacity]), next_(new std::atomic<uint32_t>[capacity]) {
  // Each shard starts with one contiguous block of the events.
  for (int k = 0; k < kShards; ++k) {
    uint32_t prev = 0;  // index + 1 of the element above, 0 for the bottom
    const uint32_t begin = capacity / kShards * static_cast<uint32_t>(k);
    const uint32_t end = k + 1 == kShards ? capacity : capacity / kShards * static_cast<uint32_t>(k + 1);
    for (uint32_t i = begin; i < end; ++i) {
      next_[i].store(prev, std::memory_order_relaxed);
      prev = i + 1;
    }
    heads_[k].v.store(prev, std::memory_order_relaxed);
  }
}

Event* EventPool::PopFrom(Head& h) {
  uint64_t head = h.v.load(std::memory_order_acquire);
  while (true) {
    const uint32_t top = static_cast<uint32_t>(head);
    if (top == 0) return nullptr;
    const uint32_t next = next_[top - 1].load(std::memory_order_relaxed);
    const uint64_t tagged = ((head >> 32) + 1) << 32 | next;
    if (h.v.compare_exchange_weak(head, tagged, std::memory_order_acq_rel, std::memory_order_acquire))
      return &events_[top - 1];
  }
}

Event* EventPool::Pop() {
  const int own = ThreadShard(kShards);
  for (int k = 0; k < kShards; ++k)
    if (Event* e = PopFrom(heads_[(own + k) % kShards])) return e;
  exhausted_.fetch_add(1, std::memory_order_relaxed);
  return nullptr;
}

void EventPool::Push(Event* e) {
  const uint32_t index = static_cast<uint32_t>(e - events_.get());
  e->type = 0;
  ++e->generation;
  Head& h = heads_[ThreadShard(kShards)];
  uint64_t head = h.v.load(std::memory_order_relaxed);
  while (true) {
    next_[index].store(static_cast<uint32_t>(head), std::memory_order_relaxed);
    const uint64_t tagged = ((head >> 32) + 1) << 32 | (index + 1);
    if (h.v.compare_exchange_weak(head, tagged, std::memory_order_release, std::memory_order_relaxed)) return;
  }
}

}  // namespace aegis::probe
