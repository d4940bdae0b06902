#include "common/time.h"

#include <gtest/gtest.h>

namespace aegis {
namespace {

constexpr double k20261130 = 1795996800.0;  // 2026-11-30T00:00:00Z

TEST(Time, Iso) {
  EXPECT_DOUBLE_EQ(*ParseIsoTime("2026-11-30T10:11:12Z"), k20261130 + 36672);
  EXPECT_DOUBLE_EQ(*ParseIsoTime("2026-11-30T10:11:12.5+00:00"), k20261130 + 36672.5);
  EXPECT_DOUBLE_EQ(*ParseIsoTime("2026-11-30 18:11:12,000 +08:00"), k20261130 + 36672);
  EXPECT_DOUBLE_EQ(*ParseIsoTime("2026-11-30T12:11:12+0200"), k20261130 + 36672);
  size_t used = 0;
  ParseIsoTime("2026-11-30T10:11:12.123456+00:00 node kernel: x", &used);
  EXPECT_EQ(used, 32u);
  EXPECT_FALSE(ParseIsoTime("2026-13-30T10:11:12"));
  EXPECT_FALSE(ParseIsoTime("not a time"));
}

TEST(Time, SyslogAndCtime) {
  EXPECT_DOUBLE_EQ(*ParseSyslogTime("Nov 30 10:11:12 host", 2026), k20261130 + 36672);
  EXPECT_DOUBLE_EQ(*ParseSyslogTime("Dec  1 00:00:00", 2026), k20261130 + 86400);
  EXPECT_DOUBLE_EQ(*ParseCtime("Mon Nov 30 10:11:12 2026"), k20261130 + 36672);
  EXPECT_DOUBLE_EQ(*ParseCtime("Fri Apr  5 21:29:39 2024"), *ParseIsoTime("2024-04-05T21:29:39Z"));
  EXPECT_FALSE(ParseSyslogTime("Foo 30 10:11:12", 2026));
}

TEST(Time, YearOf) {
  EXPECT_EQ(YearOf(k20261130), 2026);
  EXPECT_EQ(YearOf(0), 1970);
  EXPECT_EQ(MonthFromAbbrev("dec"), 12);
}

}  // namespace
}  // namespace aegis
