#include "rules/catalog.h"

#include <gtest/gtest.h>

#include "rules_check/samples_check.h"
#include "test_util.h"

namespace aegis {
namespace {

TEST(ShippedRules, LoadAndMatchTheirOwnSamples) {
  const auto problems = CheckRuleSamples(test::ShippedMatcher(), /*require_samples=*/true);
  for (const auto& p : problems) ADD_FAILURE() << p;
  EXPECT_GT(test::ShippedCatalog().rules().size(), 50u);
}

TEST(ShippedRules, XidTableCoversNvidiasCatalogue) {
  const Catalog& c = test::ShippedCatalog();
  for (int x = 1; x <= 172; ++x) EXPECT_NE(c.FindXid(x), nullptr) << "Xid " << x;
  // The class of a line that carries no decodable token: NVIDIA's bucket says reset,
  // reboot or repair.
  for (int x : {46, 48, 62, 64, 74, 79, 95, 109, 119, 120, 136, 140, 143, 144, 145, 146, 147, 148, 149, 150, 155, 158})
    EXPECT_EQ(c.FindXid(x)->line_class, LineClass::kCritical) << "Xid " << x;
  for (int x : {13, 31, 43, 45}) EXPECT_EQ(c.FindXid(x)->line_class, LineClass::kUser) << "Xid " << x;
  // Recorded, never a cause by themselves: IGNORE / RESTART_APP buckets, and Xid 154
  // unless its message names an action.
  for (int x : {8, 63, 92, 94, 121, 137, 154, 157, 160, 161}) EXPECT_EQ(c.FindXid(x)->line_class, LineClass::kHint) << "Xid " << x;
  for (int x : {74, 136, 137, 144, 150, 155}) EXPECT_EQ(c.FindXid(x)->component, "nvlink") << "Xid " << x;
  EXPECT_EQ(c.FindXid(54)->component, "power");
}

TEST(ShippedRules, SxidRulesUseTheSxidCatalogue) {
  const Catalog& c = test::ShippedCatalog();
  size_t sxid_rules = 0;
  for (const auto& r : c.rules())
    if (r.xid_table == Rule::XidTable::kSxid) {
      ++sxid_rules;
      EXPECT_EQ(r.line_class, LineClass::kHint) << r.id;  // the class of an unknown number
    }
  EXPECT_EQ(sxid_rules, 1u);
  EXPECT_GT(c.xid_catalogs().table(XidTable::kSxid).entries.size(), 300u);
}

TEST(ShippedRules, ChecklistLoads) {
  const auto& checks = test::ShippedCatalog().config_checks();
  EXPECT_GE(checks.size(), 15u);
  bool shm = false;
  for (const auto& c : checks) shm |= c.key == "os.dev_shm_mb" && c.min == 1024;
  EXPECT_TRUE(shm);
}

TEST(OperatorRules, OverrideByIdAndAdd) {
  test::TempDir dir;
  test::WriteFile(dir.Sub("site/local.yaml"), R"(
rules:
  - id: xid
    class: xid
    component: gpu
    pattern: 'NVRM: Xid \((?:PCI:)?(?P<pci>[0-9a-fA-F:.]+)\): (?P<xid>\d+)'
  - id: site-bmc-psu
    class: critical
    component: power
    pattern: 'BMC: PSU(?P<psu>\d) lost input'
    samples: ['BMC: PSU2 lost input']
xids:
  - {xid: 63, class: critical, component: gpu, name: "this site drains on row remapping"}
)");
  Catalog c = Catalog::Load({dir.path()});
  Matcher m(c);
  auto s = m.NewScratch();
  RuleMatch r;
  ASSERT_TRUE(m.MatchMessage("BMC: PSU2 lost input", s, &r));
  EXPECT_EQ(c.rules()[r.rule].id, "site-bmc-psu");
  EXPECT_EQ(c.FindXid(63)->line_class, LineClass::kCritical);
  size_t xid_rules = 0;
  for (const auto& rule : c.rules()) xid_rules += rule.id == "xid";
  EXPECT_EQ(xid_rules, 1u);  // replaced, not duplicated
}

TEST(OperatorRules, ErrorsNameFileAndRule) {
  test::TempDir dir;
  test::WriteFile(dir.Sub("bad.yaml"), "rules:\n  - {id: oops, class: fatal, component: gpu, pattern: x}\n");
  try {
    Catalog::Load({dir.path()});
    FAIL();
  } catch (const CatalogError& e) {
    EXPECT_NE(std::string(e.what()).find("oops"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("unknown class"), std::string::npos);
  }
  test::WriteFile(dir.Sub("bad.yaml"), "rules: [ {id: x, class: dist\n");
  EXPECT_THROW(Catalog::Load({dir.path()}), CatalogError);
  EXPECT_THROW(Catalog::Load({dir.Sub("no-such-dir")}), CatalogError);
}

// A key nobody reads is a mistake, not a comment: a misspelled top-level key would load the
// file as if it said nothing, a misspelled field would drop what it meant. Each is refused
// with the file, the line and the keys that are known.
TEST(OperatorRules, UnknownKeysAreRefusedWithFileAndLine) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"rule:\n  - {id: x, class: dist, component: nic, pattern: 'link down', reason: r}\n", "site.yaml:1: unknown key 'rule' in a rule file"},
      {"rules:\n  - id: x\n    class: dist\n    patern: 'link down'\n", "site.yaml:4: unknown key 'patern' in a rule"},
      {"checks:\n  - {id: c, key: gpu.driver, kind: agree, reson: r}\n", "unknown key 'reson' in a check"},
      {"metrics:\n  - {name: m, bad: high, treshold: 3}\n", "unknown key 'treshold' in a metric"},
      {"xids:\n  - {xid: 79, name: n, clas: critical}\n", "unknown key 'clas' in an xid entry"},
  };
  for (const auto& [text, want] : cases) {
    SCOPED_TRACE(text);
    test::TempDir dir;
    test::WriteFile(dir.Sub("site.yaml"), text);
    try {
      Catalog::Load({dir.path()});
      ADD_FAILURE() << "loaded";
    } catch (const CatalogError& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("(known: "), std::string::npos) << e.what();
    }
  }
}

TEST(OperatorRules, FallbackFieldIsParsedAndBoundedItsValuesChecked) {
  auto load = [](const std::string& rule) {
    return Catalog::FromSources({{"site.yaml", "rules:\n  - " + rule + "\n"}}, 0);
  };
  Catalog c = load("{id: catch-all, class: hint, component: host, priority: 5, fallback: true, pattern: 'oops'}");
  ASSERT_EQ(c.rules().size(), 1u);
  EXPECT_TRUE(c.rules()[0].fallback);
  EXPECT_FALSE(load("{id: plain, class: hint, component: host, pattern: 'oops'}").rules()[0].fallback);
  EXPECT_FALSE(load("{id: off, class: hint, component: host, priority: 5, fallback: false, pattern: 'x'}").rules()[0].fallback);
  auto refused = [&](const std::string& rule, const std::string& why) {
    try {
      load(rule);
      ADD_FAILURE() << "accepted: " << rule;
    } catch (const CatalogError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("site.yaml"), std::string::npos) << e.what();
    }
  };
  refused("{id: bad, class: hint, component: host, priority: 5, fallback: maybe, pattern: 'x'}", "fallback must be true or false");
  refused("{id: bad, class: hint, component: host, priority: 5, fallback: [true], pattern: 'x'}", "fallback must be true or false");
  refused("{id: bad, class: critical, component: gpu, priority: 5, fallback: true, pattern: 'x'}", "cannot be critical");
  refused("{id: bad, class: dist, component: host, fallback: true, pattern: 'x'}", "priority 10 or less");
  // learned: the line model decides, so only a fallback may be learned.
  EXPECT_TRUE(load("{id: l, class: none, component: host, priority: 0, fallback: true, learned: true, pattern: 'x'}")
                  .rules()[0]
                  .learned);
  EXPECT_FALSE(load("{id: p, class: hint, component: host, pattern: 'x'}").rules()[0].learned);
  refused("{id: bad, class: hint, component: host, learned: true, pattern: 'x'}", "a learned rule must be a fallback");
  refused("{id: bad, class: hint, component: host, priority: 5, fallback: true, learned: perhaps, pattern: 'x'}",
          "learned must be true or false");
  refused("{id: bad, class: xid, component: gpu, priority: 5, fallback: true, learned: true, pattern: 'Xid (?P<xid>\\d+)'}",
          "a learned rule must be a fallback");
}

TEST(OperatorRules, AnUnlessPatternMustCompile) {
  auto load = [](const std::string& rule) {
    return Catalog::FromSources({{"site.yaml", "rules:\n  - " + rule + "\n"}}, 0);
  };
  EXPECT_EQ(load("{id: u, class: hint, component: host, pattern: 'error', unless: 'INFO'}").rules()[0].unless, "INFO");
  // A list is one pattern of alternatives.
  EXPECT_EQ(load("{id: u, class: hint, component: host, pattern: 'error', unless: ['INFO', 'a|b']}").rules()[0].unless,
            "(?:INFO)|(?:a|b)");
  for (const char* bad : {"{id: u, class: hint, component: host, pattern: 'error', unless: '(open'}",
                          "{id: u, class: hint, component: host, pattern: 'error', unless: ''}",
                          "{id: u, class: hint, component: host, pattern: 'error', unless: []}",
                          "{id: u, class: hint, component: host, pattern: 'error', unless: ['INFO', '(open']}",
                          "{id: u, class: hint, component: host, pattern: 'error', unless: {a: b}}"}) {
    try {
      load(bad);
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const CatalogError& e) {
      EXPECT_NE(std::string(e.what()).find("bad unless"), std::string::npos) << e.what();
    }
  }
}

TEST(ShippedRules, FallbacksAreLowPriorityAndNeverCritical) {
  size_t fallbacks = 0;
  for (const auto& r : test::ShippedMatcher().catalog().rules()) {
    if (!r.fallback) continue;
    ++fallbacks;
    EXPECT_NE(r.line_class, LineClass::kCritical) << r.id;
    EXPECT_LE(r.priority, kMaxFallbackPriority) << r.id;
  }
  EXPECT_GE(fallbacks, 2u) << "an NCCL WARN and a GPU driver error fallback";
}

}  // namespace
}  // namespace aegis
