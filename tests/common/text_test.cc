#include "common/text.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace aegis {
namespace {

TEST(Text, TrimAndCase) {
  EXPECT_EQ(Trim("  a b \r\n"), "a b");
  EXPECT_EQ(ToLower("MLX5_0"), "mlx5_0");
  EXPECT_TRUE(IStartsWith("NVRM: Xid", "nvrm"));
  EXPECT_FALSE(IStartsWith("NV", "nvrm"));
}

TEST(Text, SanitizeReplacesInvalidUtf8AndControls) {
  std::string bad = "ok \xff\xfe end\x01";
  std::string s = SanitizeForOutput(bad);
  EXPECT_TRUE(IsValidUtf8(s));
  EXPECT_EQ(s, "ok \xEF\xBF\xBD\xEF\xBF\xBD end\xEF\xBF\xBD");
  EXPECT_EQ(SanitizeForOutput("h\xC3\xA9llo"), "h\xC3\xA9llo");  // valid UTF-8 kept
  EXPECT_FALSE(IsValidUtf8("\xC0\x80"));                          // overlong
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));                      // surrogate
}

TEST(Text, SanitizeCutsLongText) {
  std::string s = SanitizeForOutput(std::string(5000, 'x'), 100);
  EXPECT_EQ(s.size(), 103u);
  EXPECT_EQ(s.substr(100), "...");
  // Cut where a character ends, ASCII runs and other characters mixed.
  EXPECT_EQ(SanitizeForOutput("abc\xC3\xA9" "def", 4), "abc\xC3\xA9...");
  EXPECT_EQ(SanitizeForOutput("abc\xC3\xA9" "def", 3), "abc...");
  EXPECT_EQ(SanitizeForOutput("a\tb\x7F" " c\xC3\xA9\x01", 100), "a\tb\xEF\xBF\xBD" " c\xC3\xA9\xEF\xBF\xBD");
}

TEST(Text, Numbers) {
  EXPECT_EQ(ParseInt(" 42 "), 42);
  EXPECT_FALSE(ParseInt("4x"));
  EXPECT_FALSE(ParseInt(""));
  EXPECT_DOUBLE_EQ(*ParseDouble("8421.113902"), 8421.113902);
}

}  // namespace
}  // namespace aegis

namespace aegis {
namespace {
TEST(Text, CountNewlinesMatchesNaiveCount) {
  std::string s;
  for (int i = 0; i < 1000; ++i) s.push_back(static_cast<char>((i * 37) % 256));
  for (size_t b = 0; b < 40; ++b)
    for (size_t e = b; e < s.size(); e += 97)
      EXPECT_EQ(CountNewlines(s.data() + b, s.data() + e),
                static_cast<uint64_t>(std::count(s.begin() + b, s.begin() + e, '\n')));
  EXPECT_EQ(CountNewlines(s.data(), s.data()), 0u);
  for (size_t len : {17u, 2040u, 2048u, 100003u}) {  // all newlines: every lane counter full
    std::string nl(len, '\n');
    EXPECT_EQ(CountNewlines(nl.data(), nl.data() + nl.size()), len);
  }
}
}  // namespace
}  // namespace aegis
