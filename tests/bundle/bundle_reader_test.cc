#include "bundle/bundle_reader.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace aegis {
namespace {

TEST(BundleReader, TopologyToleratesOddFields) {
  test::CollectingReporter r;
  Topology t;
  ASSERT_TRUE(ParseTopology(R"({"nodes": [{"host": "a", "gpus": "oops", "extra": 1}, {"no_host": true},
    {"host": "a"}], "switches": [{"name": "tor", "uplinks": "agg"}]})", &t, &r).ok());
  ASSERT_EQ(t.nodes.size(), 1u);
  ASSERT_EQ(r.reports.size(), 2u);  // nameless node, duplicate host
  EXPECT_EQ(r.reports[0].first, "topology.json");
  EXPECT_TRUE(r.reports[0].second.IsInvalidArgument());
  EXPECT_EQ(t.switches[0].uplinks, std::vector<std::string>{"agg"});
}

TEST(BundleReader, UnusableTopologyOrJobIsAnError) {
  Topology t;
  Job j;
  EXPECT_TRUE(ParseTopology("{\"nodes\": [", &t, nullptr).IsInvalidArgument());
  EXPECT_TRUE(ParseTopology("[]", &t, nullptr).IsInvalidArgument());
  EXPECT_TRUE(ParseTopology("{}", &t, nullptr).IsInvalidArgument());
  EXPECT_TRUE(ParseJob("not json", &j, nullptr).IsInvalidArgument());
  EXPECT_TRUE(t.nodes.empty());
}

TEST(BundleReader, Job) {
  test::CollectingReporter r;
  Job j;
  ASSERT_TRUE(ParseJob(R"({"id": "job-1", "state": "hung", "started_at": "2026-11-30T08:00:00Z",
    "hosts": ["a", "b"], "ranks": [{"rank": 0, "host": "b", "gpu": 3}], "iteration_seconds": [1.9, "x", 2.4]})", &j,
                       &r).ok());
  EXPECT_EQ(j.state, JobState::kHung);
  EXPECT_DOUBLE_EQ(j.started_at, 1796025600.0);
  ASSERT_EQ(j.ranks.size(), 1u);
  EXPECT_EQ(j.ranks[0].gpu, 3);
  EXPECT_EQ(j.iteration_seconds.size(), 2u);
  EXPECT_TRUE(r.reports.empty());
  // An unknown state is reported, never a new category.
  Job k;
  ASSERT_TRUE(ParseJob(R"({"state": "exploded", "hosts": ["a"]})", &k, &r).ok());
  EXPECT_EQ(k.state, JobState::kFailed);
  ASSERT_EQ(r.reports.size(), 1u);
  EXPECT_NE(r.reports[0].second.message().find("exploded"), std::string::npos);
  Job running;
  ASSERT_TRUE(ParseJob(R"({"state": "running", "hosts": ["a"]})", &running, &r).ok());
  EXPECT_EQ(running.state, JobState::kRunning);
}

TEST(BundleReader, JobNotBefore) {
  test::CollectingReporter r;
  Job j;
  ASSERT_TRUE(ParseJob(R"({"id": "job-1", "hosts": ["a", "b", "c"],
    "not_before": {"a": 1796025700.5, "b": "2026-11-30T08:05:00Z", "c": "soon"}})", &j, &r).ok());
  ASSERT_EQ(j.not_before.size(), 2u);
  EXPECT_DOUBLE_EQ(j.not_before["a"], 1796025700.5);
  EXPECT_DOUBLE_EQ(j.not_before["b"], 1796025900.0);
  ASSERT_EQ(r.reports.size(), 1u);  // c's is not a time: said, and left out
  EXPECT_NE(r.reports[0].second.message().find("not_before of c"), std::string::npos);
}

TEST(BundleReader, FactsFlatten) {
  Facts f;
  ASSERT_TRUE(ParseFacts(R"({"gpu": {"count": 8, "persistence_mode": "Enabled"}, "pcie": {"acs_enabled": false},
    "nic": {"mlx5_0": {"mtu": 4096}}, "env.NCCL_IB_HCA": "mlx5"})", &f).ok());
  EXPECT_EQ(f["gpu.count"], "8");
  EXPECT_EQ(f["pcie.acs_enabled"], "false");
  EXPECT_EQ(f["nic.mlx5_0.mtu"], "4096");
  EXPECT_EQ(f["env.NCCL_IB_HCA"], "mlx5");
  // Every other kind of value, as ConfigCheck compares them between hosts.
  Facts k;
  ASSERT_TRUE(ParseFacts(R"({"rdma": {"devices": ["mlx5_0", "mlx5_1"], "none": []}, "ratio": 0.5, "mb": 65536.0,
    "big": 18446744073709551615, "neg": -3, "gone": null})", &k).ok());
  EXPECT_EQ(k["rdma.devices"], R"(["mlx5_0","mlx5_1"])");
  EXPECT_EQ(k["rdma.none"], "[]");
  EXPECT_EQ(k["ratio"], "0.5");
  EXPECT_EQ(k["mb"], "65536");
  EXPECT_EQ(k["big"], "18446744073709551615");
  EXPECT_EQ(k["neg"], "-3");
  EXPECT_EQ(k["gone"], "null");
  Facts g;
  EXPECT_TRUE(ParseFacts("{\"a\": ", &g).IsInvalidArgument());
  EXPECT_TRUE(g.empty());
}

TEST(BundleReader, ReadSmallFileSaysWhatWentWrong) {
  test::TempDir dir;
  std::string text;
  EXPECT_TRUE(ReadSmallFile(dir.Sub("absent.json"), &text).IsNotFound());
  test::WriteFile(dir.Sub("big.json"), std::string(3000, 'x'));
  EXPECT_EQ(ReadSmallFile(dir.Sub("big.json"), &text, 1024).code(), Status::Code::kResourceExhausted);
  ASSERT_TRUE(ReadSmallFile(dir.Sub("big.json"), &text).ok());
  EXPECT_EQ(text.size(), 3000u);
}

}  // namespace
}  // namespace aegis
