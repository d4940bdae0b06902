#include "controller/event_classes.h"

#include "common/text.h"
#include "common/vocabulary.h"
#include "learn/rule_reading.h"

namespace aegis::controller {

namespace {

// The scanner renames an Xid rule's events "xid-N" (N the number it captured).
const Rule* XidRule(const Catalog& catalog, std::string_view id, int* number) {
  if (!StartsWith(id, "xid-")) return nullptr;
  auto n = ParseInt(id.substr(4));
  if (!n || *n < -1 || *n > 1'000'000) return nullptr;  // -1: the rule captured no number
  for (const Rule& r : catalog.rules())
    if (r.xid_table == Rule::XidTable::kXid) {
      *number = static_cast<int>(*n);
      return &r;
    }
  return nullptr;
}

}  // namespace

ClassCheck ApplyCatalogClass(const Catalog& catalog, LogEvent* e) {
  int number = e->xid;
  const Rule* rule = catalog.FindRule(e->rule_id);
  if (!rule) rule = XidRule(catalog, e->rule_id, &number);
  if (!rule) return ClassCheck::kUnknownRule;
  LineClass line_class = e->line_class;
  Component component = e->component;
  if (!rule->inherit) {
    const RuleReading reading = ReadLineByRule(catalog, *rule, number, e->text);
    line_class = reading.line_class;
    component = reading.component;
    if (rule->learned && line_class == LineClass::kNone) line_class = LineClass::kHint;  // posted anyway: worth recording
  }
  const bool agreed = line_class == e->line_class && component == e->component && e->cascade == rule->cascade &&
                      e->yields_to_user == rule->yields_to_user && e->fallback == rule->fallback &&
                      e->config_key == rule->config_key;
  e->line_class = line_class;
  e->component = component;
  e->cascade = rule->cascade;
  e->yields_to_user = rule->yields_to_user;
  e->fallback = rule->fallback;
  e->config_key = rule->config_key;
  return agreed ? ClassCheck::kAgreed : ClassCheck::kCorrected;
}

}  // namespace aegis::controller
