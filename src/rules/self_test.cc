#include "rules/self_test.h"

#include <algorithm>

#include "logs/line_prefix.h"

namespace aegis {

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
  return problems;
}

}  // namespace aegis
