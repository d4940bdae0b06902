#include "controller/fresh_events.h"

namespace aegis::controller {

void FreshEvents::Put(const store::Event& stored, std::shared_ptr<const wire::DecodedEvent> decoded) {
  const size_t cost = stored.id.size() + stored.node.size() + 2 * stored.body.size();  // the body, twice: text and decoding
  if (cost > max_bytes_) return;
  std::lock_guard<std::mutex> l(mu_);
  if (auto it = entries_.find(stored.id); it != entries_.end()) EraseLocked(it);
  while (bytes_ + cost > max_bytes_ && !age_.empty()) {  // the oldest go
    auto oldest = entries_.find(age_.front().second);
    if (oldest == entries_.end()) age_.pop_front();
    else EraseLocked(oldest);
  }
  const uint64_t order = next_order_++;
  entries_.emplace(stored.id, Entry{stored.node, stored.body, std::move(decoded), order});
  age_.emplace_back(order, stored.id);
  bytes_ += cost;
}

void FreshEvents::Forget(const std::string& id) {
  std::lock_guard<std::mutex> l(mu_);
  if (auto it = entries_.find(id); it != entries_.end()) EraseLocked(it);
}

std::shared_ptr<const wire::DecodedEvent> FreshEvents::Take(const store::Event& stored) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = entries_.find(stored.id);
  if (it == entries_.end()) return nullptr;
  std::shared_ptr<const wire::DecodedEvent> out;
  if (it->second.node == stored.node && it->second.body == stored.body) out = std::move(it->second.decoded);
  EraseLocked(it);  // read back either way: the stored event is what counts from now on
  return out;
}

void FreshEvents::Clear() {
  std::lock_guard<std::mutex> l(mu_);
  entries_.clear();
  age_.clear();
  bytes_ = 0;
}

size_t FreshEvents::size() const {
  std::lock_guard<std::mutex> l(mu_);
  return entries_.size();
}

void FreshEvents::EraseLocked(std::unordered_map<std::string, Entry>::iterator it) {
  bytes_ -= it->first.size() + it->second.node.size() + 2 * it->second.body.size();
  entries_.erase(it);
  // Entries mostly leave in the order they came (the loop reads in commit order): the
  // age list's front is dropped as its entries go, so that it stays as short as the map.
  while (!age_.empty()) {
    auto front = entries_.find(age_.front().second);
    if (front != entries_.end() && front->second.order == age_.front().first) break;
    age_.pop_front();
  }
}

}  // namespace aegis::controller
