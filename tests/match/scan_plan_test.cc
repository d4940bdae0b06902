#include "match/scan_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <hs/hs.h>
#include <re2/re2.h>

#include "logs/line_prefix.h"
#include "match/matcher.h"
#include "rules/labelled_lines.h"

namespace aegis {
namespace {

Catalog Rules() {
  return Catalog::FromSources({{"t.yaml", R"(
rules:
  - {id: gsp, class: critical, component: gpu, pattern: 'GSP RPC timeout|gsp heartbeat timed out'}
  - {id: rpc, class: hint, component: gpu, pattern: 'GSP RPC timeout(?:, function (?P<f>\d+))?'}
  - {id: short, class: hint, component: host, pattern: 'EDAC \S+: \d+ UE'}
  - {id: authored, class: hint, component: nic, pattern: 'mlx5_core \S+: Link down', prefilter: 'Link down'}
)"}});
}

const ScanExpression* Find(const ScanPlan& p, std::string_view pattern) {
  for (const auto& e : p.expressions)
    if (e.pattern == pattern) return &e;
  return nullptr;
}

TEST(ScanPlan, LiteralsStandForEveryRuleThatNeedsThem) {
  const Catalog cat = Rules();
  const ScanPlan plan = PlanScan(cat.rules());
  const ScanExpression* shared = Find(plan, "gsp rpc timeout");
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(shared->flags, static_cast<unsigned>(HS_FLAG_CASELESS));
  EXPECT_EQ(shared->rules, (std::vector<uint32_t>{0, 1}));
  ASSERT_NE(Find(plan, "gsp heartbeat timed out"), nullptr);
}

TEST(ScanPlan, ARuleWithoutLongLiteralsKeepsItsPattern) {
  const Catalog cat = Rules();
  const ScanPlan plan = PlanScan(cat.rules());
  const ScanExpression* e = Find(plan, R"(EDAC \S+: \d+ UE)");
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(e->flags & HS_FLAG_PREFILTER);
  EXPECT_EQ(e->rules, (std::vector<uint32_t>{2}));
}

TEST(ScanPlan, AnAuthoredPrefilterNamesTheLiterals) {
  // "mlx5_core " is on every line of a Mellanox host's kernel log; the author's prefilter
  // says what is rare.
  const Catalog cat = Rules();
  const ScanPlan plan = PlanScan(cat.rules());
  EXPECT_NE(Find(plan, "link down"), nullptr);
  EXPECT_EQ(Find(plan, "mlx5\\x5fcore "), nullptr);
}

TEST(ScanPlan, AWordBoundaryBeforeAGroupOfWordsIsPlannedAsTheByteBeforeAndTheTextStart) {
  const Catalog cat = Catalog::FromSources({{"t.yaml", R"(
rules:
  - {id: words, class: hint, component: host, pattern: '(?i)\b(?:warn|err|not (?:ready|found))'}
  - {id: odd, class: hint, component: host, pattern: '\b(?:x|-y)z'}
)"}});
  const ScanPlan plan = PlanScan(cat.rules());
  const ScanExpression* before = Find(plan, "(?i)[^A-Za-z0-9_](?:warn|err|not (?:ready|found))");
  const ScanExpression* start = Find(plan, "(?i)\\A(?:warn|err|not (?:ready|found))");
  ASSERT_NE(before, nullptr);
  ASSERT_NE(start, nullptr);
  EXPECT_EQ(before->rules, (std::vector<uint32_t>{0}));
  EXPECT_EQ(start->rules, (std::vector<uint32_t>{0}));
  EXPECT_EQ(Find(plan, "(?i)\\b(?:warn|err|not (?:ready|found))"), nullptr);
  // An alternative that does not start with a word character: the boundary means more.
  EXPECT_NE(Find(plan, "\\b(?:x|-y)z"), nullptr);

  // The lines the split expressions find are the lines the boundary finds.
  const Matcher matcher(cat);
  auto scratch = matcher.NewScratch();
  const std::string text = "Error at the start of the text\nswarning\n[rank0]:err 3\nnode not found\nnot readyx\n";
  std::vector<CandidateLine> lines;
  matcher.Scan(text, scratch, lines);
  std::vector<std::string> found;
  for (const auto& l : lines)
    if (std::find(l.rules.begin(), l.rules.end(), 0u) != l.rules.end()) found.push_back(text.substr(l.begin, l.end - l.begin));
  EXPECT_EQ(found, (std::vector<std::string>{"Error at the start of the text", "[rank0]:err 3", "node not found", "not readyx"}));
}

TEST(ScanPlan, SerializedPlanReadsBack) {
  const Catalog cat = Rules();
  const ScanPlan plan = PlanScan(cat.rules());
  auto back = ScanPlan::Parse(plan.Serialize(), cat.rules().size());
  ASSERT_TRUE(back.has_value());
  ASSERT_EQ(back->expressions.size(), plan.expressions.size());
  for (size_t i = 0; i < plan.expressions.size(); ++i) {
    EXPECT_EQ(back->expressions[i].pattern, plan.expressions[i].pattern);
    EXPECT_EQ(back->expressions[i].flags, plan.expressions[i].flags);
    EXPECT_EQ(back->expressions[i].rules, plan.expressions[i].rules);
  }
}

TEST(ScanPlan, AnythingElseIsNotAPlan) {
  const Catalog cat = Rules();
  const std::string good = PlanScan(cat.rules()).Serialize();
  EXPECT_FALSE(ScanPlan::Parse("", 4).has_value());
  EXPECT_FALSE(ScanPlan::Parse(good + "x", 4).has_value());              // trailing bytes
  EXPECT_FALSE(ScanPlan::Parse(good, 2).has_value());                    // names rules beyond the set
  for (size_t cut = 0; cut < good.size(); ++cut) EXPECT_FALSE(ScanPlan::Parse(good.substr(0, cut), 4).has_value());
  EXPECT_FALSE(ScanPlan::Parse(std::string(64, '\xff'), 4).has_value());  // huge counts
}

// The scanner's promise on the shipped catalogue and real lines: every rule whose pattern
// matches a line's message is among that line's candidates.
TEST(ScanPlan, CandidatesIncludeEveryRuleThatMatchesARealLine) {
  const Catalog cat = Catalog::Load({});
  const Matcher matcher(cat);
  auto scratch = matcher.NewScratch();
  std::vector<std::unique_ptr<RE2>> res;
  for (const auto& r : cat.rules()) res.push_back(std::make_unique<RE2>(r.pattern));
  size_t matches = 0;
  for (const char* f : {"/corpus/frameworks.tsv", "/corpus/kernel.tsv", "/corpus/families.tsv",
                         "/corpus/collected.tsv", "/corpus/heldout.tsv", "/real-log-lines.tsv"})
    for (const auto& row : test::LoadLabelled(std::string(AEGIS_TEST_DATA) + f)) {
      const std::string msg = row.line.substr(ParseLinePrefix(row.line, 2026).message_offset);
      std::vector<CandidateLine> lines;
      matcher.Scan(row.line, scratch, lines);
      std::vector<uint32_t> candidates;
      for (const auto& l : lines) candidates.insert(candidates.end(), l.rules.begin(), l.rules.end());
      for (size_t i = 0; i < res.size(); ++i) {
        if (!RE2::PartialMatch(msg, *res[i])) continue;
        ++matches;
        EXPECT_NE(std::find(candidates.begin(), candidates.end(), i), candidates.end())
            << row.id << ": rule " << cat.rules()[i].id << " matches but is no candidate: " << row.line;
      }
    }
  EXPECT_GT(matches, 600u);  // 690 when written
}

}  // namespace
}  // namespace aegis
