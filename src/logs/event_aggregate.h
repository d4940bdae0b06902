// Evidence aggregated as it is found. Records of one log that are the same evidence become
// one LogEvent with a count: the first record in full (the stages order by its time and
// line), the line and time of the last, and the next few as samples. "The same evidence":
// the same rule with the same decoded class and component, the same captured fields (so
// the same device: GPU, PCI address, NIC, port; and the same remote peer), the same
// launcher rank and NCCL device, times of the same kind (own or inherited, zoned or
// not), and, where a job is known, the same side of its time window. A log that repeats
// one line 800,000 times is then one event, not 800,000, and nothing a stage reads is
// merged away. One definition for every path: the bundle source while it scans, the
// IncidentBuilder for every source, the agent that ships repeats as counts.
// Pure functions; LogAggregator is single-thread.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "logs/event.h"

namespace aegis {

// Records after the first that an event keeps as samples.
constexpr size_t kMaxEventSamples = 4;

// Equal for events that are the same evidence (SameEvidence); the log they come from is
// the caller's to mix in.
uint64_t EvidenceHash(const LogEvent& ev);
bool SameEvidence(const LogEvent& a, const LogEvent& b);

// Adds one more record of the same evidence, after every record `into` stands for: its
// line, its time and its text (kept only while samples are missing).
void AddRecord(LogEvent& into, uint64_t line, double ts, std::string_view text);

// Adds the records `more` stands for to `into` (the same evidence, from the same log, in
// any order): counts add up, the earliest record (by line) speaks for both, the last one's
// line and time are kept, and the first kMaxEventSamples records after the earliest are
// the samples. `more` is left valid but unspecified.
void AddOccurrences(LogEvent& into, LogEvent&& more);

// Chains of entries by hash: the caller keeps the entries (numbered from 0 as inserted)
// and says which one matches. Single-thread.
class EvidenceIndex {
 public:
  static constexpr size_t npos = static_cast<size_t>(-1);
  // The first entry with hash `h` that `same(entry)` accepts, or npos.
  template <typename Same>
  size_t Find(uint64_t h, Same&& same) const {
    auto it = head_.find(h);
    for (size_t i = it == head_.end() ? npos : it->second; i != npos; i = next_[i])
      if (same(i)) return i;
    return npos;
  }
  // Entry number next() (0, 1, 2, ... in insertion order) has hash `h`.
  void Insert(uint64_t h);
  size_t next() const { return next_.size(); }
  void Clear();

 private:
  std::unordered_map<uint64_t, size_t> head_;  // hash -> newest entry with it
  std::vector<size_t> next_;                   // entry -> older entry with its hash, or npos
};

// One log's events aggregated as they arrive (in line order, or any order).
class LogAggregator {
 public:
  // Which side of the job's time window an event's first record is on (job_window.h's
  // WindowSide); events on different sides are kept apart. Empty: no job known.
  using SideOf = std::function<int(const LogEvent&)>;
  explicit LogAggregator(SideOf side = {}) : side_(std::move(side)) {}

  // Adds one event (or an aggregate). Returns the index of its entry, and true when it
  // started a new one: only then is `ev` moved from, so a caller that reuses one event's
  // buffers keeps them for every repeat.
  std::pair<size_t, bool> Add(LogEvent&& ev);

  const std::vector<LogEvent>& entries() const { return entries_; }
  uint64_t records() const { return records_; }  // records added, counts included
  // Hands the entries over (in the order they started) and starts empty.
  std::vector<LogEvent> Take();

 private:
  SideOf side_;
  std::vector<LogEvent> entries_;
  std::vector<int> sides_;  // by entry
  EvidenceIndex index_;
  uint64_t records_ = 0;
  size_t last_ = EvidenceIndex::npos;  // the entry the last event went to
};

}  // namespace aegis
