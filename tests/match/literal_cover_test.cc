#include "match/literal_cover.h"

#include <gtest/gtest.h>
#include <re2/re2.h>

#include "common/text.h"
#include "logs/line_prefix.h"
#include "rules/catalog.h"
#include "rules/labelled_lines.h"

namespace aegis {
namespace {

using Cover = std::vector<std::string>;

bool ContainsOne(const std::string& line, const Cover& cover) {
  const std::string lower = ToLower(line);
  for (const auto& literal : cover)
    if (lower.find(literal) != std::string::npos) return true;
  return false;
}

TEST(LiteralCover, AnAlternationNeedsEachBranch) {
  EXPECT_EQ(LiteralCover("fallen off the bus|has fallen off", 8), (Cover{"fallen off the bus", "has fallen off"}));
}

TEST(LiteralCover, ASequenceNeedsOnlyOneOfItsParts) {
  // Both literals are in every match: one of them is enough, the longer is kept.
  EXPECT_EQ(LiteralCover(R"(Timeout at NCCL work: \d+, last enqueued)", 8), (Cover{"timeout at nccl work: "}));
}

TEST(LiteralCover, LowerCaseWhateverTheCaseOfThePattern) {
  EXPECT_EQ(LiteralCover("NCCL WARN Cuda failure", 8), (Cover{"nccl warn cuda failure"}));
  EXPECT_EQ(LiteralCover("(?i)nccl warn cuda failure", 8), (Cover{"nccl warn cuda failure"}));
}

TEST(LiteralCover, NoCoverFromShortLiterals) {
  EXPECT_TRUE(LiteralCover("EDAC \\S+: \\d+ UE", 8).empty());  // "edac " and " ue" are too common
  EXPECT_TRUE(LiteralCover("error|fatal", 8).empty());
  EXPECT_TRUE(LiteralCover("[A-Z]\\w*Error", 8).empty());
  // One short branch is enough to spoil the cover: that branch would go unseen.
  EXPECT_TRUE(LiteralCover("uncorrectable ECC|Oops", 8).empty());
}

TEST(LiteralCover, NoCoverForBadPatterns) {
  EXPECT_TRUE(LiteralCover("(unclosed", 8).empty());
  EXPECT_TRUE(LiteralCover("", 8).empty());
}

TEST(LiteralCover, AtomsAcrossALineBreakAreLeftOut) {
  // [\s:] includes '\n'; a line never contains one, and "nccl version " covers it anyway.
  const Cover c = LiteralCover(R"((?:^|[\s:])NCCL version \d)", 8);
  ASSERT_FALSE(c.empty());
  for (const auto& l : c) EXPECT_EQ(l.find('\n'), std::string::npos) << l;
}

// The promise the scanner relies on, checked on real lines: every line a shipped rule
// matches (its samples, and the corpus lines it matches) contains one of its literals.
TEST(LiteralCover, EveryLineARuleMatchesHoldsOneOfItsLiterals) {
  const Catalog cat = Catalog::Load({});
  std::vector<std::string> lines;
  for (const char* f : {"/corpus/frameworks.tsv", "/corpus/kernel.tsv", "/corpus/families.tsv",
                         "/corpus/collected.tsv", "/corpus/heldout.tsv", "/real-log-lines.tsv"})
    for (const auto& row : test::LoadLabelled(std::string(AEGIS_TEST_DATA) + f)) lines.push_back(row.line);
  size_t covered_rules = 0, checked = 0;
  for (const auto& rule : cat.rules()) {
    for (const std::string& pattern : {rule.pattern, rule.prefilter}) {
      if (pattern.empty()) continue;
      const Cover cover = LiteralCover(pattern, 8);
      if (cover.empty()) continue;
      ++covered_rules;
      RE2 re(pattern);
      ASSERT_TRUE(re.ok()) << rule.id;
      std::vector<std::string> matching = rule.samples;
      for (const auto& l : lines) {
        const std::string msg = l.substr(ParseLinePrefix(l, 2026).message_offset);
        if (RE2::PartialMatch(msg, re)) matching.push_back(msg);
      }
      for (const auto& m : matching) {
        if (!RE2::PartialMatch(m, re)) continue;  // a sample of the pattern, not of the prefilter
        ++checked;
        EXPECT_TRUE(ContainsOne(m, cover)) << rule.id << ": " << m;
      }
    }
  }
  EXPECT_GT(covered_rules, 100u);
  EXPECT_GT(checked, 500u);
}

}  // namespace
}  // namespace aegis
