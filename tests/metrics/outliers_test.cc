#include "metrics/outliers.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "test_util.h"

namespace aegis {
namespace {

std::string Host(int h) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "node-%d", h);
  return buf;
}

// n hosts x 40 points at 15 s of `metric`; value(h, i).
std::vector<Series> Make(const std::string& metric, int n, const std::function<double(int, int)>& value) {
  std::vector<Series> out;
  for (int h = 0; h < n; ++h) {
    Series s;
    s.metric = metric;
    s.host = Host(h);
    s.device.push_back('0');  // (an assignment of "0" trips GCC 12's -Wrestrict false positive)
    s.file = metric;
    for (int i = 0; i < 40; ++i) {
      s.t.push_back(1000 + i * 15.0);
      s.v.push_back(value(h, i));
    }
    out.push_back(s);
  }
  return out;
}

double Wiggle(int h, int i) { return ((h * 13 + i * 7) % 10) / 10.0; }

TEST(Outliers, SustainedHighTemperatureIsAbnormal) {
  auto s = Make("DCGM_FI_DEV_GPU_TEMP", 20, [](int h, int i) { return (h == 4 ? 90 : 62) + Wiggle(h, i); });
  auto a = AnalyzeMetrics(s, test::ShippedCatalog(), {});
  ASSERT_EQ(a.abnormal.size(), 1u);
  EXPECT_EQ(a.abnormal[0].host, "node-4");
  EXPECT_TRUE(a.systemic.empty());
}

TEST(Outliers, RobustVariantFindsTwoBadHostsTheClassicOneMisses) {
  // 6 hosts, two at 0.2 tensor activity: mean/sd is dragged down and widened by them.
  auto s = Make("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", 6, [](int h, int i) { return (h < 2 ? 0.2 : 0.6) + Wiggle(h, i) / 100; });
  OutlierOptions classic;
  classic.robust = false;
  classic.max_outlier_share = 0.5;
  EXPECT_TRUE(AnalyzeMetrics(s, test::ShippedCatalog(), classic).abnormal.empty());
  OutlierOptions robust;
  robust.max_outlier_share = 0.5;
  auto a = AnalyzeMetrics(s, test::ShippedCatalog(), robust);
  ASSERT_EQ(a.abnormal.size(), 2u);
  EXPECT_EQ(a.abnormal[0].host, "node-0");
  EXPECT_EQ(a.abnormal[1].host, "node-1");
}

TEST(Outliers, ShortSpikeIsNotAFault) {
  auto s = Make("DCGM_FI_DEV_GPU_TEMP", 20, [](int h, int i) { return (h == 3 && i >= 30 && i < 35 ? 95 : 62) + Wiggle(h, i); });
  EXPECT_TRUE(AnalyzeMetrics(s, test::ShippedCatalog(), {}).abnormal.empty());
}

TEST(Outliers, CountersBecomeRatesAndResetsAreNotSpikes) {
  // Cumulative ECN counters: host 2 marks 20K/s; host 5's counter resets to 0 midway.
  auto s = Make("np_ecn_marked_roce_packets", 12, [](int h, int i) {
    if (h == 2) return 1e6 + 20000.0 * 15 * i;
    if (h == 5) return i < 20 ? 5e6 + 2.0 * 15 * i : 2.0 * 15 * (i - 20);
    return 1e5 + 2.0 * 15 * i;
  });
  auto a = AnalyzeMetrics(s, test::ShippedCatalog(), {});
  ASSERT_EQ(a.abnormal.size(), 1u);
  EXPECT_EQ(a.abnormal[0].host, "node-2");
  EXPECT_NEAR(a.abnormal[0].value, 20000, 1);
}

TEST(Outliers, EveryoneMovingTogetherIsSystemic) {
  // 80 points: the first 40 at 0.6, then all hosts at 0.4 for the window.
  std::vector<Series> s;
  for (int h = 0; h < 10; ++h) {
    Series x;
    x.metric = "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE";
    x.host = Host(h);
    for (int i = 0; i < 80; ++i) {
      x.t.push_back(i * 15.0);
      x.v.push_back((i < 40 ? 0.6 : 0.4) + Wiggle(h, i) / 100);
    }
    s.push_back(x);
  }
  auto a = AnalyzeMetrics(s, test::ShippedCatalog(), {});
  EXPECT_TRUE(a.abnormal.empty());
  ASSERT_EQ(a.systemic.size(), 1u);
  EXPECT_NEAR(a.systemic[0].before, 0.6, 0.02);
  EXPECT_NEAR(a.systemic[0].after, 0.4, 0.02);
}

TEST(Outliers, UnknownMetricsAreIgnored) {
  auto s = Make("my_custom_metric", 10, [](int h, int) { return h == 1 ? 1000.0 : 1.0; });
  auto a = AnalyzeMetrics(s, test::ShippedCatalog(), {});
  EXPECT_EQ(a.series, 0u);
  EXPECT_TRUE(a.abnormal.empty());
}

}  // namespace
}  // namespace aegis
