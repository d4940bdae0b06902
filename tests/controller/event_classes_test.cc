#include "controller/event_classes.h"

#include <gtest/gtest.h>

#include "logs/scanner.h"
#include "match/matcher.h"

namespace aegis::controller {
namespace {

const Catalog& Shipped() {
  static const Catalog* c = new Catalog(Catalog::Load({}));
  return *c;
}

const Matcher& ShippedMatcher() {
  static const Matcher* m = new Matcher(Shipped());
  return *m;
}

std::vector<LogEvent> Scan(const std::string& text) {
  ScanOptions o;
  o.year = 2026;
  Scanner s(ShippedMatcher(), o);
  std::vector<LogEvent> out;
  s.ScanText(text, [&](LogEvent&& e) { out.push_back(std::move(e)); });
  return out;
}

// The controller's check and the agent's scanner are one decision: every sample line of
// every shipped rule, scanned as an agent scans it, is agreed to as it was sent.
TEST(EventClasses, TheScannersEventsAreAgreedTo) {
  size_t checked = 0;
  for (const Rule& rule : Shipped().rules())
    for (const std::string& sample : rule.samples)
      for (LogEvent e : Scan(sample + "\n")) {
        const LogEvent sent = e;
        EXPECT_EQ(ApplyCatalogClass(Shipped(), &e), ClassCheck::kAgreed) << e.rule_id << ": " << sample;
        EXPECT_EQ(e.line_class, sent.line_class) << e.rule_id;
        EXPECT_EQ(e.component, sent.component) << e.rule_id;
        ++checked;
      }
  EXPECT_GT(checked, 500u);
}

// A learned rule's class is the line model's reading of the text, here as in the agent.
TEST(EventClasses, ALearnedRulesClassIsTheModelsReadingOfTheText) {
  auto ev = Scan("mpirun noticed that process rank 3 exited on signal 9\n");
  ASSERT_EQ(ev.size(), 1u);
  LogEvent e = ev[0];
  ASSERT_EQ(e.rule_id, "generic-unknown-line");
  EXPECT_EQ(e.line_class, LineClass::kDist);
  EXPECT_TRUE(e.fallback);
  e.line_class = LineClass::kConfig;  // claimed otherwise
  EXPECT_EQ(ApplyCatalogClass(Shipped(), &e), ClassCheck::kCorrected);
  EXPECT_EQ(e.line_class, LineClass::kDist);
  EXPECT_EQ(e.component, Component::kHost);
}

TEST(EventClasses, AClassTheAgentClaimedIsTheCataloguesInstead) {
  auto ev = Scan("[ 8421.113902] NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.\n");
  ASSERT_EQ(ev.size(), 1u);
  LogEvent e = ev[0];
  ASSERT_EQ(e.rule_id, "xid-79");
  // A node that wants a healthy GPU of its own spared, or another's drained, says otherwise.
  e.line_class = LineClass::kHint;
  e.component = Component::kHost;
  e.cascade = true;
  e.yields_to_user = true;
  EXPECT_EQ(ApplyCatalogClass(Shipped(), &e), ClassCheck::kCorrected);
  EXPECT_EQ(e.line_class, LineClass::kCritical);
  EXPECT_EQ(e.component, Component::kGpu);
  EXPECT_FALSE(e.cascade);
  EXPECT_FALSE(e.yields_to_user);
}

TEST(EventClasses, AnXidIsClassedByItsNumberAndText) {
  auto ev = Scan("[ 8421.113902] NVRM: Xid (PCI:0000:18:00): 13, pid=1, Graphics Exception\n");
  ASSERT_EQ(ev.size(), 1u);
  LogEvent e = ev[0];
  const LineClass scanned = e.line_class;
  e.line_class = LineClass::kCritical;  // claimed worse than it is
  EXPECT_EQ(ApplyCatalogClass(Shipped(), &e), ClassCheck::kCorrected);
  EXPECT_EQ(e.line_class, scanned);
  EXPECT_NE(e.line_class, LineClass::kCritical);
}

TEST(EventClasses, AnUnknownRuleIsRefused) {
  LogEvent e;
  e.rule_id = "no-such-rule";
  e.line_class = LineClass::kCritical;
  EXPECT_EQ(ApplyCatalogClass(Shipped(), &e), ClassCheck::kUnknownRule);
  EXPECT_EQ(e.line_class, LineClass::kCritical);  // left as it was, for the refusal to quote
  e.rule_id = "xid-abc";
  EXPECT_EQ(ApplyCatalogClass(Shipped(), &e), ClassCheck::kUnknownRule);
  e.rule_id = "";
  EXPECT_EQ(ApplyCatalogClass(Shipped(), &e), ClassCheck::kUnknownRule);
}

TEST(EventClasses, AnInheritingRuleKeepsTheClassTheAgentSaw) {
  const Rule* rule = Shipped().FindRule("amdgpu-fault-detail");
  ASSERT_NE(rule, nullptr);
  ASSERT_TRUE(rule->inherit);
  LogEvent e;
  e.rule_id = rule->id;
  e.line_class = LineClass::kCritical;  // the page fault above it was
  e.component = Component::kGpu;
  e.cascade = rule->cascade;
  e.yields_to_user = rule->yields_to_user;
  e.fallback = rule->fallback;
  e.config_key = rule->config_key;
  EXPECT_EQ(ApplyCatalogClass(Shipped(), &e), ClassCheck::kAgreed);
  EXPECT_EQ(e.line_class, LineClass::kCritical);
  e.cascade = !rule->cascade;  // the rule's own flags are still the catalogue's
  EXPECT_EQ(ApplyCatalogClass(Shipped(), &e), ClassCheck::kCorrected);
  EXPECT_EQ(e.cascade, rule->cascade);
  EXPECT_EQ(e.line_class, LineClass::kCritical);
}

}  // namespace
}  // namespace aegis::controller
