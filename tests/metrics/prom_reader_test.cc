#include "metrics/prom_reader.h"

#include <gtest/gtest.h>

namespace aegis {
namespace {

TEST(PromReader, LabelsInEveryExporterForm) {
  auto r = ParseQueryRange(R"({"status": "success", "data": {"resultType": "matrix", "result": [
    {"metric": {"__name__": "DCGM_FI_DEV_GPU_TEMP", "Hostname": "node-1", "gpu": "3"}, "values": [[1.5, "61"], [16.5, "NaN"], [31.5, "62.5"]]},
    {"metric": {"__name__": "np_ecn_marked_roce_packets", "instance": "node-2:9100", "device": "mlx5_1"}, "values": [[1, "+Inf"], [2, "7"]]},
    {"metric": {"node": "node-3"}, "values": [[1, "1"]]},
    {"metric": {"__name__": "orphan"}, "values": [[1, "1"]]},
    {"metric": {"host": "node-4"}, "values": []}]}})",
                           "rate_query", "metrics/x.json");
  ASSERT_TRUE(r.status.ok());
  ASSERT_EQ(r.series.size(), 3u);
  EXPECT_EQ(r.series[0].host, "node-1");
  EXPECT_EQ(r.series[0].device, "3");
  EXPECT_EQ(r.series[0].v, (std::vector<double>{61, 62.5}));  // NaN skipped
  EXPECT_EQ(r.series[1].host, "node-2");                      // port stripped
  EXPECT_EQ(r.series[1].device, "mlx5_1");
  EXPECT_EQ(r.series[1].v.size(), 1u);
  EXPECT_EQ(r.series[2].metric, "rate_query");  // unnamed series: the file's name
  EXPECT_EQ(r.skipped, 2u);                     // no host label; no values
}

TEST(PromReader, BadBodiesAreErrorsNotCrashes) {
  EXPECT_TRUE(ParseQueryRange("{\"data\": {\"result\": [", "m", "f").status.IsInvalidArgument());
  EXPECT_TRUE(ParseQueryRange("[]", "m", "f").status.IsInvalidArgument());
  EXPECT_TRUE(ParseQueryRange("", "m", "f").status.IsInvalidArgument());
  // Just data (no envelope) is accepted too.
  auto r = ParseQueryRange(R"({"resultType": "matrix", "result": [{"metric": {"host": "a"}, "values": [[1, "2"]]}]})", "m", "f");
  EXPECT_TRUE(r.status.ok());
  EXPECT_EQ(r.series.size(), 1u);
}

// The parser is kept between answers on a thread: an answer read after a larger one, after a
// broken one, or after one past the size kept, reads exactly as it reads alone.
TEST(PromReader, EachAnswerReadsAloneThoughTheParserIsKept) {
  const std::string small = R"({"data": {"result": [{"metric": {"host": "a"}, "values": [[1, "2"], [2, "3"]]}]}})";
  const auto alone = ParseQueryRange(small, "m", "f");
  ASSERT_TRUE(alone.status.ok());
  auto big_body = [](size_t series, size_t pad) {
    std::string b = R"({"data": {"result": [)";
    for (size_t i = 0; i < series; ++i)
      b += (i ? ", " : "") + std::string(R"({"metric": {"host": "h)") + std::to_string(i) + R"(", "pad": ")" +
           std::string(pad, 'x') + R"("}, "values": [[1, "5"]]})";
    return b + "]}}";
  };
  const auto big = ParseQueryRange(big_body(2000, 10), "m", "f");
  ASSERT_TRUE(big.status.ok());
  EXPECT_EQ(big.series.size(), 2000u);
  EXPECT_TRUE(ParseQueryRange(small.substr(0, small.size() / 2), "m", "f").status.IsInvalidArgument());
  const auto huge = ParseQueryRange(big_body(1, 65u << 20), "m", "f");  // past the 64 MiB kept
  ASSERT_TRUE(huge.status.ok());
  EXPECT_EQ(huge.series.size(), 1u);
  for (const auto& r : {ParseQueryRange(small, "m", "f"), ParseQueryRange(small, "m", "f")}) {
    ASSERT_TRUE(r.status.ok());
    ASSERT_EQ(r.series.size(), 1u);
    EXPECT_EQ(r.series[0].host, "a");
    EXPECT_EQ(r.series[0].v, alone.series[0].v);
    EXPECT_EQ(r.series[0].t, alone.series[0].t);
  }
}

}  // namespace
}  // namespace aegis
