// What the matcher's one Vectorscan database looks for, rule by rule: the literals every
// line of the rule contains (match/literal_cover.h) when it has long ones, otherwise the
// rule's pattern (or its `prefilter`) relaxed for the scanner. Literals are shared: one
// expression may stand for several rules. Literal sets are what Vectorscan scans fastest;
// an expression runs an automaton over the bytes it cannot rule out.
// A plan is kept with the compiled database (match/database_cache.h), so it is computed
// once per rule set, not once per process.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rules/catalog.h"

namespace aegis {

struct ScanExpression {
  std::string pattern;          // as Vectorscan compiles it
  unsigned flags = 0;           // HS_FLAG_*
  std::vector<uint32_t> rules;  // indexes into Catalog::rules() this expression stands for
};

struct ScanPlan {
  std::vector<ScanExpression> expressions;  // the database's ids are the indexes here

  std::string Serialize() const;
  // nullopt when `bytes` is not a plan for `rule_count` rules.
  static std::optional<ScanPlan> Parse(std::string_view bytes, size_t rule_count);
};

// Literals shorter than this are too common on noise lines to stand for a rule.
constexpr size_t kMinCoverLiteral = 8;

ScanPlan PlanScan(const std::vector<Rule>& rules);

// Everything PlanScan and the compile depend on, for the cache key.
std::vector<std::string> PlanKeyParts(const std::vector<Rule>& rules);

}  // namespace aegis
