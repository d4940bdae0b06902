// The shipped catalogue against the corpus of real log lines (tests/data/corpus/*.tsv and
// tests/data/real-log-lines.tsv, collected from public issue threads and other projects'
// test data, each with its label). Every line is classified in the context it was posted
// in, as `aegis classify` sees a log; the test prints the score and every miss, and fails
// when fewer than 97% of the lines get their label or when any line not labelled critical
// is classified critical (a false critical drains a healthy node). Each line is also
// classified alone, as a judge that reads lines one by one would; that score is printed
// and its false criticals fail too.
#include <gtest/gtest.h>

#include <iostream>

#include "rules/labelled_lines.h"
#include "test_util.h"

namespace aegis {
namespace {

std::vector<test::LabelledLine> LoadAll() {
  std::vector<test::LabelledLine> all;
  for (const char* f : {"/corpus/frameworks.tsv", "/corpus/kernel.tsv", "/real-log-lines.tsv"}) {
    auto rows = test::LoadLabelled(std::string(AEGIS_TEST_DATA) + f);
    all.insert(all.end(), rows.begin(), rows.end());
  }
  return all;
}

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
  std::cout << what << ": " << s.right << "/" << s.total << " right ("
            << (s.total ? 100.0 * static_cast<double>(s.right) / static_cast<double>(s.total) : 0.0) << "%), "
            << s.false_critical.size() << " false critical\n";
  for (const auto& m : s.misses) std::cout << "  miss " << m << "\n";
}

TEST(Corpus, EveryFileIsRead) {
  auto rows = LoadAll();
  std::map<std::string, size_t> per_file;
  for (const auto& r : rows) {
    ++per_file[r.file];
    EXPECT_FALSE(test::Expected(r).empty()) << r.file << " " << r.id << ": label '" << r.label << "' / category '"
                                            << r.category << "' names no class";
  }
  EXPECT_GE(per_file["frameworks.tsv"], 321u);
  EXPECT_GE(per_file["kernel.tsv"], 366u);
  EXPECT_GE(per_file["real-log-lines.tsv"], 82u);
}

TEST(Corpus, ClassifiedAsLabelledInContext) {
  auto rows = LoadAll();
  ScanOptions o;
  o.year = 2026;
  Scanner scanner(test::ShippedMatcher(), o);
  const Score s = Compare(rows, test::ClassifyInContext(rows, scanner));
  Print("in context", s);
  EXPECT_TRUE(s.false_critical.empty()) << s.false_critical.size() << " false critical, first: "
                                        << (s.false_critical.empty() ? "" : s.false_critical.front());
  EXPECT_GE(s.right * 100, s.total * 97) << s.right << " of " << s.total << " lines right";
}

TEST(Corpus, ClassifiedAsLabelledAlone) {
  auto rows = LoadAll();
  ScanOptions o;
  o.year = 2026;
  Scanner scanner(test::ShippedMatcher(), o);
  std::vector<LineClass> got;
  for (const auto& r : rows) got.push_back(test::ClassifyAlone(r.line, scanner));
  const Score s = Compare(rows, got);
  Print("alone", s);
  EXPECT_TRUE(s.false_critical.empty()) << s.false_critical.size() << " false critical, first: "
                                        << (s.false_critical.empty() ? "" : s.false_critical.front());
}

}  // namespace
}  // namespace aegis
