// The TD straggler rule on counters built in memory: a straggler arrives late, so its
// collectives are the shortest; a GPU is excused only when it clearly waits elsewhere.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "engine/incident_fixture.h"
#include "engine/stages.h"

namespace aegis {
namespace {

// One snapshot record of GPU g of host h in communicator `comm` (rank `rank` of n), whose
// last collectives lasted td_us[k] (seq 100 + k).
std::string Record(int h, int g, const char* comm, const char* name, int rank, int n, const std::vector<double>& td) {
  std::string recent;
  for (size_t k = 0; k < td.size(); ++k)
    recent += fmt::format("{}{{\"func\": \"AllReduce\", \"seq\": {}, \"bytes\": 1048576, \"start_ts\": {}, \"td_us\": {}}}",
                          k ? "," : "", 100 + k, test::kJobStart + 60 + static_cast<double>(k), td[k]);
  return fmt::format(
      "{{\"v\": 1, \"ts\": {}, \"host\": \"node-{}\", \"pid\": {}, \"gpu\": {}, \"comm\": \"{}\", \"comm_name\": \"{}\", "
      "\"nranks\": {}, \"nnodes\": 1, \"rank\": {}, \"coll\": {{\"AllReduce\": {{\"launched\": 120, \"completed\": 120}}}}, "
      "\"net\": [], \"recent\": [{}]}}\n",
      test::kJobStart + 100, h, 1000 + g, g, comm, name, n, rank, recent);
}

// Four hosts with two GPUs each: a TP communicator per host (GPUs 0 and 1), a DP ring per
// GPU index across hosts. GPU 0 of host 2 computes slowly: in its TP pair it arrives late
// and waits least (TD 0.5 x), its partner waits (1.5 x).
void SlowGpu(test::IncidentFixture& f, double dp_ratio_of_straggler) {
  const std::vector<double> base(6, 1000.0);
  for (int h = 1; h <= 4; ++h) {
    const std::string tp = fmt::format("{:016x}", 0x7000 + h);
    const bool slow = h == 2;
    f.Ccl(Record(h, 0, tp.c_str(), "tp", 0, 2, std::vector<double>(6, slow ? 500.0 : 1000.0)), h);
    f.Ccl(Record(h, 1, tp.c_str(), "tp", 1, 2, std::vector<double>(6, slow ? 1500.0 : 1000.0)), h);
    for (int g = 0; g < 2; ++g) {
      const std::string dp = fmt::format("{:016x}", 0xd000 + g);
      // The other DP ranks share the straggler's delay evenly; noise of about 1 percent.
      const double td = slow && g == 0 ? 1000.0 * dp_ratio_of_straggler : 1000.0;
      f.Ccl(Record(h, g, dp.c_str(), "dp", h - 1, 4, std::vector<double>(6, td + (h % 2 ? 3.0 : -3.0))), h);
    }
  }
}

TEST(CclDegradation, AStragglerAtTheMeanPlusNoiseElsewhereIsNotExcused) {
  test::IncidentFixture f(4, JobState::kSlow, 2);
  SlowGpu(f, 1.01);
  Verdict v;
  ASSERT_TRUE(CclDegradationStage(f.incident(), &v));
  EXPECT_EQ(v.stage, Stage::kCclDegradation);
  ASSERT_EQ(v.isolate.size(), 1u);
  EXPECT_EQ(v.isolate[0].host, "node-2");
  EXPECT_EQ(v.isolate[0].device, "gpu0");
}

TEST(CclDegradation, AGpuThatClearlyWaitsElsewhereIsExcused) {
  // GPU 0 of host 2 is early in TP only because it waited long in DP (1.4 x): it is a
  // victim of a straggler elsewhere, not one itself.
  test::IncidentFixture f(4, JobState::kSlow, 2);
  SlowGpu(f, 1.4);
  Verdict v;
  const bool decided = CclDegradationStage(f.incident(), &v);
  for (const auto& i : v.isolate) EXPECT_FALSE(i.host == "node-2" && i.device == "gpu0") << v.summary;
  (void)decided;
}

}  // namespace
}  // namespace aegis
