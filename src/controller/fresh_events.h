// The events this controller decoded at ingest, kept for its decision loop until the loop
// reads them back from the store, so that an event is decoded once on its way from an
// agent to a verdict (the loop still reads every event from the store, in commit order:
// what another instance ingested, or what was stored before a restart, is decoded there).
// An entry is used only for a stored event with the same id, node and body text, so what
// the loop feeds is always what the store holds. Bounded by bytes: when full, the oldest
// entries go (the loop then decodes those itself). Thread-safe: ingest threads Put and
// Forget, the loop Takes.
#pragma once
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "wire/event.h"
#include "store/records.h"

namespace aegis::controller {

class FreshEvents {
 public:
  explicit FreshEvents(size_t max_bytes = size_t{64} << 20) : max_bytes_(max_bytes) {}

  // Keeps `decoded` as the decoding of `stored` (its id, node and body).
  void Put(const store::Event& stored, std::shared_ptr<const wire::DecodedEvent> decoded);
  // Drops the entry of an event id (its batch was not stored).
  void Forget(const std::string& id);
  // The decoding kept for this stored event, removed from the cache; null when none
  // matches its id, node and body.
  std::shared_ptr<const wire::DecodedEvent> Take(const store::Event& stored);
  void Clear();

  size_t size() const;

 private:
  struct Entry {
    std::string node;
    std::string body;
    std::shared_ptr<const wire::DecodedEvent> decoded;
    uint64_t order = 0;  // Put order: which entry is the oldest
  };
  void EraseLocked(std::unordered_map<std::string, Entry>::iterator it);

  const size_t max_bytes_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;
  std::deque<std::pair<uint64_t, std::string>> age_;  // (order, id), oldest first; stale pairs skipped
  uint64_t next_order_ = 0;
  size_t bytes_ = 0;
};

}  // namespace aegis::controller
