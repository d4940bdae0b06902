// The class and component a matched rule gives a line: the rule's own; for an Xid rule,
// the Xid catalogue's for the captured number and the message; for a learned rule, the
// line model's reading of the text (learn/line_model.h). The agent's scanner and the
// controller's check of a posted event (controller/event_classes.h) both call this, so
// they cannot disagree on a line. Stateless; safe from any thread.
#pragma once
#include <string_view>

#include "common/vocabulary.h"
#include "rules/catalog.h"

namespace aegis {

struct RuleReading {
  LineClass line_class = LineClass::kNone;  // kNone from a learned rule: the model saw nothing
  Component component = Component::kHost;
};

// `xid` is the number an Xid rule captured (ignored for other rules); `text` the line's
// message as events carry it.
RuleReading ReadLineByRule(const Catalog& catalog, const Rule& rule, int xid, std::string_view text);

}  // namespace aegis
