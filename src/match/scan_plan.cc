#include "match/scan_plan.h"

#include <hs/hs.h>

#include <cctype>
#include <cstdio>
#include <map>

#include "common/fixed_int.h"
#include "match/literal_cover.h"

namespace aegis {

namespace {

// A rule's pattern as the scanner runs it: a leading '^' (message start) is dropped since
// the scanner sees the raw line, of which the message is a suffix.
std::string ScannerPattern(std::string_view p) {
  std::string s(p);
  if (s.rfind("(?i)^", 0) == 0) s.erase(4, 1);
  else if (s.rfind("^", 0) == 0) s.erase(0, 1);
  return s;
}

// A relaxed expression that opens with a word boundary before a group of words, "\b(?:warn|
// err|...)" (generic-unknown-line's list), is scanned at about two thirds of the speed of
// the same group after a byte that is not a word character: Vectorscan checks the
// assertion at every byte. It is planned as that byte and the group, and, for words at the
// very start of the text, where no byte precedes them, as the group anchored there (\A),
// which Vectorscan tries once. The two stand for the same rule and match the same lines.
// Only when every alternative of the group starts with a letter or a digit, where the
// boundary means exactly "no word character before". Empty when the expression is not so.
std::vector<std::string> WordStartExpressions(std::string_view p) {
  std::string_view flags;
  if (p.rfind("(?i)", 0) == 0) {
    flags = p.substr(0, 4);
    p.remove_prefix(4);
  }
  if (p.rfind("\\b(?:", 0) != 0) return {};
  const std::string_view group = p.substr(2);  // "(?:...)..."
  int depth = 0;
  bool alternative_starts = true;
  for (size_t i = 0; i < group.size(); ++i) {
    const char c = group[i];
    if (i == 0) {  // the group's own "(?:"
      depth = 1;
      i += 2;
      continue;
    }
    if (alternative_starts && depth == 1 && !std::isalnum(static_cast<unsigned char>(c))) return {};
    alternative_starts = false;
    if (c == '\\') {
      ++i;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      if (--depth == 0) break;
    } else if (c == '|' && depth == 1) {
      alternative_starts = true;
    } else if (c == '[') {
      return {};  // a class could hold anything; keep the expression as it is
    }
  }
  if (depth != 0) return {};
  return {std::string(flags) + "[^A-Za-z0-9_]" + std::string(group), std::string(flags) + "\\A" + std::string(group)};
}

// A literal as a Vectorscan expression: every byte but letters, digits and space escaped.
std::string LiteralExpression(std::string_view literal) {
  std::string out;
  for (unsigned char c : literal) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ' ') {
      out += static_cast<char>(c);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return out;
}

// The literals that cover a rule: its prefilter's, where its author wrote one to name what
// is rare in a line of this kind, else its pattern's (both are necessary for a match).
std::vector<std::string> RuleCover(const Rule& rule) {
  if (!rule.prefilter.empty())
    if (auto cover = LiteralCover(rule.prefilter, kMinCoverLiteral); !cover.empty()) return cover;
  return LiteralCover(rule.pattern, kMinCoverLiteral);
}

}  // namespace

ScanPlan PlanScan(const std::vector<Rule>& rules) {
  ScanPlan plan;
  // Expressions are shared: a literal several rules need, or one prefilter written for
  // several rules (NCCL's error-return traces), is scanned for once.
  std::map<std::pair<std::string, unsigned>, size_t> at;
  auto stand_for = [&](std::string pattern, unsigned flags, uint32_t rule) {
    auto [it, added] = at.emplace(std::make_pair(std::move(pattern), flags), plan.expressions.size());
    if (added) plan.expressions.push_back({it->first.first, flags, {}});
    auto& owners = plan.expressions[it->second].rules;
    if (owners.empty() || owners.back() != rule) owners.push_back(rule);
  };
  for (size_t i = 0; i < rules.size(); ++i) {
    const auto rule = static_cast<uint32_t>(i);
    const std::vector<std::string> cover = RuleCover(rules[i]);
    if (cover.empty()) {
      const std::string relaxed = ScannerPattern(rules[i].prefilter.empty() ? rules[i].pattern : rules[i].prefilter);
      std::vector<std::string> split = WordStartExpressions(relaxed);
      if (split.empty()) split.push_back(relaxed);
      for (auto& e : split) stand_for(std::move(e), HS_FLAG_MULTILINE | HS_FLAG_PREFILTER, rule);
    }
    // Cover literals are lower case and rules compare case as they please: compared
    // without case here, the rule's own pattern decides.
    for (const auto& literal : cover) stand_for(LiteralExpression(literal), HS_FLAG_CASELESS, rule);
  }
  return plan;
}

std::vector<std::string> PlanKeyParts(const std::vector<Rule>& rules) {
  // The version names how PlanScan and LiteralCover decide: a change to either that
  // plans the same rules differently must change it, or processes would load old plans.
  std::vector<std::string> parts = {"scan-plan-4", std::to_string(kMinCoverLiteral), std::to_string(HS_MODE_BLOCK)};
  for (const auto& r : rules) {
    parts.push_back(r.pattern);
    parts.push_back(r.prefilter);
  }
  return parts;
}

std::string ScanPlan::Serialize() const {
  std::string out;
  AppendU32(&out, static_cast<uint32_t>(expressions.size()));
  for (const auto& e : expressions) {
    AppendU32(&out, static_cast<uint32_t>(e.pattern.size()));
    out += e.pattern;
    AppendU32(&out, e.flags);
    AppendU32(&out, static_cast<uint32_t>(e.rules.size()));
    for (uint32_t r : e.rules) AppendU32(&out, r);
  }
  return out;
}

std::optional<ScanPlan> ScanPlan::Parse(std::string_view in, size_t rule_count) {
  ScanPlan plan;
  uint32_t n = 0;
  if (!ConsumeU32(&in, &n) || n > in.size()) return std::nullopt;  // each takes several bytes
  plan.expressions.resize(n);
  for (auto& e : plan.expressions) {
    uint32_t len = 0, count = 0;
    if (!ConsumeU32(&in, &len) || len > in.size()) return std::nullopt;
    e.pattern.assign(in.substr(0, len));
    in.remove_prefix(len);
    if (!ConsumeU32(&in, &e.flags) || !ConsumeU32(&in, &count) || count > in.size() / 4) return std::nullopt;
    e.rules.resize(count);
    for (auto& r : e.rules)
      if (!ConsumeU32(&in, &r) || r >= rule_count) return std::nullopt;
    if (e.rules.empty()) return std::nullopt;
  }
  if (!in.empty()) return std::nullopt;
  return plan;
}

}  // namespace aegis
