#include "match/matcher.h"

#include <gtest/gtest.h>

namespace aegis {
namespace {

Catalog Small() {
  return Catalog::FromSources({{"t.yaml", R"(
rules:
  - {id: a, class: critical, component: gpu, pattern: '^NVRM: (?P<what>fallen)', samples: ['NVRM: fallen']}
  - {id: b, class: hint, component: gpu, priority: 10, pattern: 'NVRM', samples: ['NVRM']}
  - {id: c, class: dist, component: host, pattern: 'peer (?P<peer>\S+)<\d+>|from (?P<peer2>\S+) failed'}
)"}});
}

TEST(Matcher, ScansCandidatesPerLine) {
  Catalog cat = Small();
  Matcher m(cat);
  auto s = m.NewScratch();
  std::vector<CandidateLine> lines;
  std::string text = "noise\nx NVRM: fallen\nmore noise\npeer 10.0.0.1<55>\n";
  m.Scan(text, s, lines);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(text.substr(lines[0].begin, lines[0].end - lines[0].begin), "x NVRM: fallen");
  EXPECT_EQ(lines[0].rules.size(), 2u);  // a (anchor relaxed) and b
}

TEST(Matcher, ConfirmTakesHighestPriorityAndAnchorsAtMessage) {
  Catalog cat = Small();
  Matcher m(cat);
  RuleMatch r;
  ASSERT_TRUE(m.Confirm("NVRM: fallen", {0, 1}, &r));
  EXPECT_EQ(cat.rules()[r.rule].id, "a");
  EXPECT_EQ(r.Field("what"), "fallen");
  ASSERT_TRUE(m.Confirm("x NVRM: fallen", {0, 1}, &r));  // '^' is the message start
  EXPECT_EQ(cat.rules()[r.rule].id, "b");
}

TEST(Matcher, NumberedGroupsShareOneField) {
  Catalog cat = Small();
  Matcher m(cat);
  auto s = m.NewScratch();
  RuleMatch r;
  ASSERT_TRUE(m.MatchMessage("recv from node7 failed", s, &r));
  EXPECT_EQ(r.Field("peer"), "node7");
}

// `unless` takes a line from its rule (and leaves it to the next one that matches), only
// where the pattern matched.
TEST(Matcher, AnUnlessPatternHandsTheLineToTheNextRule) {
  Catalog cat = Catalog::FromSources({{"t.yaml", R"(
rules:
  - {id: word, class: hint, component: host, priority: 2, fallback: true, pattern: '\berror\b', unless: '\bINFO\b'}
  - {id: any, class: none, component: host, priority: 1, pattern: 'error'}
)"}});
  Matcher m(cat);
  auto s = m.NewScratch();
  RuleMatch r;
  ASSERT_TRUE(m.MatchMessage("loader: read error on shard 3", s, &r));
  EXPECT_EQ(cat.rules()[r.rule].id, "word");
  ASSERT_TRUE(m.MatchMessage("NCCL INFO error counters reset", s, &r));
  EXPECT_EQ(cat.rules()[r.rule].id, "any");
  EXPECT_FALSE(m.MatchMessage("INFO all good", s, &r));
}

TEST(Matcher, BadPatternNamesTheRule) {
  try {
    Catalog::FromSources({{"bad.yaml", "rules:\n  - {id: broken, class: dist, component: host, pattern: '(unclosed'}\n"}});
    FAIL() << "expected an error";
  } catch (const CatalogError& e) {
    EXPECT_NE(std::string(e.what()).find("broken"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("bad.yaml"), std::string::npos);
  }
}

}  // namespace
}  // namespace aegis
