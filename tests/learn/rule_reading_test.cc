#include "learn/rule_reading.h"

#include <gtest/gtest.h>

#include "learn/line_model.h"

namespace aegis {
namespace {

const Catalog& Shipped() {
  static const Catalog catalog = Catalog::Load({});
  return catalog;
}

const Rule& RuleNamed(std::string_view id) {
  const Rule* r = Shipped().FindRule(id);
  if (!r) throw std::runtime_error("no rule " + std::string(id));
  return *r;
}

TEST(RuleReading, APlainRuleGivesItsOwnClassAndComponent) {
  const Rule& rule = RuleNamed("nccl-ib-completion-error");
  const RuleReading r = ReadLineByRule(Shipped(), rule, -1, "anything");
  EXPECT_EQ(r.line_class, rule.line_class);
  EXPECT_EQ(r.component, ParseComponent(rule.component));
}

TEST(RuleReading, AnXidRuleGivesTheCataloguesClassForTheNumber) {
  const Rule& rule = RuleNamed("xid");
  const std::string text = "NVRM: Xid (PCI:0000:18:00): 79, pid=1234, GPU has fallen off the bus.";
  const RuleReading fatal = ReadLineByRule(Shipped(), rule, 79, text);
  EXPECT_EQ(fatal.line_class, LineClass::kCritical);
  EXPECT_EQ(fatal.line_class, Shipped().ClassifyXid(Rule::XidTable::kXid, 79, text, rule.line_class, rule.component).line_class);
  // Xid 13 (a graphics engine exception) is the application's, not the GPU's.
  EXPECT_NE(ReadLineByRule(Shipped(), rule, 13, text).line_class, LineClass::kCritical);
}

TEST(RuleReading, ALearnedRuleGivesTheModelsReading) {
  const Rule& rule = RuleNamed("nccl-warn-fallback");
  ASSERT_TRUE(rule.learned);
  const std::string text = "NCCL WARN Cuda failure 'out of memory'";
  const RuleReading r = ReadLineByRule(Shipped(), rule, -1, text);
  EXPECT_EQ(r.line_class, LearnedLineClass(text, rule.line_class));
  EXPECT_NE(r.line_class, LineClass::kCritical);
  EXPECT_EQ(r.component, ParseComponent(LearnedComponent(r.line_class, rule.line_class, rule.component)));
}

}  // namespace
}  // namespace aegis
