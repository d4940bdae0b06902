// The "node_sampler" adapter (node_sampler_source.cc) as the loop drives it, built through
// the registry: sampled every sample_s from the first pass, the series shipped a
// metric_flush_s after the start and then every period, and when the agent stops.
#include <gtest/gtest.h>

#include "sources/source_harness.h"
#include "test_support.h"

namespace aegis::agent {
namespace {

using testing::ScratchDir;
using testing::WriteFile;

TEST(NodeSamplerInput, SamplesEachPeriodAndShipsEachFlushPeriodAndAtStop) {
  ScratchDir d;
  const std::string port = d / "sys/class/infiniband/mlx5_0/ports/1";
  WriteFile(port + "/hw_counters/np_ecn_marked_roce_packets", "42\n");
  testing::SourceHarness h(d);
  h.config.roots.sys = d / "sys";
  h.config.nvml_library = "libnvidia-ml-absent.so.1";  // GPU readings skipped
  h.config.sample_s = 15;
  h.config.metric_flush_s = 60;
  auto s = h.Create("node_sampler");
  ASSERT_TRUE(s);
  EXPECT_FALSE(h.counters.nvml_available.load());
  EXPECT_EQ(s->due(), 0);
  EXPECT_FALSE(s->Poll({0, 1000, false}).failed);
  EXPECT_EQ(s->due(), 15);
  WriteFile(port + "/hw_counters/np_ecn_marked_roce_packets", "50\n");
  s->Poll({15, 1015, false});
  EXPECT_TRUE(h.Take().empty()) << "nothing ships before the first flush period";
  s->Poll({60, 1060, false});
  auto evs = h.Take();
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0]["metric"], "np_ecn_marked_roce_packets");
  EXPECT_EQ(evs[0]["t"], nlohmann::json({1000.0, 1015.0, 1060.0}));
  EXPECT_EQ(evs[0]["v"], nlohmann::json({42.0, 50.0, 50.0}));
  s->Poll({75, 1075, false});
  s->Stop();  // what was sampled since goes now
  evs = h.Take();
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0]["t"], nlohmann::json({1075.0}));
}

}  // namespace
}  // namespace aegis::agent
