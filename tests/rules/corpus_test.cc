// The shipped catalogue against the corpus of real log lines (tests/data/corpus/README.md),
// in two parts scored on their own:
//  - the development set (frameworks.tsv, kernel.tsv, families.tsv and
//    tests/data/real-log-lines.tsv): the lines the rules are written from. At least 97% of
//    them must be classified as labelled in the context they were posted in, and none
//    classified `critical` unless labelled so (a false critical drains a healthy node);
//  - the collected set (collected.tsv): development lines gathered in bulk from new sources
//    for the line model, which is trained on them as on the files above; rules were
//    extended from their families, but the set is scored on its own, held to its recorded
//    score (the rules have not been written to reach 97% of it), with no false critical;
//  - the held-out set (heldout.tsv): lines from sources no development file and no rule
//    sample uses, never used to write a rule. It measures how far the catalogue holds on
//    lines it was not written from: its score is printed with every miss, must reach the
//    figure logged in the README, and it may have no false critical either.
// Every line is classified in context (one text per source, in order) and alone, as a
// judge that reads lines one by one would.
#include <gtest/gtest.h>

#include <cctype>
#include <iostream>
#include <set>

#include "rules/embedded.h"
#include "rules/labelled_lines.h"
#include "test_util.h"

namespace aegis {
namespace {

// The held-out thresholds: the scores of the last held-out scoring logged in
// tests/data/corpus/README.md, rounded down. Only a new scoring moves them (down too,
// when a refilled set meets the rules worse), never tuning rules to the set.
constexpr size_t kHeldOutInContextPercent = 71;
constexpr size_t kHeldOutAlonePercent = 71;
// The collected set's score when it was added (tests/data/corpus/README.md), rounded down.
constexpr size_t kCollectedPercent = 78;

std::vector<test::LabelledLine> Load(std::initializer_list<const char*> files) {
  std::vector<test::LabelledLine> all;
  for (const char* f : files) {
    auto rows = test::LoadLabelled(std::string(AEGIS_TEST_DATA) + f);
    all.insert(all.end(), rows.begin(), rows.end());
  }
  return all;
}

std::vector<test::LabelledLine> Development() {
  return Load({"/corpus/frameworks.tsv", "/corpus/kernel.tsv", "/corpus/families.tsv", "/real-log-lines.tsv"});
}

std::vector<test::LabelledLine> Collected() { return Load({"/corpus/collected.tsv"}); }

std::vector<test::LabelledLine> HeldOut() { return Load({"/corpus/heldout.tsv"}); }

std::string Names(const std::set<LineClass>& s) {
  std::string out;
  for (LineClass c : s) {
    if (!out.empty()) out += '/';
    out += ToString(c);
  }
  return out;
}

struct Score {
  size_t right = 0, total = 0;
  std::vector<std::string> misses, false_critical;
  double Percent() const { return total ? 100.0 * static_cast<double>(right) / static_cast<double>(total) : 0.0; }
};

Score Compare(const std::vector<test::LabelledLine>& rows, const std::vector<LineClass>& got) {
  Score s;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto want = test::Expected(rows[i]);
    ++s.total;
    if (want.count(got[i])) {
      ++s.right;
      continue;
    }
    std::string miss = rows[i].id + " expected " + Names(want) + " got " + std::string(ToString(got[i])) + ": " +
                       rows[i].line.substr(0, 200);
    if (got[i] == LineClass::kCritical) s.false_critical.push_back(miss);
    s.misses.push_back(std::move(miss));
  }
  return s;
}

void Print(const char* what, const Score& s) {
  std::cout << what << ": " << s.right << "/" << s.total << " right (" << s.Percent() << "%), "
            << s.false_critical.size() << " false critical\n";
  for (const auto& m : s.misses) std::cout << "  miss " << m << "\n";
}

Score InContext(const std::vector<test::LabelledLine>& rows) {
  ScanOptions o;
  o.year = 2026;
  Scanner scanner(test::ShippedMatcher(), o);
  return Compare(rows, test::ClassifyInContext(rows, scanner));
}

Score Alone(const std::vector<test::LabelledLine>& rows) {
  ScanOptions o;
  o.year = 2026;
  Scanner scanner(test::ShippedMatcher(), o);
  std::vector<LineClass> got;
  for (const auto& r : rows) got.push_back(test::ClassifyAlone(r.line, scanner));
  return Compare(rows, got);
}

void ExpectNoFalseCritical(const Score& s) {
  EXPECT_TRUE(s.false_critical.empty()) << s.false_critical.size() << " false critical, first: "
                                        << (s.false_critical.empty() ? "" : s.false_critical.front());
}

TEST(Corpus, EveryFileIsRead) {
  std::map<std::string, size_t> per_file;
  for (const auto& rows : {Development(), Collected(), HeldOut()})
    for (const auto& r : rows) {
      ++per_file[r.file];
      EXPECT_FALSE(test::Expected(r).empty()) << r.file << " " << r.id << ": label '" << r.label << "' / category '"
                                              << r.category << "' names no class";
    }
  EXPECT_GE(per_file["frameworks.tsv"], 321u);
  EXPECT_GE(per_file["kernel.tsv"], 366u);
  EXPECT_GE(per_file["families.tsv"], 90u);
  EXPECT_GE(per_file["collected.tsv"], 300u);
  EXPECT_GE(per_file["real-log-lines.tsv"], 82u);
  EXPECT_GE(per_file["heldout.tsv"], 150u);
}

// The held-out set shares no source with the development set or the rules: no URL of a
// held-out line is the URL of a development line or appears in a rule file, and no
// held-out line is a rule's sample.
TEST(Corpus, HeldOutSharesNoSourceWithTheRules) {
  std::set<std::string> dev_urls;
  for (const auto& rows : {Development(), Collected()})
    for (const auto& r : rows) dev_urls.insert(r.url);
  std::string rule_text;
  for (const auto& f : EmbeddedRuleFiles()) rule_text.append(f.text);
  std::set<std::string> samples;
  for (const auto& rule : test::ShippedMatcher().catalog().rules())
    samples.insert(rule.samples.begin(), rule.samples.end());
  // A URL cited in a rule file, followed by anything but more of a URL (".../issues/193" is
  // not cited by ".../issues/1935").
  auto cited = [&](const std::string& url) {
    for (size_t at = rule_text.find(url); at != std::string::npos; at = rule_text.find(url, at + 1)) {
      const size_t end = at + url.size();
      if (end == rule_text.size() || !(std::isalnum(static_cast<unsigned char>(rule_text[end])) || rule_text[end] == '/'))
        return true;
    }
    return false;
  };
  for (const auto& r : HeldOut()) {
    EXPECT_EQ(dev_urls.count(r.url), 0u) << r.id << ": its source is also a development source: " << r.url;
    EXPECT_FALSE(cited(r.url)) << r.id << ": a rule file cites its source: " << r.url;
    EXPECT_EQ(samples.count(r.line), 0u) << r.id << " is a rule's sample";
  }
}

// Prints the score and every miss; no false critical, and at least `percent` right.
void ExpectScore(const char* what, const Score& s, size_t percent) {
  Print(what, s);
  ExpectNoFalseCritical(s);
  EXPECT_GE(s.right * 100, s.total * percent) << s.right << " of " << s.total << " lines right";
}

TEST(Corpus, DevelopmentClassifiedAsLabelledInContext) {
  ExpectScore("development, in context", InContext(Development()), 97);
}

TEST(Corpus, DevelopmentClassifiedAsLabelledAlone) { ExpectScore("development, alone", Alone(Development()), 0); }

TEST(Corpus, CollectedClassifiedAsLabelledInContext) {
  ExpectScore("collected, in context", InContext(Collected()), kCollectedPercent);
}

TEST(Corpus, CollectedClassifiedAsLabelledAlone) {
  ExpectScore("collected, alone", Alone(Collected()), kCollectedPercent);
}

// The held-out score: printed with every miss (never read while writing rules, see the
// README's protocol), no false critical, and at least the score logged in the README.
TEST(Corpus, HeldOutClassifiedAsLabelledInContext) {
  ExpectScore("held-out, in context", InContext(HeldOut()), kHeldOutInContextPercent);
}

TEST(Corpus, HeldOutClassifiedAsLabelledAlone) {
  ExpectScore("held-out, alone", Alone(HeldOut()), kHeldOutAlonePercent);
}

}  // namespace
}  // namespace aegis
