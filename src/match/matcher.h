// Multi-pattern line matcher. One Vectorscan (Hyperscan) database scans a whole buffer of
// lines in one pass and yields, per line, the rules that may match (a superset): for most
// rules it looks for literals every matching line contains, for the rest it runs their
// pattern relaxed (match/scan_plan.h). Only those few candidate lines are then confirmed
// with RE2 on the message (prefixes stripped), which also extracts the named fields.
// Noise lines cost one pass of the scanner and nothing else.
// A Matcher is immutable and shared by all threads; each thread owns a Scratch. The
// compiled database is kept on disk between processes (match/database_cache.h).
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rules/catalog.h"

struct hs_database;
struct hs_scratch;
namespace re2 {
class RE2;
}

namespace aegis {

// The rules a candidate line may match: a few, held inline (a log storm makes a candidate
// of every line, and none of them allocates), more in a vector.
class CandidateRules {
 public:
  const uint32_t* begin() const { return size_ <= kInline ? inline_ : more_.data(); }
  const uint32_t* end() const { return begin() + size_; }
  const uint32_t* data() const { return begin(); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void push_back(uint32_t rule) {
    if (size_ < kInline) {
      inline_[size_++] = rule;
      return;
    }
    if (size_ == kInline) more_.assign(inline_, inline_ + kInline);
    more_.push_back(rule);
    ++size_;
  }
  bool operator==(const CandidateRules& o) const { return std::equal(begin(), end(), o.begin(), o.end()); }

 private:
  static constexpr size_t kInline = 6;
  uint32_t inline_[kInline] = {};
  size_t size_ = 0;
  std::vector<uint32_t> more_;  // all of them, once there are more than kInline
};

// A line of the scanned buffer that at least one rule may match.
struct CandidateLine {
  uint32_t begin = 0;  // offset of the line's first byte in the buffer
  uint32_t end = 0;    // offset of its '\n' (or the buffer end)
  CandidateRules rules;  // indexes into Catalog::rules(), unordered, no repeats
};

struct RuleMatch {
  uint32_t rule = 0;  // index into Catalog::rules()
  std::vector<std::pair<std::string, std::string>> fields;  // named groups that matched
  std::string_view Field(std::string_view name) const;
};

class Matcher {
 public:
  explicit Matcher(const Catalog& catalog);  // throws CatalogError naming a bad rule
  ~Matcher();
  Matcher(const Matcher&) = delete;
  Matcher& operator=(const Matcher&) = delete;

  class Scratch {
   public:
    ~Scratch();
    Scratch(Scratch&&) noexcept;
    Scratch& operator=(Scratch&&) = delete;

   private:
    friend class Matcher;
    explicit Scratch(hs_scratch* s) : s_(s) {}
    hs_scratch* s_;
  };
  Scratch NewScratch() const;

  // Appends to `out` the candidate lines of `text` (whole lines separated by '\n'), in order.
  void Scan(std::string_view text, Scratch& scratch, std::vector<CandidateLine>& out) const;

  // The highest-priority rule among `candidates` that matches `message`, with its fields.
  bool Confirm(std::string_view message, const std::vector<uint32_t>& candidates, RuleMatch* out) const;

  // Scan + Confirm of a single message; for callers that hold one line.
  bool MatchMessage(std::string_view message, Scratch& scratch, RuleMatch* out) const;

  const Catalog& catalog() const { return catalog_; }

 private:
  const Catalog& catalog_;
  hs_database* db_ = nullptr;
  hs_scratch* proto_scratch_ = nullptr;
  std::vector<std::vector<uint32_t>> expression_rules_;  // by database id: the rules it stands for
  struct Compiled;
  std::vector<std::unique_ptr<Compiled>> compiled_;
};

}  // namespace aegis
