// The node sampler: RDMA port counters from sysfs and GPU readings, shipped as metric
// events and exposed on /metrics.
#include <gtest/gtest.h>

#include <map>

#include "agent/event_output.h"
#include "agent/prom_text.h"
#include "agent/sources/node_sampler/node_sampler.h"
#include "agent/sources/node_sampler/rdma_counters.h"
#include "exposition.h"
#include "test_support.h"

namespace aegis::agent {
namespace {

using testing::Exposition;
using testing::ScratchDir;
using testing::WriteFile;

void FakeRdma(const ScratchDir& d) {
  const std::string port = d / "sys/class/infiniband/mlx5_0/ports/1";
  WriteFile(port + "/counters/port_xmit_data", "123456789012\n");
  WriteFile(port + "/counters/symbol_error", "0\n");
  WriteFile(port + "/counters/VL15_dropped", "3\n");
  WriteFile(port + "/hw_counters/np_ecn_marked_roce_packets", "42\n");
  WriteFile(port + "/hw_counters/out_of_sequence", "7\n");
  WriteFile(port + "/hw_counters/lifespan", "10\n");
  WriteFile(port + "/hw_counters/broken", "N/A\n");
  WriteFile(d / "sys/class/infiniband/mlx5_0/ports/2/hw_counters/rp_cnp_handled", "5\n");
}

TEST(RdmaCounters, ParsesCounterFiles) {
  uint64_t v = 0;
  EXPECT_TRUE(ParseCounterValue("42\n", &v));
  EXPECT_EQ(v, 42u);
  EXPECT_TRUE(ParseCounterValue(" 18446744073709551615 ", &v));
  EXPECT_EQ(v, 18446744073709551615ull);
  EXPECT_FALSE(ParseCounterValue("18446744073709551616", &v));
  EXPECT_FALSE(ParseCounterValue("-1", &v));
  EXPECT_FALSE(ParseCounterValue("", &v));
  EXPECT_FALSE(ParseCounterValue("12 34", &v));
  EXPECT_FALSE(ParseCounterValue("0x10", &v));
}

TEST(RdmaCounters, ReadsCountersAndHwCounters) {
  ScratchDir d;
  FakeRdma(d);
  auto cs = ReadRdmaCounters(d / "sys");
  std::map<std::string, uint64_t> byname;
  for (auto& c : cs) byname[c.device + "/" + std::to_string(c.port) + "/" + c.name + (c.hw ? "/hw" : "")] = c.value;
  EXPECT_EQ(byname.size(), 6u);
  EXPECT_EQ(byname["mlx5_0/1/port_xmit_data"], 123456789012u);
  EXPECT_EQ(byname["mlx5_0/1/np_ecn_marked_roce_packets/hw"], 42u);
  EXPECT_EQ(byname["mlx5_0/2/rp_cnp_handled/hw"], 5u);
  EXPECT_EQ(byname.count("mlx5_0/1/lifespan/hw"), 0u);  // not a counter
  EXPECT_TRUE(ReadRdmaCounters(d / "nothing").empty());
}

class FakeGpu : public GpuReader {
 public:
  std::vector<GpuSample> Sample() override {
    ++n;
    return {{0, "DCGM_FI_DEV_GPU_TEMP", 60.0 + n, false}, {1, "DCGM_FI_DEV_SM_CLOCK", 1980, false},
            {1, "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", 2, true}};
  }
  GpuFacts Facts() override { return {}; }
  int n = 0;
};

TEST(NodeSampler, ShipsCataloguedSeriesAndExposesEverything) {
  ScratchDir d;
  FakeRdma(d);
  FakeGpu gpu;
  AgentCounters counters;
  auto rules = testing::BuiltinRules()->Current();
  NodeSampler s("node-0007", d / "sys", &gpu,
                [&](std::string_view m) { return rules->catalog.FindMetric(m) != nullptr; }, &counters);
  s.Sample(1000);
  WriteFile(d / "sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_ecn_marked_roce_packets", "50\n");
  s.Sample(1015);
  EventOutput out(&counters);
  s.Flush(&out);
  std::map<std::string, nlohmann::json> by;
  for (auto& e : out.events()) {
    auto j = nlohmann::json::parse(e);
    by[j["metric"].get<std::string>() + "@" + j["device"].get<std::string>()] = j;
  }
  ASSERT_TRUE(by.count("np_ecn_marked_roce_packets@mlx5_0"));
  auto ecn = by["np_ecn_marked_roce_packets@mlx5_0"];
  EXPECT_EQ(ecn["type"], "metric");
  EXPECT_EQ(ecn["node"], "node-0007");
  EXPECT_EQ(ecn["id"], "node-0007:metric:np_ecn_marked_roce_packets:mlx5_0:1000.000");
  EXPECT_EQ(ecn["t"], nlohmann::json({1000.0, 1015.0}));
  EXPECT_EQ(ecn["v"], nlohmann::json({42.0, 50.0}));
  EXPECT_TRUE(by.count("rp_cnp_handled@mlx5_0/2"));
  EXPECT_TRUE(by.count("port_xmit_data@mlx5_0"));
  EXPECT_TRUE(by.count("DCGM_FI_DEV_GPU_TEMP@0"));
  EXPECT_TRUE(by.count("DCGM_FI_DEV_SM_CLOCK@1"));
  EXPECT_FALSE(by.count("VL15_dropped@mlx5_0"));  // not read by the analyzer: /metrics only
  out.Queued();
  s.Flush(&out);
  EXPECT_EQ(out.pending(), 0u);  // shipped once

  PromText p;
  s.Render(&p);
  auto e = Exposition::Parse(p.str());
  ASSERT_EQ(e.error, "") << p.str();
  EXPECT_EQ(e.samples["aegis_node_rdma_np_ecn_marked_roce_packets_total{device=\"mlx5_0\",port=\"1\"}"], 50);
  EXPECT_EQ(e.samples["aegis_node_rdma_VL15_dropped_total{device=\"mlx5_0\",port=\"1\"}"], 3);
  EXPECT_EQ(e.samples["aegis_node_rdma_rp_cnp_handled_total{device=\"mlx5_0\",port=\"2\"}"], 5);
  EXPECT_EQ(e.samples["aegis_node_gpu_temperature_celsius{gpu=\"0\"}"], 62);
  EXPECT_EQ(e.samples["aegis_node_gpu_sm_clock_hertz{gpu=\"1\"}"], 1.98e9);
  EXPECT_EQ(e.type["aegis_node_gpu_pcie_replays_total"], "counter");
}

}  // namespace
}  // namespace aegis::agent
