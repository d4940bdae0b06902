#include <gtest/gtest.h>
#include <stdlib.h>

#include <map>

#include "agent/sources/node_sampler/gpu_reader.h"

namespace aegis::agent {
namespace {

TEST(Nvml, AbsentLibraryIsNotFound) {
  Status why;
  auto r = OpenNvml("libnvidia-ml-absent.so.1", &why);
  EXPECT_EQ(r, nullptr);
  EXPECT_TRUE(why.IsNotFound()) << why.ToString();
  EXPECT_NE(why.message().find("libnvidia-ml-absent.so.1"), std::string::npos);
}

TEST(Nvml, ALibraryWithoutNvmlIsRefused) {
  Status why;
  auto r = OpenNvml("libc.so.6", &why);
  EXPECT_EQ(r, nullptr);
  EXPECT_TRUE(why.IsNotFound()) << why.ToString();
}

TEST(Nvml, ReadsTheFakeLibrary) {
  Status why;
  auto r = OpenNvml(AGENT_FAKE_NVML, &why);
  ASSERT_NE(r, nullptr) << why.ToString();
  std::map<std::string, double> v;
  for (const auto& s : r->Sample()) v[s.name + "@" + std::to_string(s.gpu)] = s.value;
  EXPECT_EQ(v["DCGM_FI_DEV_GPU_TEMP@0"], 60);
  EXPECT_EQ(v["DCGM_FI_DEV_GPU_TEMP@1"], 61);
  EXPECT_EQ(v["DCGM_FI_DEV_SM_CLOCK@1"], 1980);
  EXPECT_DOUBLE_EQ(v["DCGM_FI_DEV_POWER_USAGE@0"], 350.5);
  EXPECT_EQ(v["DCGM_FI_DEV_GPU_UTIL@0"], 90);
  EXPECT_EQ(v["DCGM_FI_DEV_PCIE_REPLAY_COUNTER@1"], 3);
  EXPECT_EQ(v["DCGM_FI_DEV_ECC_SBE_VOL_TOTAL@0"], 5);
  EXPECT_EQ(v.count("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL@0"), 0u);  // not supported: left out
  const GpuFacts f = r->Facts();
  EXPECT_EQ(f.count, 2);
  EXPECT_EQ(f.driver_version, "570.86.15");
  EXPECT_EQ(f.cuda_version, "12.8");
  EXPECT_EQ(f.persistence_mode, std::optional<bool>(true));
  EXPECT_EQ(f.ecc_mode, std::optional<bool>(false));  // off on one of them
}

TEST(Nvml, FailedInitIsUnavailable) {
  ::setenv("FAKE_NVML_FAIL_INIT", "1", 1);
  Status why;
  auto r = OpenNvml(AGENT_FAKE_NVML, &why);
  ::unsetenv("FAKE_NVML_FAIL_INIT");
  EXPECT_EQ(r, nullptr);
  EXPECT_TRUE(why.IsUnavailable()) << why.ToString();
}

}  // namespace
}  // namespace aegis::agent
