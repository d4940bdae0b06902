// The NCCL start-up check on small in-memory incidents: real NCCL start-up lines fed
// through the shipped rules and the real scanner, facts set per host, and what the check
// (and ConfigCheck, which appends it) finds.
#include "engine/nccl_startup_check.h"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/incident_builder.h"
#include "logs/scanner.h"
#include "test_util.h"

namespace aegis {
namespace {

// A job on hosts node-1..n, one topology node each.
class Startup {
 public:
  explicit Startup(int n) {
    Topology t;
    Job j;
    j.id = "j";
    for (int i = 1; i <= n; ++i) {
      NodeInfo node;
      node.host = "node-" + std::to_string(i);
      t.by_host[node.host] = static_cast<int>(t.nodes.size());
      t.nodes.push_back(node);
      j.hosts.push_back(node.host);
    }
    builder_.SetTopology(std::move(t));
    builder_.SetJob(std::move(j));
  }
  // Lines of node-i's train.log, classified by the shipped rules.
  void Log(int i, const std::string& text) {
    const std::string host = "node-" + std::to_string(i);
    ScanOptions o;
    o.year = 2026;
    Scanner scanner(test::ShippedMatcher(), o);
    scanner.ScanText(text, [&](LogEvent&& e) {
      builder_.AddLogEvent(host, SourceKind::kTrain, "nodes/" + host + "/train.log", std::move(e));
    });
  }
  void SetFacts(int i, Facts facts) { builder_.SetFacts("node-" + std::to_string(i), std::move(facts)); }
  std::vector<ConfigFinding> Run() { return RunNcclStartupCheck(builder_.View()); }
  std::vector<ConfigFinding> RunConfigCheckAll() { return RunConfigCheck(builder_.View(), test::ShippedCatalog()); }

 private:
  IncidentBuilder builder_;
};

const ConfigFinding* Find(const std::vector<ConfigFinding>& fs, const std::string& host, const std::string& key) {
  for (const auto& f : fs)
    if (f.host == host && f.key == key) return &f;
  return nullptr;
}

Facts RdmaHost(const std::string& link_layer = "Ethernet") {
  return {{"nic.count", "2"},
          {"nic.mlx5_0.state", "ACTIVE"},
          {"nic.mlx5_0.link_layer", link_layer},
          {"nic.mlx5_1.state", "ACTIVE"},
          {"nic.mlx5_1.link_layer", link_layer}};
}

// https://github.com/NVIDIA/nccl/issues/1053
const char* kSocketOnLoopback = "axa:3048391:3048566 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>\n";
// https://github.com/NVIDIA/nccl/issues/1814
const char* kBootstrapOnBond = "hostname-test:984:984 [4] NCCL INFO Bootstrap : Using bond0:172.36.134.184<0>\n";

TEST(NcclStartupCheck, LoopbackOrBridgeInAJobOfSeveralHosts) {
  Startup s(2);
  s.Log(1, kSocketOnLoopback);
  s.Log(2, kBootstrapOnBond);
  auto fs = s.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].host, "node-1");
  EXPECT_EQ(fs[0].key, "env.NCCL_SOCKET_IFNAME");
  EXPECT_EQ(fs[0].check, "nccl-socket-interface");
  EXPECT_NE(fs[0].reason.find("nodes/node-1/train.log:1"), std::string::npos) << fs[0].reason;
  EXPECT_EQ(fs[0].hosts_compared, 2u);
  EXPECT_EQ(fs[0].hosts_differing, 1u);

  // https://github.com/NVIDIA/nccl/issues/331: the docker default bridge.
  Startup bridge(3);
  bridge.Log(2, "e82c50601d13:213:213 [0] NCCL INFO Bootstrap : Using [0]eth0:172.17.0.3<0>\n");
  fs = bridge.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].host, "node-2");
  EXPECT_NE(fs[0].reason.find("docker default bridge"), std::string::npos) << fs[0].reason;
}

TEST(NcclStartupCheck, LoopbackIsFineForOneHost) {
  Startup s(1);
  s.Log(1, kSocketOnLoopback);
  s.Log(1, "axa:3048391:3048566 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to lo\n");
  EXPECT_TRUE(s.Run().empty());
}

TEST(NcclStartupCheck, SocketIfnameSetToLoopback) {
  Startup s(2);
  s.Log(1, "axa:3048391:3048566 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to lo\n");
  s.Log(2, "hostname-test:984:984 [4] NCCL INFO NCCL_SOCKET_IFNAME set by environment to bond0\n");
  s.SetFacts(1, {{"env.NCCL_SOCKET_IFNAME", "lo"}});
  auto fs = s.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].host, "node-1");
  EXPECT_EQ(fs[0].value, "lo");
}

TEST(NcclStartupCheck, NoIbDeviceOnAHostWithRdmaNics) {
  // https://github.com/NVIDIA/nccl/issues/226
  const std::string line = "ip-172-31-12-21:45361:45361 [0] NCCL INFO NET/IB : No device found.\n";
  Startup s(2);
  s.Log(1, line);
  s.Log(2, line);
  s.SetFacts(1, RdmaHost());
  s.SetFacts(2, {{"nic.count", "0"}});  // no RDMA NIC: sockets are all it has
  auto fs = s.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].host, "node-1");
  EXPECT_EQ(fs[0].key, "env.NCCL_IB_HCA");
  EXPECT_EQ(fs[0].check, "nccl-ib-fallback");
  EXPECT_NE(fs[0].expected.find("mlx5_0, mlx5_1"), std::string::npos) << fs[0].expected;

  // IB disabled on purpose is no silent fall-back.
  Startup off(1);
  off.Log(1, line);
  Facts f = RdmaHost();
  f["env.NCCL_IB_DISABLE"] = "1";
  off.SetFacts(1, f);
  EXPECT_TRUE(off.Run().empty());
}

TEST(NcclStartupCheck, IbHcaNamingDevicesTheHostLacks) {
  Startup s(4);
  for (int i = 1; i <= 4; ++i) s.SetFacts(i, RdmaHost());
  s.Log(1, "hostname-test:984:984 [4] NCCL INFO NCCL_IB_HCA set by environment to mlx5_4,mlx5_5\n");
  s.Log(2, "hostname-test:984:984 [4] NCCL INFO NCCL_IB_HCA set by environment to mlx5\n");    // a prefix
  s.Log(3, "hostname-test:984:984 [4] NCCL INFO NCCL_IB_HCA set by environment to ^mlx5_4\n");  // exclusion
  s.Log(4, "hostname-test:984:984 [4] NCCL INFO NCCL_IB_HCA set by environment to =mlx5_0:1,mlx5_7:1\n");
  auto fs = s.Run();
  ASSERT_EQ(fs.size(), 2u);
  const ConfigFinding* one = Find(fs, "node-1", "env.NCCL_IB_HCA");
  ASSERT_NE(one, nullptr);
  EXPECT_EQ(one->value, "mlx5_4,mlx5_5");
  EXPECT_NE(one->reason.find("mlx5_4, mlx5_5"), std::string::npos) << one->reason;
  const ConfigFinding* four = Find(fs, "node-4", "env.NCCL_IB_HCA");
  ASSERT_NE(four, nullptr);
  EXPECT_NE(four->reason.find("mlx5_7"), std::string::npos) << four->reason;
  EXPECT_EQ(four->reason.find("mlx5_0,"), std::string::npos) << four->reason;

  // Only the facts say it (no NCCL_DEBUG=INFO): still a finding.
  Startup facts_only(1);
  Facts f = RdmaHost();
  f["env.NCCL_IB_HCA"] = "mlx5_9";
  facts_only.SetFacts(1, f);
  ASSERT_EQ(facts_only.Run().size(), 1u);
}

TEST(NcclStartupCheck, LinkLocalRoceGid) {
  // A completion error as NCCL 2.19+ prints it, with a link-local local GID.
  const std::string line =
      "node-a:1:2 [0] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<54862> with "
      "status=12 opcode=0 len=0 vendor err 129 (Recv) localGid fe80::a248:1cff:feb9:9ba0 remoteGids fe80::1\n";
  Startup roce(2);
  roce.SetFacts(1, RdmaHost("Ethernet"));
  roce.Log(1, line);
  auto fs = roce.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].key, "env.NCCL_IB_GID_INDEX");
  EXPECT_EQ(fs[0].check, "nccl-roce-gid");

  // On InfiniBand the default subnet prefix fe80:: is normal.
  Startup ib(2);
  ib.SetFacts(1, RdmaHost("InfiniBand"));
  ib.Log(1, line);
  EXPECT_TRUE(ib.Run().empty());
}

// The version NCCL prints with an error, as PyTorch re-raises it (the bare start-up banner
// is a class-none fact the incident does not keep).
std::string RemoteError(const std::string& version) {
  // https://github.com/NVIDIA/nccl/issues/2076, with the version of each host
  return "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, "
         "remote process exited or there was a network error, NCCL version " + version + "\n";
}

TEST(NcclStartupCheck, NcclVersionThatDiffersBetweenHosts) {
  Startup s(3);
  s.Log(1, RemoteError("2.21.5"));
  s.Log(2, RemoteError("2.21.5"));
  s.Log(3, RemoteError("2.18.1"));
  auto fs = s.Run();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].host, "node-3");
  EXPECT_EQ(fs[0].key, "nccl.version");
  EXPECT_EQ(fs[0].value, "2.18.1");
  EXPECT_EQ(fs[0].expected, "2.21.5");
  EXPECT_EQ(fs[0].hosts_compared, 3u);
  EXPECT_EQ(fs[0].hosts_differing, 1u);

  // Two hosts that disagree: both are suspect.
  Startup two(2);
  two.Log(1, RemoteError("2.21.5"));
  two.Log(2, RemoteError("2.18.1"));
  EXPECT_EQ(two.Run().size(), 2u);

  // One version everywhere: nothing.
  Startup same(2);
  same.Log(1, RemoteError("2.21.5"));
  same.Log(2, RemoteError("2.21.5"));
  EXPECT_TRUE(same.Run().empty());
}

TEST(NcclStartupCheck, AppendedToConfigCheckWithoutRepeatingTheFacts) {
  Startup s(3);
  for (int i = 1; i <= 3; ++i) s.SetFacts(i, {{"nccl.version", i == 3 ? "2.18.1" : "2.21.5"}});
  s.Log(1, RemoteError("2.21.5"));
  s.Log(2, RemoteError("2.21.5"));
  s.Log(3, RemoteError("2.18.1") + kSocketOnLoopback);
  auto fs = s.RunConfigCheckAll();
  size_t version_findings = 0;
  for (const auto& f : fs) version_findings += f.key == "nccl.version";
  EXPECT_EQ(version_findings, 1u);  // the facts' finding; the log's says the same
  const ConfigFinding* lo = Find(fs, "node-3", "env.NCCL_SOCKET_IFNAME");
  ASSERT_NE(lo, nullptr);
  EXPECT_EQ(lo->check, "nccl-socket-interface");
}

}  // namespace
}  // namespace aegis
