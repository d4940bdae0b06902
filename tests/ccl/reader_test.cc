#include "ccl/reader.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace aegis {
namespace {

TEST(CclReader, NewestRecordPerCommAndRank) {
  test::TempDir dir;
  test::WriteFile(dir.Sub("a.jsonl"),
                  R"({"v": 1, "ts": 10.0, "pid": 7, "gpu": 3, "comm": "00000000000000aa", "rank": 0, "nranks": 2, "coll": {"AllReduce": {"launched": 5, "completed": 5}}, "net": [], "recent": []}
{"v": 1, "ts": 12.0, "pid": 7, "gpu": 3, "comm": "00000000000000aa", "rank": 0, "nranks": 2, "coll": {"AllReduce": {"launched": 9, "completed": 8}}, "net": [{"peer": 1, "dir": "send", "posted": 40, "completed": 39, "bytes": 100, "recent_gbps": 23.5}], "recent": [{"func": "AllReduce", "seq": 7, "bytes": 64, "start_ts": 11.0, "td_us": 51.5}], "future_field": {"x": 1}}
{"v": 1, "ts": 11.0, "comm": "00000000000000aa", "rank": 1}
not json at all
{"v": 1, "ts": 11.5, "comm": "00000000000000bb"}
)");
  std::map<std::pair<std::string, int>, CclRecord> newest;
  CclFileStats st = ReadCclFile(dir.Sub("a.jsonl"), "nodes/n1/ccl/a.jsonl", "n1", &newest);
  EXPECT_EQ(st.lines, 5u);
  EXPECT_EQ(st.bad_lines, 2u);  // garbage, and a record without a rank
  ASSERT_EQ(newest.size(), 2u);
  const auto key0 = std::make_pair(std::string("00000000000000aa"), 0);
  const auto key1 = std::make_pair(std::string("00000000000000aa"), 1);
  const CclRecord& r = newest[key0];
  EXPECT_EQ(r.line, 2u);
  EXPECT_EQ(r.host, "n1");
  EXPECT_EQ(r.gpu, 3);
  EXPECT_EQ(r.coll.at("AllReduce"), (std::pair<uint64_t, uint64_t>{9, 8}));
  ASSERT_EQ(r.net.size(), 1u);
  EXPECT_EQ(r.net[0].posted, 40u);
  EXPECT_DOUBLE_EQ(r.net[0].recent_gbps, 23.5);
  ASSERT_EQ(r.recent.size(), 1u);
  EXPECT_DOUBLE_EQ(r.recent[0].td_us, 51.5);
  EXPECT_EQ(newest[key1].gpu, -1);  // gpu absent: unknown

  // A newer record in a second file wins; an older one does not.
  test::WriteFile(dir.Sub("b.jsonl"), R"({"ts": 20.0, "comm": "00000000000000aa", "rank": 1, "gpu": null}
{"ts": 1.0, "comm": "00000000000000aa", "rank": 0}
)");
  ReadCclFile(dir.Sub("b.jsonl"), "b", "n2", &newest);
  EXPECT_EQ(newest[key1].host, "n2");
  EXPECT_EQ(newest[key0].host, "n1");
  EXPECT_FALSE(ReadCclFile(dir.Sub("missing.jsonl"), "m", "n", &newest).status.ok());
}

}  // namespace
}  // namespace aegis
