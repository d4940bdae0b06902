#include "rules_check/samples_check.h"

#include <algorithm>

#include "common/text.h"
#include "logs/line_prefix.h"

namespace aegis {

namespace {

// Where a decode case's sample goes: "" when `c` decides it, else why not.
std::string DecodeSampleProblem(const Matcher& matcher, Matcher::Scratch& scratch, XidTable table, const XidInfo* entry,
                                const XidDecode& c, const std::string& sample) {
  const auto& rules = matcher.catalog().rules();
  LinePrefix p = ParseLinePrefix(sample, 2026);
  std::string_view msg = std::string_view(sample).substr(p.message_offset);
  RuleMatch m;
  if (!matcher.MatchMessage(msg, scratch, &m)) return "no rule matches it";
  const Rule& rule = rules[m.rule];
  if (rule.xid_table != table)
    return "rule '" + rule.id + "' takes it, not an " + std::string(ToString(table)) + " rule";
  auto number = ParseInt(m.Field("xid"));
  if (!number) return "rule '" + rule.id + "' captures no number";
  const int n = static_cast<int>(*number);
  if (entry && n != entry->xid) return "it is " + std::string(ToString(table)) + " " + std::to_string(n) + ", not " +
                                       std::to_string(entry->xid);
  if (!entry && !c.AppliesTo(n)) return "the case does not apply to " + std::string(ToString(table)) + " " + std::to_string(n);
  XidDecision d = matcher.catalog().ClassifyXid(table, n, msg, rule.line_class, rule.component);
  if (d.decode == &c) return "";
  return d.decode ? "the case at " + d.decode->where + " decides it first" : "the pattern does not match it";
}

void CheckCase(const Matcher& matcher, Matcher::Scratch& scratch, XidTable table, const XidInfo* entry,
               const XidDecode& c, bool require_samples, std::vector<std::string>& problems) {
  const std::string what = c.where + ": decode case '" + c.pattern + "'";
  if (c.samples.empty() && require_samples) problems.push_back(what + " has no sample");
  for (const auto& sample : c.samples)
    if (std::string why = DecodeSampleProblem(matcher, scratch, table, entry, c, sample); !why.empty())
      problems.push_back(what + " does not decide its sample (" + why + "): " + sample);
}

}  // namespace

std::vector<std::string> CheckDecodeSamples(const Matcher& matcher, bool require_samples) {
  std::vector<std::string> problems;
  auto scratch = matcher.NewScratch();
  const XidCatalogs& xids = matcher.catalog().xid_catalogs();
  for (XidTable t : {XidTable::kXid, XidTable::kSxid}) {
    const XidTableData& table = xids.table(t);
    for (const auto& [number, entry] : table.entries)
      for (const auto& c : entry.decode) CheckCase(matcher, scratch, t, &entry, c, require_samples, problems);
    for (const auto& c : table.common_decode) CheckCase(matcher, scratch, t, nullptr, c, require_samples, problems);
  }
  return problems;
}

std::vector<std::string> CheckRuleSamples(const Matcher& matcher, bool require_samples) {
  std::vector<std::string> problems;
  auto scratch = matcher.NewScratch();
  const auto& rules = matcher.catalog().rules();
  for (uint32_t i = 0; i < rules.size(); ++i) {
    const Rule& r = rules[i];
    if (r.samples.empty() && require_samples) problems.push_back(r.source + ": rule '" + r.id + "' has no sample");
    for (const auto& sample : r.samples) {
      LinePrefix p = ParseLinePrefix(sample, 2026);
      std::string_view msg = std::string_view(sample).substr(p.message_offset);
      std::vector<CandidateLine> lines;
      matcher.Scan(sample, scratch, lines);
      bool scanned = std::any_of(lines.begin(), lines.end(), [&](const CandidateLine& l) {
        return std::find(l.rules.begin(), l.rules.end(), i) != l.rules.end();
      });
      RuleMatch m;
      bool confirmed = matcher.Confirm(msg, {i}, &m);
      if (!scanned || !confirmed)
        problems.push_back(r.source + ": rule '" + r.id + "' does not match its sample (" +
                           (scanned ? "pattern" : "scanner") + "): " + sample);
    }
  }
  for (auto& p : CheckDecodeSamples(matcher, require_samples)) problems.push_back(std::move(p));
  return problems;
}

}  // namespace aegis
