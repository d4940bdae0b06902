#include "common/json_check.h"

#include <gtest/gtest.h>

namespace aegis {
namespace {

using nlohmann::json;

TEST(JsonCheck, KindsAndMessagesNameTheField) {
  json j = {{"s", "x"}, {"n", 1.5}, {"i", 3}, {"b", true}, {"o", json::object()}, {"a", {"x", "y"}}, {"bad", {"x", 1}}};
  EXPECT_TRUE(CheckString(j, "s", "job").ok());
  EXPECT_TRUE(CheckNumber(j, "n", "job").ok());
  EXPECT_TRUE(CheckInteger(j, "i", "job").ok());
  EXPECT_TRUE(CheckBool(j, "b", "job").ok());
  EXPECT_TRUE(CheckObject(j, "o", "job").ok());
  EXPECT_TRUE(CheckStringArray(j, "a", "job").ok());
  EXPECT_TRUE(CheckString(j, "absent", "job").ok());
  Status s = CheckString(j, "n", "job");
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(s.message(), "job.n must be a string");
  EXPECT_EQ(CheckInteger(j, "n", "job").message(), "job.n must be a whole number");
  EXPECT_EQ(CheckStringArray(j, "bad", "job").message(), "job.bad[1] must be a string");
  EXPECT_EQ(CheckString(j, "absent", "job", true).message(), "job.absent is required");
}

TEST(JsonCheck, NestingIsCountedOutsideStringsAndStopsPastTheLimit) {
  EXPECT_EQ(JsonNestingDepth("1"), 0u);
  EXPECT_EQ(JsonNestingDepth(R"({"a": [1, {"b": []}]})"), 4u);
  EXPECT_EQ(JsonNestingDepth(R"({"a": "[[[[{{{{", "b": "\"[[["})"), 1u);  // brackets in strings, escaped quotes
  EXPECT_EQ(JsonNestingDepth("]]][["), 2u);                                  // not JSON: still bounded
  const std::string deep = std::string(1000000, '[');
  EXPECT_EQ(JsonNestingDepth(deep), kMaxJsonDepth + 1);  // stops at the first level past the limit
  EXPECT_EQ(JsonNestingDepth(deep, 3), 4u);

  json j;
  const std::string at_limit = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_TRUE(ParseJsonObject(R"({"x": )" + at_limit.substr(1, at_limit.size() - 2) + "}", "job", &j).ok());
  const Status s = ParseJsonObject(R"({"x": )" + at_limit + "}", "job", &j);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(s.message(), "job: nested deeper than 64 levels");
}

TEST(JsonCheck, Times) {
  json j = {{"a", 1764497523.5}, {"b", "2026-11-30T10:12:04Z"}, {"c", "yesterday"}, {"d", true}};
  EXPECT_TRUE(CheckTime(j, "a", "x").ok());
  EXPECT_TRUE(CheckTime(j, "b", "x").ok());
  EXPECT_TRUE(CheckTime(j, "c", "x").IsInvalidArgument());
  EXPECT_TRUE(CheckTime(j, "d", "x").IsInvalidArgument());
  EXPECT_DOUBLE_EQ(TimeValue(j, "a"), 1764497523.5);
  EXPECT_DOUBLE_EQ(TimeValue(j, "b"), 1796033524.0);
}

TEST(JsonCheck, SafeNamesAndPaths) {
  EXPECT_TRUE(IsSafeName("node-0007"));
  EXPECT_TRUE(IsSafeName("job-20261130-0042"));
  EXPECT_FALSE(IsSafeName(""));
  EXPECT_FALSE(IsSafeName(".."));
  EXPECT_FALSE(IsSafeName("a/b"));
  EXPECT_FALSE(IsSafeName("a b"));
  EXPECT_FALSE(IsSafeName(std::string(201, 'a')));
  EXPECT_TRUE(IsSafeRelativePath("nodes/node-1/kernel.log"));
  EXPECT_FALSE(IsSafeRelativePath("/etc/passwd"));
  EXPECT_FALSE(IsSafeRelativePath("nodes/../../x"));
  EXPECT_FALSE(IsSafeRelativePath("nodes//x"));
}

}  // namespace
}  // namespace aegis
