#include "match/database_cache.h"

#include <gtest/gtest.h>
#include <hs/hs.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "match/matcher.h"
#include "test_util.h"

namespace aegis {
namespace {

Catalog Rules() {
  return Catalog::FromSources({{"t.yaml", R"(
rules:
  - {id: a, class: critical, component: gpu, pattern: 'NVRM: (?P<what>fallen)', samples: ['NVRM: fallen']}
  - {id: b, class: dist, component: host, pattern: 'peer (?P<peer>\S+)<\d+>'}
)"}});
}

// Every file of the cache directory.
std::vector<std::filesystem::path> Files(const std::string& dir) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) out.push_back(e.path());
  return out;
}

size_t CandidatesIn(const Matcher& m, const std::string& text) {
  auto s = m.NewScratch();
  std::vector<CandidateLine> lines;
  m.Scan(text, s, lines);
  return lines.size();
}

class DatabaseCache : public ::testing::Test {
 protected:
  void SetUp() override { setenv("AEGIS_CACHE_DIR", (dir_.path() + "/cache").c_str(), 1); }
  void TearDown() override { unsetenv("AEGIS_CACHE_DIR"); }
  std::string Dir() const { return dir_.path() + "/cache"; }
  test::TempDir dir_;
};

TEST_F(DatabaseCache, ASecondMatcherLoadsWhatTheFirstCompiled) {
  Catalog cat = Rules();
  const std::string text = "noise\nx NVRM: fallen\npeer 10.0.0.1<55>\n";
  { Matcher first(cat); EXPECT_EQ(CandidatesIn(first, text), 2u); }
  ASSERT_EQ(Files(Dir()).size(), 1u);
  const auto written = std::filesystem::last_write_time(Files(Dir())[0]);
  Matcher second(cat);
  EXPECT_EQ(CandidatesIn(second, text), 2u);
  ASSERT_EQ(Files(Dir()).size(), 1u);
  EXPECT_EQ(std::filesystem::last_write_time(Files(Dir())[0]), written);  // loaded, not written again
}

TEST_F(DatabaseCache, TheCallersBlobComesBackWithTheDatabase) {
  hs_database_t* db = nullptr;
  hs_compile_error_t* err = nullptr;
  ASSERT_EQ(hs_compile("fallen", 0, HS_MODE_BLOCK, nullptr, &db, &err), HS_SUCCESS);
  const std::string blob("plan\0with a zero byte", 21);
  StoreCachedDatabase("k1", db, blob);
  hs_free_database(db);
  CachedDatabase got = LoadCachedDatabase("k1");
  ASSERT_NE(got.db, nullptr);
  EXPECT_EQ(got.extra, blob);
  hs_free_database(got.db);
  EXPECT_EQ(LoadCachedDatabase("k2").db, nullptr);  // another key
}

TEST_F(DatabaseCache, AnotherRuleSetHasAnotherKey) {
  EXPECT_NE(DatabaseKey({"a"}), DatabaseKey({"b"}));
  EXPECT_NE(DatabaseKey({"ab", "c"}), DatabaseKey({"a", "bc"}));
  EXPECT_NE(DatabaseKey({"a", ""}), DatabaseKey({"a"}));
  EXPECT_EQ(DatabaseKey({"a", "b"}), DatabaseKey({"a", "b"}));
}

TEST_F(DatabaseCache, ACorruptOrTruncatedFileIsCompiledOver) {
  Catalog cat = Rules();
  const std::string text = "x NVRM: fallen\n";
  { Matcher first(cat); }
  const auto file = Files(Dir()).at(0);
  const auto size = std::filesystem::file_size(file);
  for (const std::string& bad : {std::string(size, 'x'), std::string("HSDB"), std::string()}) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bad;
    Matcher m(cat);
    EXPECT_EQ(CandidatesIn(m, text), 1u);
    EXPECT_EQ(std::filesystem::file_size(file), size);  // rewritten whole
  }
}

TEST_F(DatabaseCache, NoUsableDirectoryOnlyCostsTheCompile) {
  Catalog cat = Rules();
  setenv("AEGIS_CACHE_DIR", "off", 1);
  EXPECT_EQ(DatabaseCacheDir(), "");
  { Matcher m(cat); EXPECT_EQ(CandidatesIn(m, "x NVRM: fallen\n"), 1u); }
  // A path below a regular file cannot be created.
  std::ofstream(dir_.path() + "/file") << "x";
  setenv("AEGIS_CACHE_DIR", (dir_.path() + "/file/cache").c_str(), 1);
  Matcher m(cat);
  EXPECT_EQ(CandidatesIn(m, "x NVRM: fallen\n"), 1u);
}

}  // namespace
}  // namespace aegis
