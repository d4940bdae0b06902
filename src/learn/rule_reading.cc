#include "learn/rule_reading.h"

#include "learn/line_model.h"

namespace aegis {

RuleReading ReadLineByRule(const Catalog& catalog, const Rule& rule, int xid, std::string_view text) {
  RuleReading r{rule.line_class, ParseComponent(rule.component).value_or(Component::kHost)};
  if (rule.xid_table != Rule::XidTable::kNone) {
    XidDecision d = catalog.ClassifyXid(rule.xid_table, xid, text, rule.line_class, rule.component);
    r.line_class = d.line_class;
    r.component = ParseComponent(d.component).value_or(r.component);
  }
  if (rule.learned) {
    r.line_class = LearnedLineClass(text, rule.line_class);
    r.component = ParseComponent(LearnedComponent(r.line_class, rule.line_class, rule.component)).value_or(r.component);
  }
  return r;
}

}  // namespace aegis
