#include "store/text_checks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace aegis::store {
namespace {

TEST(TextChecksTest, StorableTextIsUtf8WithoutNul) {
  EXPECT_TRUE(IsStorableText(""));
  EXPECT_TRUE(IsStorableText("node-1 \xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"));
  EXPECT_FALSE(IsStorableText(std::string("a\0b", 3)));
  EXPECT_FALSE(IsStorableText("\xFF"));
  EXPECT_FALSE(IsStorableText("\xC3"));          // truncated sequence
  EXPECT_FALSE(IsStorableText("\xC0\xAF"));      // overlong
  EXPECT_FALSE(IsStorableText("\xED\xA0\x80"));  // surrogate
}

TEST(TextChecksTest, NamesAreNonEmptyAndBounded) {
  EXPECT_TRUE(CheckName("host", "node-1").ok());
  EXPECT_TRUE(CheckName("host", "").IsInvalidArgument());
  EXPECT_NE(CheckName("host", "").message().find("host"), std::string::npos);
  EXPECT_EQ(CheckName("host", std::string(kMaxNameBytes + 1, 'a')).code(), Status::Code::kResourceExhausted);
  EXPECT_TRUE(CheckText("reason", "").ok());
}

TEST(TextChecksTest, DocumentsMustBeJson) {
  EXPECT_TRUE(CheckJson("body", R"({"a":[1,2,{"b":null}]})").ok());
  EXPECT_TRUE(CheckJson("body", " 42 ").ok());
  EXPECT_TRUE(CheckJson("body", "").IsInvalidArgument());
  EXPECT_TRUE(CheckJson("body", "{\"a\":1").IsInvalidArgument());
  EXPECT_TRUE(CheckJson("body", "{} {}").IsInvalidArgument());
  EXPECT_TRUE(CheckJson("body", "\"\xFF\"").IsInvalidArgument());
  EXPECT_TRUE(CheckJson("body", std::string("\"a\0\"", 4)).IsInvalidArgument());
}

TEST(TextChecksTest, TimesAreFiniteOrExplicitlyUnknown) {
  EXPECT_TRUE(CheckTime("at", 1764500000.5).ok());
  EXPECT_TRUE(CheckTime("at", NAN).IsInvalidArgument());
  EXPECT_TRUE(CheckTime("at", NAN, /*allow_nan=*/true).ok());
  EXPECT_TRUE(CheckTime("at", INFINITY, true).IsInvalidArgument());
  EXPECT_TRUE(CheckTime("at", -INFINITY).IsInvalidArgument());
}

}  // namespace
}  // namespace aegis::store
