#include "logs/event_aggregate.h"

#include <algorithm>
#include <limits>

#include "common/text.h"

namespace aegis {

uint64_t EvidenceHash(const LogEvent& ev) {
  // The small values in one word; strings hashed on top of it.
  const uint64_t small = static_cast<uint64_t>(ev.line_class) | static_cast<uint64_t>(ev.component) << 4 |
                         static_cast<uint64_t>(ev.ts_exact) << 12 | static_cast<uint64_t>(ev.ts_zoned) << 13 |
                         static_cast<uint64_t>(ev.cascade) << 14 | static_cast<uint64_t>(ev.yields_to_user) << 15 |
                         static_cast<uint64_t>(static_cast<uint16_t>(ev.nccl_device)) << 16 |
                         static_cast<uint64_t>(static_cast<uint32_t>(ev.rank)) << 32;
  uint64_t h = HashBytes(ev.rule_id, small ^ static_cast<uint64_t>(static_cast<uint32_t>(ev.xid)) * 0x2545F4914F6CDD1Dull);
  if (!ev.config_key.empty()) h = HashBytes(ev.config_key, h);
  for (const auto& [k, v] : ev.fields) h = HashBytes(v, HashBytes(k, h));
  return h;
}

bool SameEvidence(const LogEvent& a, const LogEvent& b) {
  return a.line_class == b.line_class && a.component == b.component && a.rank == b.rank &&
         a.nccl_device == b.nccl_device && a.xid == b.xid && a.ts_exact == b.ts_exact && a.ts_zoned == b.ts_zoned &&
         a.cascade == b.cascade && a.yields_to_user == b.yields_to_user && a.rule_id == b.rule_id &&
         a.config_key == b.config_key && a.fields == b.fields;
}

namespace {

uint64_t SaturatingAdd(uint64_t a, uint64_t b) {
  return a > std::numeric_limits<uint64_t>::max() - b ? std::numeric_limits<uint64_t>::max() : a + b;
}

}  // namespace

void AddRecord(LogEvent& into, uint64_t line, double ts, std::string_view text) {
  if (into.samples.size() < kMaxEventSamples) into.samples.push_back({line, std::string(text)});
  into.count = SaturatingAdd(into.count, 1);
  into.latest_line = line;
  into.latest_ts = ts;
}

void AddOccurrences(LogEvent& into, LogEvent&& more) {
  const uint64_t count = SaturatingAdd(into.count, more.count);
  uint64_t latest_line = into.LatestLine();
  double latest_ts = into.LatestTs();
  if (more.LatestLine() > latest_line) {
    latest_line = more.LatestLine();
    latest_ts = more.LatestTs();
  }
  // The earliest record speaks for both (its time and line order the stages' work).
  if (more.line < into.line) std::swap(into, more);
  const uint64_t sampled_to = into.samples.empty() ? into.line : into.samples.back().line;
  if (more.count == 1 && more.line > sampled_to && more.line >= latest_line) {
    // The common case, a repeat after every record: a copy of its text only while samples
    // are missing, so a storm costs no allocation per record.
    AddRecord(into, more.line, more.ts, more.text);
    into.count = count;
    return;
  }
  if (more.count == 1 && more.line > sampled_to) {
    if (into.samples.size() < kMaxEventSamples) into.samples.push_back({more.line, more.text});
  } else if (more.line != into.line || !more.samples.empty()) {
    std::vector<EventSample> all = std::move(into.samples);
    if (more.line != into.line) all.push_back({more.line, std::move(more.text)});
    for (auto& s : more.samples)
      if (s.line != into.line) all.push_back(std::move(s));
    std::stable_sort(all.begin(), all.end(), [](const EventSample& a, const EventSample& b) { return a.line < b.line; });
    all.erase(std::unique(all.begin(), all.end(), [](const EventSample& a, const EventSample& b) { return a.line == b.line; }),
              all.end());
    if (all.size() > kMaxEventSamples) all.resize(kMaxEventSamples);
    into.samples = std::move(all);
  }
  into.count = count;
  into.latest_line = latest_line;
  into.latest_ts = latest_ts;
}

void EvidenceIndex::Insert(uint64_t h) {
  const size_t entry = next_.size();
  auto [it, fresh] = head_.try_emplace(h, entry);
  next_.push_back(fresh ? npos : it->second);
  it->second = entry;
}

void EvidenceIndex::Clear() {
  head_.clear();
  next_.clear();
}

std::pair<size_t, bool> LogAggregator::Add(LogEvent&& ev) {
  records_ = SaturatingAdd(records_, ev.count);
  const int side = side_ ? side_(ev) : 0;
  auto same = [&](size_t e) { return sides_[e] == side && SameEvidence(entries_[e], ev); };
  // A storm repeats the evidence it just did: that entry is tried before any hashing.
  size_t i = last_ < entries_.size() && same(last_) ? last_ : EvidenceIndex::npos;
  const uint64_t h = i == EvidenceIndex::npos ? EvidenceHash(ev) : 0;
  if (i == EvidenceIndex::npos) i = index_.Find(h, same);
  if (i != EvidenceIndex::npos) {
    AddOccurrences(entries_[i], std::move(ev));
    last_ = i;
    return {i, false};
  }
  index_.Insert(h);
  entries_.push_back(std::move(ev));
  sides_.push_back(side);
  last_ = entries_.size() - 1;
  return {last_, true};
}

std::vector<LogEvent> LogAggregator::Take() {
  std::vector<LogEvent> out = std::move(entries_);
  entries_.clear();
  sides_.clear();
  index_.Clear();
  records_ = 0;
  last_ = EvidenceIndex::npos;
  return out;
}

}  // namespace aegis
