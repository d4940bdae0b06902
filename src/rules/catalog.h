// The rule catalogue: every log rule, the Xid and NVSwitch SXid catalogues
// (rules/xid_catalog.h) and the configuration checklist, as loaded from YAML data files
// (the built-in ones under rules/, then an operator's --rules DIR, whose entries replace
// built-in ones with the same id or number, or add new ones). Loading validates
// everything (classes, components, patterns, buckets) and fails with a message naming the
// file and the rule; a loaded Catalog is immutable and thread-safe.
#pragma once
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rules/line_class.h"
#include "rules/xid_catalog.h"

namespace aegis {

// The highest priority a fallback rule may have: below every specific rule (whose default
// is 50 and whose generic catch-alls start at 10).
inline constexpr int kMaxFallbackPriority = 10;
// A rule's priority when it gives none. Below it are the wrappers and catch-alls, whose
// line the lines after it explain ("terminate called ..." and its what() line).
inline constexpr int kDefaultPriority = 50;

struct Rule {
  std::string id;
  LineClass line_class = LineClass::kNone;
  // class "xid" / "sxid": the Xid (or NVSwitch SXid) catalogue decides class and
  // component from the captured `xid` number and the message (Catalog::ClassifyXid);
  // line_class is then kHint, the class of a number the catalogue does not know.
  using XidTable = aegis::XidTable;
  XidTable xid_table = XidTable::kNone;
  std::string component;        // gpu, nvlink, pcie, nic, link, cpu, memory, power, host, config, ...
  std::string pattern;          // RE2 syntax, matched against the message (prefixes stripped)
  std::string prefilter;        // optional cheaper pattern for the scanner; must match every line `pattern` does
  // Optional RE2: a message it matches is not this rule's, though `pattern` matches it (a
  // catch-all for error words that must leave a line logged at INFO level alone). RE2 has
  // no negative lookahead; this is that, checked only on the few lines the pattern matches.
  std::string unless;
  int priority = kDefaultPriority;  // the highest-priority matching rule classifies a line
  std::string reason;           // why the line has this class, for people
  std::string config_key;       // config rules: the facts.json key to repair
  bool cascade = false;         // dist symptom (timeouts, remote exits): confirms, never locates
  bool fold_traceback = false;  // the line ends a Python traceback: fold the traceback into it
  bool inherit = false;         // detail line: takes the class of the previous event on the same device
  bool yields_to_user = false;  // critical wrapper ("unhandled cuda error") that a nearby job or config error explains
  // Lower-confidence catch-all (an NCCL WARN, a kernel error no specific rule knows): it
  // classifies what nothing else does, so a decision resting on it is less certain. Never
  // critical, and at priority kMaxFallbackPriority or less so that every specific rule wins.
  bool fallback = false;
  // The line model decides (learn/line_model.h): a fallback that reads only words hands its
  // line to a classifier trained on the development corpus; its own class stays when the
  // model is unsure, and class none then means no event.
  bool learned = false;
  std::vector<std::string> samples;  // real lines this rule must match
  std::string source;           // file it came from
  bool from_operator = false;   // loaded from --rules: wins ties of priority with built-in rules
};

// One entry of the configuration checklist run over facts.json (ConfigCheck).
struct ConfigCheck {
  std::string id;
  std::string key;          // dotted facts key; '*' matches one key segment (nic.*.state)
  std::string kind;         // "agree": same value on every host; "expect": see below
  std::vector<std::string> one_of;  // expect: allowed values (case-insensitive)
  double min = std::numeric_limits<double>::quiet_NaN();  // expect: numeric lower bound
  std::string reason;
};

// One metric the outlier analyzer reads (rules/metrics.yaml).
struct MetricSpec {
  std::string name;
  bool counter = false;    // cumulative: converted to a per-second rate, drops are resets
  bool high_is_bad = true;
  std::string component;
  double min_delta = 0;    // smallest deviation from the center that can count
  std::string reason;
};

class CatalogError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Catalog {
 public:
  // Built-in files plus, in order, each operator directory (every *.yaml in it, recursively).
  static Catalog Load(const std::vector<std::string>& operator_dirs);
  // From explicit (name, yaml text) sources, in order; used by Load and by tests. Sources
  // from index first_operator_source on are the operator's.
  static Catalog FromSources(const std::vector<std::pair<std::string, std::string>>& sources,
                             size_t first_operator_source = SIZE_MAX);

  const std::vector<Rule>& rules() const { return rules_; }
  const std::vector<ConfigCheck>& config_checks() const { return checks_; }
  const std::vector<MetricSpec>& metrics() const { return metrics_; }
  const MetricSpec* FindMetric(std::string_view name) const;
  // The rule with this id; nullptr when there is none.
  const Rule* FindRule(std::string_view id) const;
  // nullptr when the Xid is not in the catalogue.
  const XidInfo* FindXid(int xid) const { return xids_.Find(XidTable::kXid, xid); }
  // The Xid and SXid catalogues, for `aegis rules explain` and `aegis rules check`.
  const XidCatalogs& xid_catalogs() const { return xids_; }
  // The class of an Xid / SXid event with this number and message (the whole record, as
  // the scanner folded it): the entry's decode cases, then the table's common ones, then
  // the entry's class. An unknown number keeps `fallback` (the matching rule's own class,
  // a hint for the xid / sxid rules) unless a common case matches.
  XidDecision ClassifyXid(Rule::XidTable table, int number, std::string_view message, LineClass fallback,
                          std::string_view fallback_component) const {
    return xids_.Classify(table, number, message, fallback, fallback_component);
  }

 private:
  std::vector<Rule> rules_;
  std::map<std::string, size_t, std::less<>> rule_index_;  // id -> position in rules_
  XidCatalogs xids_;
  std::vector<ConfigCheck> checks_;
  std::vector<MetricSpec> metrics_;
};

// Components a rule or a verdict may name (docs/formats.md, "Verdict").
bool IsKnownComponent(std::string_view c);

}  // namespace aegis
