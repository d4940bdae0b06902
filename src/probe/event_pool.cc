#include "probe/event_pool.h"

#include <new>

namespace aegis::probe {

void EventPool::PushRemote(Event* e) {
  Recycle(e);
  Event* head = remote_.load(std::memory_order_relaxed);
  do e->next_free = head;
  while (!remote_.compare_exchange_weak(head, e, std::memory_order_release, std::memory_order_relaxed));
}

Event* EventPool::Refill(Lane* owner) {
  // Records other threads handed back first: the list is taken whole, so no ABA.
  if (Event* back = remote_.exchange(nullptr, std::memory_order_acquire)) return back;
  const uint32_t have = allocated_.load(std::memory_order_relaxed);
  if (have >= capacity_) {
    exhausted_.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  const uint32_t n = capacity_ - have < kBlock ? capacity_ - have : kBlock;
  std::unique_ptr<Event[]> block(new (std::nothrow) Event[n]);
  if (!block) {
    exhausted_.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  for (uint32_t i = 0; i < n; ++i) {
    block[i].lane = owner;
    for (StepRec& step : block[i].steps) step.op = &block[i];
    block[i].next_free = i + 1 < n ? &block[i + 1] : nullptr;
  }
  Event* first = &block[0];
  blocks_.push_back(std::move(block));
  allocated_.store(have + n, std::memory_order_relaxed);
  return first;
}

}  // namespace aegis::probe
