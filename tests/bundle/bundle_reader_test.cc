#include "bundle/bundle_reader.h"

#include <gtest/gtest.h>

namespace aegis {
namespace {

TEST(BundleReader, TopologyToleratesOddFields) {
  std::vector<std::string> problems;
  Topology t = ParseTopology(R"({"nodes": [{"host": "a", "gpus": "oops", "extra": 1}, {"no_host": true},
    {"host": "a"}], "switches": [{"name": "tor", "uplinks": "agg"}]})", &problems);
  ASSERT_EQ(t.nodes.size(), 1u);
  EXPECT_EQ(problems.size(), 2u);  // nameless node, duplicate host
  EXPECT_EQ(t.switches[0].uplinks, std::vector<std::string>{"agg"});
}

TEST(BundleReader, UnusableTopologyOrJobThrows) {
  std::vector<std::string> p;
  EXPECT_THROW(ParseTopology("{\"nodes\": [", &p), BundleError);
  EXPECT_THROW(ParseTopology("[]", &p), BundleError);
  EXPECT_THROW(ParseTopology("{}", &p), BundleError);
  EXPECT_THROW(ParseJob("not json", &p), BundleError);
}

TEST(BundleReader, Job) {
  std::vector<std::string> p;
  Job j = ParseJob(R"({"id": "job-1", "state": "hung", "started_at": "2026-11-30T08:00:00Z",
    "hosts": ["a", "b"], "ranks": [{"rank": 0, "host": "b", "gpu": 3}], "iteration_seconds": [1.9, "x", 2.4]})", &p);
  EXPECT_EQ(j.state, "hung");
  EXPECT_DOUBLE_EQ(j.started_at, 1796025600.0);
  ASSERT_EQ(j.ranks.size(), 1u);
  EXPECT_EQ(j.ranks[0].gpu, 3);
  EXPECT_EQ(j.iteration_seconds.size(), 2u);
  Job k = ParseJob(R"({"state": "exploded", "hosts": []})", &p);
  EXPECT_EQ(k.state, "failed");
}

TEST(BundleReader, FactsFlatten) {
  std::vector<std::string> p;
  Facts f = ParseFacts(R"({"gpu": {"count": 8, "persistence_mode": "Enabled"}, "pcie": {"acs_enabled": false},
    "nic": {"mlx5_0": {"mtu": 4096}}, "env.NCCL_IB_HCA": "mlx5"})", &p);
  EXPECT_EQ(f["gpu.count"], "8");
  EXPECT_EQ(f["pcie.acs_enabled"], "false");
  EXPECT_EQ(f["nic.mlx5_0.mtu"], "4096");
  EXPECT_EQ(f["env.NCCL_IB_HCA"], "mlx5");
  EXPECT_TRUE(ParseFacts("{\"a\": ", &p).empty());
  EXPECT_FALSE(p.empty());
}

}  // namespace
}  // namespace aegis
