#include "agent/sources/facts/facts.h"

#include <gtest/gtest.h>

#include "bundle/bundle_reader.h"
#include "test_support.h"

namespace aegis::agent {
namespace {

using testing::ScratchDir;
using testing::WriteFile;

// A PCI-to-PCI bridge's configuration space with an ACS capability whose control
// register is `acs_ctrl`, behind another extended capability (AER).
std::string BridgeConfig(unsigned acs_ctrl, bool with_acs = true) {
  std::string c(4096, '\0');
  c[0x0a] = 0x04;  // subclass: PCI-to-PCI
  c[0x0b] = 0x06;  // class: bridge
  auto put32 = [&](size_t off, uint32_t v) {
    for (int i = 0; i < 4; ++i) c[off + static_cast<size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
  };
  // 0x100: AER (id 0x0001, version 1), next 0x140 (or 0 without ACS).
  put32(0x100, 0x0001u | (1u << 16) | ((with_acs ? 0x140u : 0u) << 20));
  if (with_acs) {
    put32(0x140, 0x000du | (1u << 16));  // ACS, last
    c[0x146] = static_cast<char>(acs_ctrl & 0xff);
    c[0x147] = static_cast<char>(acs_ctrl >> 8);
  }
  return c;
}

TEST(Facts, AcsFromConfigurationSpace) {
  EXPECT_EQ(AcsEnabledFromConfig(BridgeConfig(0x0001)), std::optional<bool>(true));   // SrcValid+
  EXPECT_EQ(AcsEnabledFromConfig(BridgeConfig(0x000c)), std::optional<bool>(true));   // ReqRedir+ CmpltRedir+
  EXPECT_EQ(AcsEnabledFromConfig(BridgeConfig(0x0000)), std::optional<bool>(false));
  EXPECT_EQ(AcsEnabledFromConfig(BridgeConfig(0x0010)), std::optional<bool>(false));  // UpstreamFwd alone
  EXPECT_FALSE(AcsEnabledFromConfig(BridgeConfig(1, false)).has_value());             // no ACS capability
  EXPECT_FALSE(AcsEnabledFromConfig(BridgeConfig(1).substr(0, 64)).has_value());      // not root: 64 bytes
  std::string endpoint = BridgeConfig(1);
  endpoint[0x0b] = 0x03;  // a display controller
  EXPECT_FALSE(AcsEnabledFromConfig(endpoint).has_value());
  std::string loop = BridgeConfig(1, false);
  loop[0x102] = 0;
  loop[0x103] = 0x10;  // next = 0x100: itself
  EXPECT_FALSE(AcsEnabledFromConfig(loop).has_value());
}

TEST(Facts, SmallParsers) {
  EXPECT_EQ(DriverVersionFromProc("NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15  Tue Jan  7 02:16:31 UTC 2025\n"
                                  "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n"),
            "570.86.15");
  EXPECT_EQ(DriverVersionFromProc("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  560.35.03  Release Build\n"),
            "560.35.03");
  EXPECT_EQ(DriverVersionFromProc("garbage"), "");
  const std::string limits =
      "Limit                     Soft Limit           Hard Limit           Units     \n"
      "Max locked memory         8388608              unlimited            bytes     \n";
  EXPECT_EQ(MemlockFromLimits(limits), "8192");
  EXPECT_EQ(MemlockFromLimits("Max locked memory         unlimited            unlimited            bytes\n"), "unlimited");
  EXPECT_EQ(MemlockFromLimits("Max open files 1024 1024 files\n"), "");
  EXPECT_EQ(NcclVersionFromMaps("7f00-7f10 r-xp 00000000 08:01 42 /opt/nccl/lib/libnccl.so.2.21.5\n"), "2.21.5");
  EXPECT_EQ(NcclVersionFromMaps("7f00-7f10 r-xp 00000000 08:01 42 /usr/lib/python3/site-packages/nvidia/nccl/lib/libnccl.so.2\n"), "");
}

class FakeGpu : public GpuReader {
 public:
  std::vector<GpuSample> Sample() override { return {}; }
  GpuFacts Facts() override {
    GpuFacts f;
    f.count = 8;
    f.driver_version = "570.86.15";
    f.cuda_version = "12.8";
    f.persistence_mode = true;
    f.ecc_mode = false;
    return f;
  }
};

void FakeNode(const ScratchDir& d) {
  const std::string proc = d / "proc", sys = d / "sys";
  WriteFile(proc + "/driver/nvidia/version",
            "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.127.05  Tue Oct  8 03:22:07 UTC 2024\n");
  WriteFile(proc + "/driver/nvidia/gpus/0000:18:00.0/information", "Model: x\n");
  WriteFile(proc + "/driver/nvidia/gpus/0000:3b:00.0/information", "Model: x\n");
  static const char kEnv[] = "PATH=/usr/bin\0NCCL_IB_HCA=mlx5\0NCCL_SOCKET_IFNAME=eth0\0";
  WriteFile(proc + "/1234/environ", std::string(kEnv, sizeof kEnv - 1));
  WriteFile(proc + "/1234/maps", "7f00-7f10 r-xp 00000000 08:01 42 /usr/lib/x86_64-linux-gnu/libnccl.so.2.21.5\n");
  WriteFile(proc + "/1234/limits", "Max locked memory         unlimited            unlimited            bytes\n");
  static const char kOther[] = "NCCL_DEBUG=INFO\0";
  WriteFile(proc + "/99/environ", std::string(kOther, sizeof kOther - 1));
  WriteFile(proc + "/self/limits", "Max locked memory         65536                65536                bytes\n");
  WriteFile(proc + "/sys/kernel/osrelease", "5.15.0-125-generic\n");
  WriteFile(sys + "/class/infiniband/mlx5_0/fw_ver", "28.39.1002\n");
  WriteFile(sys + "/class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
  WriteFile(sys + "/class/infiniband/mlx5_0/ports/1/link_layer", "Ethernet\n");
  WriteFile(sys + "/class/infiniband/mlx5_0/device/net/eth2/mtu", "4096\n");
  WriteFile(sys + "/class/infiniband/mlx5_1/fw_ver", "28.39.1002\n");
  WriteFile(sys + "/class/infiniband/mlx5_1/ports/1/state", "1: DOWN\n");
  WriteFile(sys + "/class/infiniband/mlx5_1/ports/1/link_layer", "Ethernet\n");
  WriteFile(sys + "/bus/pci/devices/0000:00:01.0/config", BridgeConfig(0x0001));
  WriteFile(sys + "/bus/pci/devices/0000:00:02.0/config", BridgeConfig(0x0000));
  WriteFile(sys + "/bus/pci/devices/0000:18:00.0/config", std::string(64, '\x10'));
}

TEST(Facts, CollectsFromAFakeProcAndSysTree) {
  ScratchDir d;
  FakeNode(d);
  FactsRoots roots{d / "proc", d / "sys", d.path()};
  nlohmann::json f = CollectFacts(roots, nullptr);
  EXPECT_EQ(f["gpu"]["driver_version"], "550.127.05");
  EXPECT_EQ(f["gpu"]["count"], 2);
  EXPECT_FALSE(f.contains("cuda"));  // only NVML knows it
  EXPECT_EQ(f["env"]["NCCL_IB_HCA"], "mlx5");
  EXPECT_EQ(f["env"]["NCCL_SOCKET_IFNAME"], "eth0");
  EXPECT_FALSE(f["env"].contains("NCCL_DEBUG"));  // another process's
  EXPECT_EQ(f["nccl"]["version"], "2.21.5");
  EXPECT_EQ(f["os"]["memlock"], "unlimited");  // the training process's, not the agent's
  EXPECT_EQ(f["os"]["kernel"], "5.15.0-125-generic");
  EXPECT_TRUE(f["os"]["dev_shm_mb"].is_number_unsigned());
  EXPECT_EQ(f["nic"]["count"], 2);
  EXPECT_EQ(f["nic"]["mlx5_0"]["state"], "ACTIVE");
  EXPECT_EQ(f["nic"]["mlx5_0"]["mtu"], 4096);
  EXPECT_EQ(f["nic"]["mlx5_0"]["fw_version"], "28.39.1002");
  EXPECT_EQ(f["nic"]["mlx5_0"]["link_layer"], "Ethernet");
  EXPECT_EQ(f["nic"]["mlx5_1"]["state"], "DOWN");
  EXPECT_FALSE(f["nic"]["mlx5_1"].contains("mtu"));
  EXPECT_EQ(f["pcie"]["acs_enabled"], true);

  // The engine reads it as facts.json: the keys of the ConfigCheck checklist.
  Facts flat;
  ASSERT_TRUE(ParseFacts(f.dump(), &flat).ok());
  EXPECT_EQ(flat["gpu.driver_version"], "550.127.05");
  EXPECT_EQ(flat["nic.mlx5_1.state"], "DOWN");
  EXPECT_EQ(flat["env.NCCL_IB_HCA"], "mlx5");
  EXPECT_EQ(flat["pcie.acs_enabled"], "true");
  EXPECT_EQ(flat["os.memlock"], "unlimited");
}

TEST(Facts, NvmlFactsComeFirstAndMissingPiecesAreAbsent) {
  ScratchDir d;
  FakeNode(d);
  FakeGpu gpu;
  nlohmann::json f = CollectFacts({d / "proc", d / "sys", d.path()}, &gpu);
  EXPECT_EQ(f["gpu"]["driver_version"], "570.86.15");
  EXPECT_EQ(f["gpu"]["count"], 8);
  EXPECT_EQ(f["gpu"]["persistence_mode"], "Enabled");
  EXPECT_EQ(f["gpu"]["ecc_mode"], "Disabled");
  EXPECT_EQ(f["cuda"]["version"], "12.8");

  ScratchDir empty;
  nlohmann::json none = CollectFacts({empty / "proc", empty / "sys", empty / "shm"}, nullptr);
  EXPECT_TRUE(none.is_object());
  EXPECT_TRUE(none.empty()) << none.dump();
}

TEST(Facts, WithoutRdmaDevicesThePhysicalInterfacesAreListed) {
  ScratchDir d;
  WriteFile(d / "sys/class/net/eth0/operstate", "up\n");
  WriteFile(d / "sys/class/net/eth0/mtu", "9000\n");
  WriteFile(d / "sys/class/net/eth0/device/vendor", "0x15b3\n");
  WriteFile(d / "sys/class/net/lo/operstate", "unknown\n");  // virtual: no device
  nlohmann::json f = CollectFacts({d / "proc", d / "sys", d.path()}, nullptr);
  EXPECT_EQ(f["nic"]["count"], 1);
  EXPECT_EQ(f["nic"]["eth0"]["state"], "up");
  EXPECT_EQ(f["nic"]["eth0"]["mtu"], 9000);
}

}  // namespace
}  // namespace aegis::agent
