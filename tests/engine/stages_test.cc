// The stages of Algorithm 1 on small hand-made incidents: the decisions at their edges.
#include "engine/stages.h"

#include <gtest/gtest.h>

#include <sstream>

#include "bundle/bundle_reader.h"
#include "engine/engine.h"
#include "test_util.h"

namespace aegis {
namespace {

// A bundle of n hosts (node-1..n, one NIC 10.0.0.i each, cabled to tor port Ethernet<i>).
struct MiniBundle {
  test::TempDir dir;
  explicit MiniBundle(int n, const std::string& state = "failed") {
    std::ostringstream nodes, hosts;
    for (int i = 1; i <= n; ++i) {
      nodes << (i > 1 ? "," : "") << "{\"host\": \"node-" << i
            << "\", \"gpus\": [{\"index\": 0, \"pci\": \"0000:18:00.0\"}], \"nics\": [{\"name\": \"mlx5_0\", "
            << "\"ip\": \"10.0.0." << i << "\", \"switch\": \"tor\", \"port\": \"Ethernet" << i << "\"}]}";
      hosts << (i > 1 ? "," : "") << "\"node-" << i << "\"";
    }
    test::WriteFile(dir.Sub("topology.json"), "{\"nodes\": [" + nodes.str() + "]}");
    std::ostringstream job;
    job << "{\"id\": \"j\", \"state\": \"" << state << "\", \"started_at\": \"2026-11-30T10:00:00Z\", \"hosts\": ["
        << hosts.str() << "]}";
    test::WriteFile(dir.Sub("job.json"), job.str());
  }
  void Train(int host, const std::string& text) { Append(host, "train.log", text); }
  void Kernel(int host, const std::string& text) { Append(host, "kernel.log", text); }
  void Append(int host, const std::string& file, const std::string& text) {
    std::string p = dir.Sub("nodes/node-" + std::to_string(host) + "/" + file);
    test::WriteFile(p, test::ReadFile(p) + text);
  }
  Verdict Run() { return test::Diagnose(dir.path()); }
};

std::string Ib(int peer, const std::string& time) {
  return "[W1130 " + time + " x.cpp:1] transport error\nh:1:2 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0." +
         std::to_string(peer) + "<4000> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.0.0.9 "
         "remoteGids::ffff:10.0.0." + std::to_string(peer) + "\n";
}

// The same NCCL line with its own time, as a launcher that stamps every line prints it.
std::string IbTimed(int peer, const std::string& time) {
  return "2026-11-30T" + time + "+00:00 h:1:2 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0." +
         std::to_string(peer) + "<4000> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.0.0.9 "
         "remoteGids::ffff:10.0.0." + std::to_string(peer) + "\n";
}

TEST(Stages, CriticalOutvotesEverythingElse) {
  MiniBundle b(4);
  b.Train(1, "[rank0]:KeyError: 'x'\n");
  b.Train(2, Ib(3, "10:00:01.0"));
  b.Kernel(4, "2026-11-30T10:00:05+00:00 node-4 kernel: NVRM: Xid (PCI:0000:18:00): 48, pid=1, DBE\n");
  Verdict v = b.Run();
  EXPECT_EQ(ToString(v.stage), "critical_error");
  ASSERT_EQ(v.isolate.size(), 1u);
  EXPECT_EQ(v.isolate[0].host, "node-4");
  EXPECT_EQ(v.isolate[0].device, "gpu0");
}

TEST(Stages, HintsAndApplicationXidsIsolateNobody) {
  MiniBundle b(3, "hung");
  b.Kernel(1, "[ 5.0] NVRM: Xid (PCI:0000:18:00): 63, pid=1, Row Remapper: New row marked for remapping\n");
  b.Kernel(2, "[ 5.0] NVRM: Xid (PCI:0000:18:00): 92, pid=1, High single-bit ECC error rate\n");
  b.Kernel(3, "[ 5.0] pcieport 0000:16:02.0: AER: Corrected error received: 0000:17:00.0\n");
  Verdict v = b.Run();
  EXPECT_EQ(ToString(v.action), "offline");
  EXPECT_EQ(v.offline.size(), 3u);
}

TEST(Stages, UserErrorGateUnlessDistributedErrorsClearlyCameFirst) {
  {
    MiniBundle b(4);
    b.Train(1, "[2026-11-30 10:00:00,000] step\n[rank0]:Traceback (most recent call last):\n[rank0]:  File \"t.py\", "
               "line 1\n[rank0]:ValueError: bad batch\n");
    b.Train(2, "[W1130 10:00:01.0 TCPStore.cpp:1] [c10d] recvValue failed on SocketImpl(fd=1, addr=[a]:1, "
               "remote=[node-1]:29500): Connection reset by peer\n");
    b.Train(3, "[W1130 10:00:01.0 TCPStore.cpp:1] [c10d] recvValue failed on SocketImpl(fd=1, addr=[a]:1, "
               "remote=[node-1]:29500): Connection reset by peer\n");
    Verdict v = b.Run();
    EXPECT_EQ(ToString(v.action), "none");
    EXPECT_EQ(ToString(v.cause), "user");
  }
  {
    // The network broke a minute before the exception: not the job's fault. The NCCL
    // lines carry their own times here (a launcher that stamps every line).
    MiniBundle b(4);
    b.Train(2, IbTimed(1, "09:59:00.0"));
    b.Train(3, IbTimed(1, "09:59:00.5"));
    b.Train(4, IbTimed(1, "09:59:01.0"));
    b.Train(1, "[2026-11-30 10:00:00,000] step\n[rank0]:ValueError: bad batch\n");
    Verdict v = b.Run();
    EXPECT_EQ(ToString(v.stage), "root_diag");
    ASSERT_EQ(v.isolate.size(), 1u);
    EXPECT_EQ(v.isolate[0].host, "node-1");
    EXPECT_EQ(v.isolate[0].device, "mlx5_0");
  }
}

TEST(Stages, TimeoutsAloneNeverLocate) {
  MiniBundle b(3, "hung");
  for (int h = 1; h <= 3; ++h)
    b.Train(h, "[rank0]:[E1130 10:10:00.0 ProcessGroupNCCL.cpp:1] [Rank 0] Watchdog caught collective operation "
               "timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600013 milliseconds\n");
  Verdict v = b.Run();
  EXPECT_EQ(ToString(v.action), "offline");
}

TEST(Stages, NoCommonEndpointMeansNoRoot) {
  MiniBundle b(6);
  b.Train(1, Ib(2, "10:00:00.0"));
  b.Train(3, Ib(4, "10:00:00.0"));
  b.Train(5, Ib(6, "10:00:00.0"));
  Verdict v = b.Run();
  EXPECT_EQ(ToString(v.action), "offline");  // three disjoint pairs: nothing common
}

TEST(Stages, ConfigCheckOddHostOut) {
  MiniBundle b(5, "hung");
  for (int h = 1; h <= 5; ++h)
    b.Append(h, "facts.json", std::string("{\"nccl\": {\"version\": \"") + (h == 3 ? "2.18.1" : "2.21.5") +
                                  "\"}, \"os\": {\"dev_shm_mb\": " + (h == 5 ? "64" : "65536") + "}}");
  Verdict v = b.Run();
  EXPECT_EQ(ToString(v.stage), "config_check");
  ASSERT_EQ(v.repair.size(), 2u);
  EXPECT_EQ(v.repair[0].host, "node-3");
  EXPECT_EQ(v.repair[0].key, "nccl.version");
  EXPECT_EQ(v.repair[0].value, "2.18.1");
  EXPECT_EQ(v.repair[0].expected, "2.21.5");
  EXPECT_EQ(v.repair[1].host, "node-5");
  EXPECT_EQ(v.repair[1].key, "os.dev_shm_mb");
}

TEST(Stages, ConfigLinesRepairTheirHost) {
  MiniBundle b(3);
  b.Train(2, "h:1:2 [0] include/shm.h:28 NCCL WARN Call to posix_fallocate failed: No space left on device\n");
  Verdict v = b.Run();
  EXPECT_EQ(ToString(v.cause), "config");
  ASSERT_EQ(v.repair.size(), 1u);
  EXPECT_EQ(v.repair[0].host, "node-2");
  EXPECT_EQ(v.repair[0].key, "os.dev_shm_mb");
}

TEST(Stages, SwitchPortMapsToHost) {
  MiniBundle b(3, "hung");
  test::WriteFile(b.dir.Sub("switches/tor.log"),
                  "%LINK-3-UPDOWN: Interface Ethernet2, changed state to down\n"
                  "Interface Ethernet3: 1234 CRC errors in the last 60 seconds\n");
  Verdict v = b.Run();
  EXPECT_EQ(ToString(v.stage), "net_diag");
  ASSERT_EQ(v.repair.size(), 2u);
  EXPECT_EQ(v.repair[0].host, "node-2");
  EXPECT_EQ(ToString(v.repair[0].component), "switch_port");
  EXPECT_EQ(v.repair[0].device, "Ethernet2");
  EXPECT_EQ(ToString(v.repair[1].component), "link");
}

TEST(Stages, ProbesWithOneLossyPathNameBothEnds) {
  MiniBundle b(3, "hung");
  test::WriteFile(b.dir.Sub("probes.json"), R"([
    {"src": "10.0.0.1", "dst": "10.0.0.2", "size": 64, "sent": 100, "lost": 0},
    {"src": "10.0.0.1", "dst": "10.0.0.2", "size": 9000, "sent": 100, "lost": 40},
    {"src": "10.0.0.1", "dst": "10.0.0.3", "size": 9000, "sent": 100, "lost": 0}])");
  Verdict v = b.Run();
  EXPECT_EQ(ToString(v.stage), "net_diag");
  EXPECT_EQ(v.repair.size(), 2u);
}

}  // namespace
}  // namespace aegis

namespace aegis {
namespace {

TEST(Stages, ClusterWideExpectationsYieldToTheOddHostOut) {
  MiniBundle b(4, "hung");
  for (int h = 1; h <= 4; ++h)
    b.Append(h, "facts.json", std::string("{\"gpu\": {\"persistence_mode\": \"Disabled\", \"driver_version\": \"") +
                                  (h == 2 ? "535.104.05" : "570.86.15") + "\"}}");
  Verdict v = b.Run();
  ASSERT_EQ(v.repair.size(), 1u);  // persistence mode off everywhere is the site's choice
  EXPECT_EQ(v.repair[0].host, "node-2");
  EXPECT_EQ(v.repair[0].key, "gpu.driver_version");
}

TEST(Stages, ClusterWideExpectationAloneIsStillReported) {
  MiniBundle b(3, "hung");
  for (int h = 1; h <= 3; ++h) b.Append(h, "facts.json", "{\"os\": {\"memlock\": \"65536\"}}");
  Verdict v = b.Run();
  EXPECT_EQ(ToString(v.stage), "config_check");
  EXPECT_EQ(v.repair.size(), 3u);
}

TEST(Stages, SwitchPortNamesMatchAcrossVendorSpellings) {
  MiniBundle b(3, "hung");
  test::WriteFile(b.dir.Sub("switches/tor.log"), "%ETHPORT-5-IF_DOWN_LINK_FAILURE: Interface Eth3 is down (Link failure)\n");
  Verdict v = b.Run();
  ASSERT_EQ(v.repair.size(), 1u);
  EXPECT_EQ(v.repair[0].host, "node-3");
  EXPECT_EQ(v.repair[0].device, "Ethernet3");
}

TEST(Stages, LargePacketLossIsRelativeToTheProbeSizes) {
  MiniBundle b(4, "hung");
  // Only 64 B and 1500 B probes: the path through node-4 loses the 1500 B ones.
  std::string probes = "[";
  for (int s = 1; s <= 4; ++s)
    for (int d = 1; d <= 4; ++d) {
      if (s == d) continue;
      for (int size : {64, 1500}) {
        const int lost = (s == 4 || d == 4) && size == 1500 ? 30 : 0;
        probes += std::string(probes.size() > 1 ? "," : "") + "{\"src\": \"10.0.0." + std::to_string(s) +
                  "\", \"dst\": \"10.0.0." + std::to_string(d) + "\", \"size\": " + std::to_string(size) +
                  ", \"sent\": 100, \"lost\": " + std::to_string(lost) + "}";
      }
    }
  test::WriteFile(b.dir.Sub("probes.json"), probes + "]");
  Verdict v = b.Run();
  ASSERT_EQ(v.repair.size(), 1u);
  EXPECT_EQ(v.repair[0].host, "node-4");
  EXPECT_EQ(ToString(v.repair[0].component), "link");
  EXPECT_EQ(v.evidence[0].rule, "probe-large-packet-loss");
}

}  // namespace
}  // namespace aegis

namespace aegis {
namespace {

TEST(Stages, PcieFatalFromTheUpstreamPortNamesTheGpuBehindIt) {
  MiniBundle b(2);
  b.Kernel(2, "[ 5.0] pcieport 0000:16:02.0: AER: Uncorrected (Fatal) error received: 0000:18:00.0\n");
  Verdict v = b.Run();
  ASSERT_EQ(v.isolate.size(), 1u);
  EXPECT_EQ(v.isolate[0].host, "node-2");
  EXPECT_EQ(ToString(v.isolate[0].component), "pcie");
  EXPECT_EQ(v.isolate[0].device, "gpu0");
}

}  // namespace
}  // namespace aegis

namespace aegis {
namespace {

TEST(Stages, UnhandledCudaErrorThatWrapsAnOomIsTheJobs) {
  MiniBundle b(3);
  b.Train(2, "[rank0]: torch.distributed.DistBackendError: NCCL error in: ../ProcessGroupNCCL.cpp:1970, unhandled cuda "
             "error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\n"
             "[rank0]: ncclUnhandledCudaError: Call to CUDA function failed.\n"
             "[rank0]: Last error:\n"
             "[rank0]: Cuda failure 'out of memory'\n");
  Verdict v = b.Run();
  EXPECT_EQ(ToString(v.action), "none");
  EXPECT_EQ(ToString(v.cause), "user");
  // Alone, the same wrapper is a GPU fault.
  MiniBundle c(3);
  c.Train(2, "[rank0]: RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)\n");
  Verdict w = c.Run();
  EXPECT_EQ(ToString(w.stage), "critical_error");
  ASSERT_EQ(w.isolate.size(), 1u);
  EXPECT_EQ(w.isolate[0].host, "node-2");
}

}  // namespace
}  // namespace aegis
