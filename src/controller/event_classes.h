// How bad a posted log line is, decided by the controller's own rule catalogue rather than
// taken from the agent: an agent names the rule that matched its line (and, for an Xid,
// the number and the record's text); the controller sets the class, component and the
// rule's flags (cascade, yields_to_user, fallback, config key) from that rule, as the
// agent's scanner does (logs/scanner.cc): an Xid's class from the Xid / SXid catalogue
// for its number and text, a learned rule's from the line model's reading of the text
// (learn/line_model.h), any other rule's its own. A rule whose class is inherited
// from the device's previous report (`inherit`) keeps the agent's class and component:
// only the agent saw that report. A rule this catalogue does not have is unknown: the
// event is refused (an agent started with --rules the controller lacks must be matched
// by giving the controller the same directory). Pure, thread-safe.
#pragma once
#include <string_view>

#include "logs/event.h"
#include "rules/catalog.h"

namespace aegis::controller {

enum class ClassCheck {
  kAgreed,       // the agent's class and component were the catalogue's
  kCorrected,    // they were not: the event now carries the catalogue's
  kUnknownRule,  // no such rule here: the event is left as it was, to be refused
};

ClassCheck ApplyCatalogClass(const Catalog& catalog, LogEvent* event);

}  // namespace aegis::controller
