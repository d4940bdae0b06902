#include "gen/scenarios.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

namespace aegis::gen {

namespace fs = std::filesystem;
using nlohmann::json;

const std::vector<std::string>& ScenarioNames() {
  static const std::vector<std::string> names = {
      "xid79",        "dbe",          "nvlink",     "pcie_fatal",       "nic_down",    "user_exception",
      "oom",          "app_xid",      "pair",       "rootdiag",         "rootdiag_missing", "config_mismatch",
      "switch_flap",  "large_packet_loss", "no_signal", "compute_hang", "comm_hang", "compute_straggler",
      "degraded_nic", "ecn_surge", "thermal_throttling", "global_slowdown", "transient_spike"};
  return names;
}

namespace {

struct Bundle {
  Cluster c;
  std::mt19937_64 rng;
  std::vector<LogFile> kernel, train;
  std::map<std::string, LogFile> switches;
  std::vector<json> facts;
  json probes = json::array();
  std::set<int> drop_folder;
  std::set<int> keep;  // hosts whose files the scenario needs (never dropped at random)
  json expected;
  std::string state = "failed";
  // CCL snapshots: empty unless the scenario ran the probe. Per (host, gpu) the lines of
  // its file.
  std::map<std::pair<int, int>, std::string> ccl;
  std::map<std::string, std::string> metrics;  // metrics/NAME.json bodies
  int pid_base = 41000;

  int Rand(int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); }
  double Jitter(double max) { return static_cast<double>(rng() % 1000000) / 1000000.0 * max; }
  const GenNode& N(int i) const { return c.nodes[static_cast<size_t>(i)]; }
  int Hosts() const { return static_cast<int>(c.nodes.size()); }
  // A node other than those in `not`.
  int Other(std::initializer_list<int> excluded) {
    for (;;) {
      int n = Rand(Hosts());
      if (std::find(excluded.begin(), excluded.end(), n) == excluded.end()) return n;
    }
  }
  // Train line of rank (node, gpu), NCCL-style.
  void NcclWarn(int node, int gpu, double ts, const std::string& msg) {
    const GenNode& n = N(node);
    train[static_cast<size_t>(node)].Add(ts, TrainLine(n, c.Rank(node, gpu), NcclHeader(n, gpu, pid_base + gpu) + msg));
  }
  void Train(int node, int gpu, double ts, const std::string& msg) {
    train[static_cast<size_t>(node)].Add(ts, TrainLine(N(node), c.Rank(node, gpu), msg));
  }
  void Kernel(int node, double ts, const std::string& msg) {
    kernel[static_cast<size_t>(node)].Add(ts, KernelLine(N(node), ts, msg));
  }
};

json Iso(double t) {
  time_t s = static_cast<time_t>(t);
  struct tm tm;
  gmtime_r(&s, &tm);
  char buf[32];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return std::string(buf);
}

// Every rank of the job (but `except`) times out in the collective it was in.
void WatchdogTimeouts(Bundle& b, double t, std::set<int> except = {}) {
  const long seq = 4000 + b.Rand(50000);
  for (int n = 0; n < b.Hosts(); ++n) {
    if (except.count(n)) continue;
    for (int g = 0; g < b.c.gpus; ++g) {
      const int r = b.c.Rank(n, g);
      const double ts = t + 600 + b.Jitter(0.5);
      b.Train(n, g, ts,
              GlogHeader('E', ts, "ProcessGroupNCCL.cpp:632") +
                  fmt::format("[Rank {}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={}, "
                              "OpType=ALLREDUCE, NumelIn=67108864, NumelOut=67108864, Timeout(ms)=600000) ran for {} "
                              "milliseconds before timing out.",
                              r, seq, 600000 + b.Rand(900)));
      if (g == 0)
        b.Train(n, g, ts + 0.01,
                GlogHeader('E', ts + 0.01, "ProcessGroupNCCL.cpp:1664") +
                    fmt::format("[PG ID 0 PG GUID 0(default_pg) Rank {}] Process group watchdog thread terminated with "
                                "exception: [Rank {}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={}, "
                                "OpType=ALLREDUCE, NumelIn=67108864, NumelOut=67108864, Timeout(ms)=600000) ran for "
                                "600045 milliseconds before timing out.",
                                r, r, seq));
    }
  }
}

// IB completion error printed by (node, rail) about its connection to (peer, rail).
void IbCompletionError(Bundle& b, int node, int peer, int rail, double ts, int status = 12) {
  const GenNode& n = b.N(node);
  const GenNode& p = b.N(peer);
  // Two wordings, by NCCL version.
  std::string msg;
  if (b.rng() % 2)
    msg = fmt::format("transport/net_ib.cc:2451 NCCL WARN NET/IB: Got completion from peer {}<{}> with status={} "
                      "opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:{} remoteGids::ffff:{} hca mlx5_{}",
                      p.nic_ip[static_cast<size_t>(rail)], 40000 + b.Rand(20000), status,
                      n.nic_ip[static_cast<size_t>(rail)], p.nic_ip[static_cast<size_t>(rail)], rail);
  else
    msg = fmt::format("transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer {}<{}> with error {}, "
                      "opcode 0, len 0, vendor err 129 (Send) localGid ::ffff:{} remoteGids::ffff:{}",
                      p.nic_ip[static_cast<size_t>(rail)], 40000 + b.Rand(20000), status,
                      n.nic_ip[static_cast<size_t>(rail)], p.nic_ip[static_cast<size_t>(rail)]);
  // A timestamped line just before, as PyTorch prints when it notices.
  b.Train(node, rail, ts, GlogHeader('W', ts, "ProcessGroupNCCL.cpp:1585") + "NCCL transport error detected");
  b.NcclWarn(node, rail, ts, msg);
  b.NcclWarn(node, rail, ts, "transport/net_ib.cc:1919 NCCL WARN NET/IB : communicator encountered a fatal error (detected in ncclIbTest)");
}

// Peers whose connection to `dead` broke when its process died or its NIC failed.
void PeersLoseConnection(Bundle& b, int dead, double t, int count, bool socket_style) {
  std::set<int> chosen;
  while (static_cast<int>(chosen.size()) < std::min(count, b.Hosts() - 1)) chosen.insert(b.Other({dead}));
  for (int n : chosen) {
    const int g = b.Rand(b.c.gpus);
    const double ts = t + 0.2 + b.Jitter(1.5);
    if (socket_style) {
      b.Train(n, g, ts,
              GlogHeader('W', ts, "TCPStore.cpp:125") +
                  fmt::format("[c10d] recvValue failed on SocketImpl(fd=76, addr=[{}]:{}, remote=[{}]:29500): "
                              "Connection reset by peer",
                              b.N(n).host, 50000 + b.Rand(9000), b.N(dead).host));
      b.NcclWarn(n, g, ts, fmt::format("misc/socket.cc:50 NCCL WARN socketProgress: Connection closed by remote peer {}<{}>",
                                       b.N(dead).mgmt_ip, 40000 + b.Rand(20000)));
    } else {
      IbCompletionError(b, n, dead, g, ts);
    }
  }
}

void PythonTraceback(Bundle& b, int node, int gpu, double t, const std::vector<std::string>& frames,
                     const std::string& exc_line) {
  b.Train(node, gpu, t, PyLogTime(t) + "[ERROR] [train.py:412] training step failed");
  b.Train(node, gpu, t, "Traceback (most recent call last):");
  for (const auto& f : frames) b.Train(node, gpu, t, f);
  b.Train(node, gpu, t, exc_line);
}

json Isolate(const std::string& host, const std::string& component, const std::string& device) {
  return {{"host", host}, {"component", component}, {"device", device.empty() ? json(nullptr) : json(device)}};
}

void Expect(Bundle& b, const char* action, const char* cause, const char* stage) {
  b.expected["action"] = action;
  b.expected["cause"] = cause;
  b.expected["stage"] = stage;
  if (!b.expected.contains("isolate")) b.expected["isolate"] = json::array();
  if (!b.expected.contains("repair")) b.expected["repair"] = json::array();
}

// ---------------------------------------------------------------------------------------
// Scenarios.

void GpuCritical(Bundle& b, const std::string& kind) {
  const int v = b.Rand(b.Hosts()), g = b.Rand(b.c.gpus);
  const double t = b.c.fail;
  const GenNode& n = b.N(v);
  const std::string pci = PciShort(n.gpu_pci[static_cast<size_t>(g)]);
  std::string component = "gpu";
  if (kind == "xid79") {
    b.Kernel(v, t, fmt::format("NVRM: GPU at PCI:{}: GPU-{:08x}-1b53-9938-c9ed209a3513", pci, static_cast<uint32_t>(b.rng())));
    b.Kernel(v, t, fmt::format("NVRM: Xid (PCI:{}): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.", pci));
    b.Kernel(v, t + 0.001, fmt::format("NVRM: GPU {}: GPU has fallen off the bus.", n.gpu_pci[static_cast<size_t>(g)]));
    b.Train(v, g, t + 0.5, "RuntimeError: CUDA error: unknown error");
  } else if (kind == "dbe") {
    if (b.rng() % 2)
      b.Kernel(v, t, fmt::format("NVRM: Xid (PCI:{}): 48, pid=41233, name=python, An uncorrectable double bit error (DBE) "
                                 "has been detected on GPU in the framebuffer at partition 6, subpartition 0.",
                                 pci));
    else
      b.Kernel(v, t, fmt::format("NVRM: Xid (PCI:{}): 95, pid=41233, name=python, Uncontained: FBHUB. RST: Yes, D-RST: No",
                                 pci));
    b.Train(v, g, t + 0.2, "RuntimeError: CUDA error: uncorrectable ECC error encountered");
  } else if (kind == "nvlink") {
    component = "nvlink";
    b.Kernel(v, t, fmt::format("NVRM: Xid (PCI:{}): {}, pid=41233, name=python, NVLink: fatal error detected on link {}"
                               "(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)",
                               pci, b.rng() % 2 ? 74 : 145, b.Rand(18)));
  } else if (kind == "pcie_fatal") {
    component = "pcie";
    b.Kernel(v, t, fmt::format("pcieport 0000:16:02.0: AER: Uncorrected (Fatal) error received: {}.0", pci));
    b.Kernel(v, t, fmt::format("nvidia {}: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, "
                               "(Receiver ID)",
                               n.gpu_pci[static_cast<size_t>(g)]));
    b.Kernel(v, t, fmt::format("nvidia {}:   device [10de:2330] error status/mask=00004000/00000000",
                               n.gpu_pci[static_cast<size_t>(g)]));
    b.Kernel(v, t, fmt::format("nvidia {}:    [14] CmpltTO                (First)", n.gpu_pci[static_cast<size_t>(g)]));
    b.Kernel(v, t + 0.1, fmt::format("NVRM: Xid (PCI:{}): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.", pci));
  }
  // The other ranks lose the dead GPU's process: connection errors naming this host, then timeouts.
  PeersLoseConnection(b, v, t, 4, true);
  WatchdogTimeouts(b, t, {v});
  Expect(b, "isolate", "hardware", "critical_error");
  b.expected["isolate"] = json::array({Isolate(n.host, component, fmt::format("gpu{}", g))});
}

void NicDown(Bundle& b) {
  const int v = b.Rand(b.Hosts()), rail = b.Rand(b.c.gpus);
  const double t = b.c.fail;
  b.Kernel(v, t, fmt::format("mlx5_core 0000:{:02x}:00.0 ens{}f0np0: Link down", 0x0c + rail * 0x10, rail + 1));
  b.NcclWarn(v, rail, t + 0.3, fmt::format("transport/net_ib.cc:131 NCCL WARN NET/IB : mlx5_{}:1 Got async event : port error", rail));
  for (int k = 0; k < 4; ++k) IbCompletionError(b, b.Other({v}), v, rail, t + 1 + b.Jitter(1));
  WatchdogTimeouts(b, t);
  Expect(b, "isolate", "hardware", "critical_error");
  b.expected["isolate"] = json::array({Isolate(b.N(v).host, "nic", fmt::format("mlx5_{}", rail))});
}

void UserFault(Bundle& b, const std::string& kind) {
  const int v = b.Rand(b.Hosts()), g = b.Rand(b.c.gpus);
  const double t = b.c.fail;
  const std::vector<std::string> frames = {
      "  File \"/workspace/train.py\", line 512, in <module>", "    main()",
      "  File \"/workspace/train.py\", line 488, in main", "    loss = model(batch)",
      "  File \"/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py\", line 1518, in _wrapped_call_impl",
      "    return self._call_impl(*args, **kwargs)"};
  if (kind == "user_exception") {
    PythonTraceback(b, v, g, t, frames,
                    b.rng() % 2 ? "KeyError: 'attention_mask'"
                                : "RuntimeError: shape '[8, 4096, 32, 128]' is invalid for input of size 67108864");
  } else if (kind == "oom") {
    PythonTraceback(b, v, g, t, frames,
                    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 3 has a total capacity "
                    "of 79.11 GiB of which 1.21 GiB is free. Process 41233 has 77.89 GiB memory in use.");
  } else {  // app_xid: the job's own kernel faults (MMU fault, Xid 31), CUDA reports an illegal access
    const std::string pci = PciShort(b.N(v).gpu_pci[static_cast<size_t>(g)]);
    b.Kernel(v, t, fmt::format("NVRM: Xid (PCI:{}): 31, pid={}, name=python, Ch 00000008, intr 00000000. MMU Fault: "
                               "ENGINE GRAPHICS GPCCLIENT_T1_8 faulted @ 0x7f3a_1c000000. Fault is of type "
                               "FAULT_PDE ACCESS_TYPE_VIRT_WRITE",
                               pci, b.pid_base + g));
    PythonTraceback(b, v, g, t + 0.1, frames, "RuntimeError: CUDA error: an illegal memory access was encountered");
  }
  b.keep.insert(v);
  // Its peers see the process vanish, name its host, then everybody times out.
  PeersLoseConnection(b, v, t, 5, true);
  WatchdogTimeouts(b, t, {v});
  Expect(b, "none", "user", "user_error");
}

void Pair(Bundle& b) {
  const int a = b.Rand(b.Hosts()), c = b.Other({a}), rail = b.Rand(b.c.gpus);
  const double t = b.c.fail;
  IbCompletionError(b, a, c, rail, t + b.Jitter(0.5));
  IbCompletionError(b, c, a, rail, t + b.Jitter(0.5));
  WatchdogTimeouts(b, t);
  Expect(b, "isolate", "network", "dist_pair");
  std::vector<std::string> hosts = {b.N(a).host, b.N(c).host};
  std::sort(hosts.begin(), hosts.end());
  b.expected["isolate"] = json::array();
  for (const auto& h : hosts) b.expected["isolate"].push_back(Isolate(h, "nic", fmt::format("mlx5_{}", rail)));
}

// The root's NIC on one rail breaks: every connection to it fails.
void RootDiag(Bundle& b, bool drop_root) {
  const int r = b.Rand(b.Hosts()), rail = b.Rand(b.c.gpus);
  const double t = b.c.fail;
  const int peers = std::min(6, b.Hosts() - 1);
  std::set<int> chosen;
  while (static_cast<int>(chosen.size()) < peers) chosen.insert(b.Other({r}));
  for (int p : chosen) {
    IbCompletionError(b, p, r, rail, t + 0.5 + b.Jitter(2));
    IbCompletionError(b, r, p, rail, t + b.Jitter(0.5));
  }
  // Later, as ranks abort, connections between healthy peers break too (noise edges).
  std::vector<int> v(chosen.begin(), chosen.end());
  if (v.size() >= 2) IbCompletionError(b, v[0], v[1], rail, t + 30, 5);
  WatchdogTimeouts(b, t);
  if (drop_root) b.drop_folder.insert(r);
  Expect(b, "isolate", "hardware", "root_diag");
  b.expected["isolate"] = json::array({Isolate(b.N(r).host, "nic", fmt::format("mlx5_{}", rail))});
}

json BaseFacts(const GenNode& n, int gpus) {
  json f;
  f["gpu"] = {{"count", gpus}, {"driver_version", "570.86.15"}, {"persistence_mode", "Enabled"}, {"ecc_mode", "Enabled"}};
  f["cuda"] = {{"version", "12.8"}};
  f["nccl"] = {{"version", "2.21.5"}};
  f["nic"] = {{"count", gpus}};
  for (int k = 0; k < gpus; ++k)
    f["nic"][fmt::format("mlx5_{}", k)] = {{"state", "ACTIVE"}, {"mtu", 4096}, {"fw_version", "28.39.1002"}, {"link_layer", "Ethernet"}};
  f["env"] = {{"NCCL_IB_HCA", "mlx5"}, {"NCCL_SOCKET_IFNAME", "eth0"}, {"NCCL_IB_GID_INDEX", "3"}};
  f["pcie"] = {{"acs_enabled", false}};
  f["os"] = {{"kernel", "5.15.0-125-generic"}, {"memlock", "unlimited"}, {"dev_shm_mb", 65536}};
  f["container"] = {{"image", "nvcr.io/nvidia/pytorch:25.01-py3"}};
  (void)n;
  return f;
}

void ConfigMismatch(Bundle& b) {
  const int m = b.Rand(b.Hosts());
  const double t = b.c.fail;
  std::string key;
  std::string value;
  switch (b.Rand(3)) {
    case 0:
      key = "nccl.version";
      value = "2.18.1";
      b.facts[static_cast<size_t>(m)]["nccl"]["version"] = value;
      break;
    case 1:
      key = "env.NCCL_IB_GID_INDEX";
      value = "1";
      b.facts[static_cast<size_t>(m)]["env"]["NCCL_IB_GID_INDEX"] = value;
      break;
    default: {
      const int k = b.Rand(b.c.gpus);
      key = fmt::format("nic.mlx5_{}.mtu", k);
      value = "1500";
      b.facts[static_cast<size_t>(m)]["nic"][fmt::format("mlx5_{}", k)]["mtu"] = 1500;
    }
  }
  // Connections to the odd host fail; it is the common endpoint.
  PeersLoseConnection(b, m, t, std::min(5, b.Hosts() - 1), b.rng() % 2);
  WatchdogTimeouts(b, t);
  Expect(b, "repair", "config", "config_check");
  b.expected["repair"] = json::array({{{"host", b.N(m).host}, {"component", "config"}, {"key", key}}});
}

void SwitchFlap(Bundle& b) {
  const int f = b.Rand(b.Hosts()), rail = b.Rand(b.c.gpus);
  const GenNode& n = b.N(f);
  const double t = b.c.fail;
  LogFile& sw = b.switches[n.nic_switch[static_cast<size_t>(rail)]];
  const std::string& port = n.nic_port[static_cast<size_t>(rail)];
  for (int i = 0; i < 3; ++i) {
    const double td = t - 5 + i * 7;
    if (i % 2 == 0)
      sw.Add(td, fmt::format("{} {} NOTICE swss#portsyncd: :- set: Port {} oper state set from up to down",
                             "Nov 30 10:11:02", n.nic_switch[static_cast<size_t>(rail)], port));
    else
      sw.Add(td, fmt::format("%LINEPROTO-5-UPDOWN: Line protocol on Interface {}, changed state to down", port));
    sw.Add(td + 3, fmt::format("%LINEPROTO-5-UPDOWN: Line protocol on Interface {}, changed state to up", port));
    b.Kernel(f, td, fmt::format("mlx5_core 0000:{:02x}:00.0 ens{}f0np0: Link down", 0x0c + rail * 0x10, rail + 1));
    b.Kernel(f, td + 3, fmt::format("mlx5_core 0000:{:02x}:00.0 ens{}f0np0: Link up", 0x0c + rail * 0x10, rail + 1));
  }
  // Some noise on another port of the same switch that is fine.
  sw.Add(t - 100, "%LINK-3-UPDOWN: Interface Ethernet255, changed state to up");
  for (int k = 0; k < 4; ++k) IbCompletionError(b, b.Other({f}), f, rail, t + 1 + b.Jitter(1));
  WatchdogTimeouts(b, t);
  Expect(b, "repair", "network", "net_diag");
  b.expected["repair"] = json::array({{{"host", n.host}, {"component", "switch_port"}, {"device", port}}});
}

void LargePacketLoss(Bundle& b) {
  const int l = b.Rand(b.Hosts()), rail = b.Rand(b.c.gpus);
  const double t = b.c.fail;
  const bool with_dist = b.rng() % 2;
  // Probes along the rail: every host to a few others, four sizes.
  for (int s = 0; s < b.Hosts(); ++s) {
    for (int k = 1; k <= 3; ++k) {
      int d = (s + k * 5) % b.Hosts();
      if (d == s) continue;
      for (int size : {64, 1024, 4096, 9000}) {
        const bool through = s == l || d == l;
        const int lost = through && size > 1500 ? 20 + b.Rand(50) : 0;
        b.probes.push_back({{"src", b.N(s).nic_ip[static_cast<size_t>(rail)]},
                            {"dst", b.N(d).nic_ip[static_cast<size_t>(rail)]},
                            {"size", size}, {"sent", 100}, {"lost", lost},
                            {"rtt_us_p50", 8.0 + b.Jitter(3)}, {"rtt_us_p99", 12.0 + b.Jitter(4)},
                            {"at", Iso(t + 60)}});
      }
    }
  }
  if (with_dist)
    for (int k = 0; k < 4; ++k) IbCompletionError(b, b.Other({l}), l, rail, t + b.Jitter(2));
  else
    b.state = "hung";
  WatchdogTimeouts(b, t);
  Expect(b, "repair", "network", "net_diag");
  b.expected["repair"] = json::array(
      {{{"host", b.N(l).host}, {"component", "link"}, {"device", b.N(l).nic_port[static_cast<size_t>(rail)]}}});
}

// ---------------------------------------------------------------------------------------
// CCL probe snapshots. Every GPU is one process with three communicators: TP (the 8 GPUs
// of its host), DP (the GPUs of its index across all hosts, a ring over the rail) and PP
// (its index on a group of 4 hosts). `launched`/`completed` give each comm's AllReduce
// counters at the hang; older periodic snapshots precede the final one.
struct CclCounts {
  uint64_t launched = 0, completed = 0;
};

std::string CclRecordLine(const Bundle& b, int node, int gpu, double ts, const char* name, uint64_t hash, int nranks,
                          int nnodes, int rank, CclCounts c, const std::string& net,
                          const std::function<double(uint64_t)>& td = nullptr) {
  std::string recent;
  for (uint64_t k = c.completed > 16 ? c.completed - 16 : 0; k < c.completed; ++k)
    recent += fmt::format("{}{{\"func\": \"AllReduce\", \"seq\": {}, \"bytes\": 67108864, \"start_ts\": {:.3f}, \"td_us\": {:.1f}}}",
                          recent.empty() ? "" : ", ", k, ts - static_cast<double>(c.completed - k) * 0.9,
                          td ? td(k) : 5100.0 + static_cast<double>(k % 7));
  return fmt::format("{{\"v\": 1, \"ts\": {:.3f}, \"host\": \"{}\", \"pid\": {}, \"gpu\": {}, \"comm\": \"{:016x}\", "
                     "\"comm_name\": \"{}\", \"nranks\": {}, \"nnodes\": {}, \"rank\": {}, \"coll\": {{\"AllReduce\": "
                     "{{\"launched\": {}, \"completed\": {}}}}}, \"net\": [{}], \"recent\": [{}]}}",
                     ts, b.N(node).host, 41000 + gpu, gpu, hash, name, nranks, nnodes, rank, c.launched, c.completed, net, recent);
}

std::string NetEntry(int peer, bool send, uint64_t posted, uint64_t completed, double gbps) {
  return fmt::format("{{\"peer\": {}, \"dir\": \"{}\", \"posted\": {}, \"completed\": {}, \"bytes\": {}, \"recent_gbps\": {:.1f}}}",
                     peer, send ? "send" : "recv", posted, completed, completed * 524288, gbps);
}

// hang(node, gpu, comm) -> counts at the hang; stuck(node, gpu, peer_node, send) -> true
// when that DP/PP ring transfer is posted and never completes.
void WriteCclSnapshots(Bundle& b, uint64_t iters, const std::function<CclCounts(int, int, char)>& hang,
                       const std::function<bool(int, int, int, bool)>& stuck) {
  const int H = b.Hosts(), G = b.c.gpus;
  const double t_end = b.c.fail + 30;
  for (int h = 0; h < H; ++h)
    for (int g = 0; g < G; ++g) {
      std::string& out = b.ccl[{h, g}];
      for (int snap = 0; snap < 3; ++snap) {
        const bool last = snap == 2;
        const double ts = t_end - (2 - snap) * 1.0 + g * 0.001;
        auto counts = [&](char comm) {
          if (last) return hang(h, g, comm);
          const uint64_t done = iters - static_cast<uint64_t>(2 - snap) * 2;
          return CclCounts{done, done};
        };
        // TP: intra-node, no network entries.
        out += CclRecordLine(b, h, g, ts, "tp", 0x7000000000000000ull + static_cast<uint64_t>(h), G, 1, g, counts('t'), "") + "\n";
        // DP ring over the hosts on rail g.
        auto ring = [&](int rank, int n, auto node_of, char comm) {
          const CclCounts c = counts(comm);
          const int next = (rank + 1) % n, prev = (rank + n - 1) % n;
          const uint64_t steps = c.completed * 4;
          const bool s_stuck = last && stuck(h, g, node_of(next), true), r_stuck = last && stuck(h, g, node_of(prev), false);
          return NetEntry(next, true, steps + (s_stuck ? 2 : 0), steps + (s_stuck ? 1 : 0), 24.0 + (h % 5) * 0.3) + ", " +
                 NetEntry(prev, false, steps + (r_stuck ? 2 : 0), steps + (r_stuck ? 1 : 0), 24.1 + (h % 3) * 0.2);
        };
        out += CclRecordLine(b, h, g, ts, "dp", 0xd000000000000000ull + static_cast<uint64_t>(g), H, H, h, counts('d'),
                             ring(h, H, [](int r) { return r; }, 'd')) + "\n";
        const int group = h / 4, base = group * 4, pp_n = std::min(4, H - base);
        if (pp_n >= 2)
          out += CclRecordLine(b, h, g, ts, "pp", 0xe000000000000000ull + static_cast<uint64_t>(group * 16 + g), pp_n, pp_n,
                               h - base, counts('p'), ring(h - base, pp_n, [base](int r) { return base + r; }, 'p')) + "\n";
      }
    }
}

// A GPU stalls in compute: it never launches the next TP collective; its TP peers wait
// inside that one, the DP peers of its host wait inside theirs.
void ComputeHang(Bundle& b) {
  const int hs = b.Rand(b.Hosts()), gs = b.Rand(b.c.gpus);
  const uint64_t n = 200 + static_cast<uint64_t>(b.Rand(1000));
  b.state = "hung";
  WriteCclSnapshots(
      b, n,
      [&](int h, int g, char comm) {
        if (h == hs && g == gs) return CclCounts{n, n};             // stalled: nothing in flight
        if (comm == 't') return h == hs ? CclCounts{n + 1, n} : CclCounts{n + 1, n + 1};
        if (h == hs) return CclCounts{n, n};                        // in TP, behind in DP/PP
        return CclCounts{n + 1, n};                                 // waiting in DP/PP
      },
      [&](int h, int, int peer_node, bool) { return h != hs && peer_node == hs; });
  WatchdogTimeouts(b, b.c.fail);
  Expect(b, "isolate", "hardware", "ccl_compute");
  b.expected["isolate"] = json::array({Isolate(b.N(hs).host, "gpu", fmt::format("gpu{}", gs))});
}

// One NIC drops traffic silently: on its rail, requests to and from it never complete.
void CommHang(Bundle& b) {
  const int hs = b.Rand(b.Hosts()), rail = b.Rand(b.c.gpus);
  const uint64_t n = 200 + static_cast<uint64_t>(b.Rand(1000));
  b.state = "hung";
  WriteCclSnapshots(
      b, n,
      [&](int, int g, char comm) {
        if (comm == 't') return g == rail ? CclCounts{n + 1, n + 1} : CclCounts{n + 2, n + 1};
        return g == rail && comm == 'd' ? CclCounts{n + 1, n} : CclCounts{n + 1, n + 1};
      },
      [&](int h, int g, int peer_node, bool) { return g == rail && (h == hs || peer_node == hs) && h != peer_node; });
  WatchdogTimeouts(b, b.c.fail);
  Expect(b, "isolate", "hardware", "ccl_comm");
  b.expected["isolate"] = json::array({Isolate(b.N(hs).host, "nic", fmt::format("mlx5_{}", rail))});
}

// A slow job's snapshots: counters move, durations and throughputs tell. td(h, g, comm,
// seq) is the duration factor of one collective on one GPU; gbps(h, g, comm, to_node) the
// recent send throughput of a ring flow.
void WriteSlowSnapshots(Bundle& b, const std::function<double(int, int, char, uint64_t)>& td,
                        const std::function<double(int, int, char, int)>& gbps) {
  const int H = b.Hosts(), G = b.c.gpus;
  const uint64_t n = 500 + static_cast<uint64_t>(b.Rand(500));
  for (int h = 0; h < H; ++h)
    for (int g = 0; g < G; ++g) {
      std::string& out = b.ccl[{h, g}];
      const double ts = b.c.fail + g * 0.001;
      const CclCounts c{n + static_cast<uint64_t>(h % 2), n};  // skew between snapshots is normal
      auto tdf = [&](char comm) {
        return [&, comm, h, g](uint64_t seq) {
          const double noise = 1.0 + static_cast<double>((seq * 2654435761u + static_cast<uint64_t>(h * 31 + g)) % 100) / 1000.0;
          return 5000.0 * td(h, g, comm, seq) * noise;
        };
      };
      auto ring = [&](int rank, int nr, auto node_of, char comm) {
        const int next = (rank + 1) % nr, prev = (rank + nr - 1) % nr;
        return NetEntry(next, true, n * 4, n * 4, gbps(h, g, comm, node_of(next))) + ", " +
               NetEntry(prev, false, n * 4, n * 4, gbps(node_of(prev), g, comm, h));
      };
      out += CclRecordLine(b, h, g, ts, "tp", 0x7000000000000000ull + static_cast<uint64_t>(h), G, 1, g, c, "", tdf('t')) + "\n";
      out += CclRecordLine(b, h, g, ts, "dp", 0xd000000000000000ull + static_cast<uint64_t>(g), H, H, h, c,
                           ring(h, H, [](int r) { return r; }, 'd'), tdf('d')) + "\n";
    }
}

// One GPU computes 30% slower: in its host's TP collectives it arrives last and waits
// least; its host then arrives late in every DP ring.
void ComputeStraggler(Bundle& b) {
  const int hs = b.Rand(b.Hosts()), gs = b.Rand(b.c.gpus);
  b.state = "slow";
  WriteSlowSnapshots(
      b,
      [&](int h, int g, char comm, uint64_t) {
        if (h != hs) return comm == 'd' ? 1.1 : 1.0;  // DP peers wait a little for the late host
        if (comm == 't') return g == gs ? 0.3 : 1.3;
        return 0.4;  // the late host's ranks wait least in DP
      },
      [&](int, int, char, int) { return 24.0; });
  Expect(b, "isolate", "hardware", "ccl_degradation");
  b.expected["isolate"] = json::array({Isolate(b.N(hs).host, "gpu", fmt::format("gpu{}", gs))});
}

// One NIC delivers a third of its bandwidth (a degraded link or optic).
void DegradedNic(Bundle& b) {
  const int hs = b.Rand(b.Hosts()), rail = b.Rand(b.c.gpus);
  b.state = "slow";
  WriteSlowSnapshots(
      b, [&](int, int, char, uint64_t) { return 1.0; },
      [&](int h, int g, char comm, int to) {
        const bool through = comm == 'd' && g == rail && (h == hs || to == hs);
        return (through ? 8.0 : 24.0) + static_cast<double>((h * 7 + g) % 10) / 10.0;
      });
  Expect(b, "isolate", "hardware", "ccl_degradation");
  b.expected["isolate"] = json::array({Isolate(b.N(hs).host, "nic", fmt::format("mlx5_{}", rail))});
}

// ---------------------------------------------------------------------------------------
// Metrics as Prometheus range queries: 20 minutes at 15 s, per GPU or per NIC.
constexpr int kMetricPoints = 80;
const double kUnchanged = std::nan("");  // an override that leaves the healthy value
constexpr double kMetricStep = 15;

// value(h, dev, i): the sample i (0 oldest) of host h, device dev; counters accumulate it
// as a per-second rate.
void WriteMetric(Bundle& b, const std::string& name, bool per_gpu, bool counter,
                 const std::function<double(int, int, int)>& value) {
  const double t_end = b.c.fail + 1200;
  std::string out = "{\"status\": \"success\", \"data\": {\"resultType\": \"matrix\", \"result\": [";
  bool first = true;
  const int label_style = static_cast<int>(b.rng() % 3);
  for (int h = 0; h < b.Hosts(); ++h)
    for (int d = 0; d < b.c.gpus; ++d) {
      std::string labels;
      const std::string& host = b.N(h).host;
      if (per_gpu)
        labels = label_style == 0 ? fmt::format("\"Hostname\": \"{}\", \"gpu\": \"{}\", \"instance\": \"{}:9400\"", host, d, b.N(h).mgmt_ip)
                                  : fmt::format("\"host\": \"{}\", \"gpu\": \"{}\"", host, d);
      else
        labels = label_style == 1 ? fmt::format("\"instance\": \"{}:9100\", \"device\": \"mlx5_{}\", \"port\": \"1\"", host, d)
                                  : fmt::format("\"hostname\": \"{}\", \"device\": \"mlx5_{}\"", host, d);
      out += fmt::format("{}{{\"metric\": {{\"__name__\": \"{}\", {}}}, \"values\": [", first ? "" : ", ", name, labels);
      first = false;
      double acc = 1000.0 * (h + 1);
      for (int i = 0; i < kMetricPoints; ++i) {
        const double t = t_end - (kMetricPoints - 1 - i) * kMetricStep;
        double v = value(h, d, i);
        if (counter) {
          acc += v * kMetricStep;
          v = acc;
        }
        out += fmt::format("{}[{:.3f}, \"{:.6g}\"]", i ? ", " : "", t, v);
      }
      out += "]}";
    }
  out += "]}}";
  b.metrics[name] = std::move(out);
}

double Jitter(int h, int d, int i, double amp) {
  return amp * static_cast<double>((h * 7919 + d * 104729 + i * 1299709) % 1000) / 1000.0;
}

// The healthy background every metric scenario shares.
void HealthyMetrics(Bundle& b, const std::function<double(int, int, int, const char*)>& override_fn) {
  auto with = [&](const char* name, auto base) {
    return [&, name, base](int h, int d, int i) {
      const double o = override_fn(h, d, i, name);
      return std::isnan(o) ? base(h, d, i) : o;
    };
  };
  WriteMetric(b, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", true, false,
              with("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", [](int h, int d, int i) { return 0.58 + Jitter(h, d, i, 0.04); }));
  WriteMetric(b, "DCGM_FI_DEV_GPU_TEMP", true, false,
              with("DCGM_FI_DEV_GPU_TEMP", [](int h, int d, int i) { return 61 + Jitter(h, d, i, 6); }));
  WriteMetric(b, "DCGM_FI_DEV_SM_CLOCK", true, false,
              with("DCGM_FI_DEV_SM_CLOCK", [](int h, int d, int i) { return 1980 - Jitter(h, d, i, 30); }));
  WriteMetric(b, "np_ecn_marked_roce_packets", false, true,
              with("np_ecn_marked_roce_packets", [](int h, int d, int i) { return Jitter(h, d, i, 5); }));
  WriteMetric(b, "rp_cnp_handled", false, true,
              with("rp_cnp_handled", [](int h, int d, int i) { return Jitter(h, d, i, 5); }));
}

// The brief's case: one NIC's ECN marks jump from ~0 to 10-30K/s after its link started
// dropping packets silently.
void EcnSurge(Bundle& b) {
  const int hs = b.Rand(b.Hosts()), nic = b.Rand(b.c.gpus);
  b.state = "slow";
  HealthyMetrics(b, [&](int h, int d, int i, const char* name) {
    if (h == hs && d == nic && i >= 30 && std::string(name) != "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE" &&
        std::string(name).find("DCGM") == std::string::npos)
      return 10000 + Jitter(h, d, i, 20000);
    return kUnchanged;
  });
  Expect(b, "isolate", "hardware", "metric_outlier");
  b.expected["isolate"] = json::array({Isolate(b.N(hs).host, "nic", fmt::format("mlx5_{}", nic))});
}

void ThermalThrottling(Bundle& b) {
  const int hs = b.Rand(b.Hosts()), g = b.Rand(b.c.gpus);
  b.state = "slow";
  HealthyMetrics(b, [&](int h, int d, int i, const char* name) {
    if (h != hs || d != g || i < 20) return kUnchanged;
    const std::string n(name);
    if (n == "DCGM_FI_DEV_GPU_TEMP") return 88 + Jitter(h, d, i, 4);
    if (n == "DCGM_FI_DEV_SM_CLOCK") return 1300 + Jitter(h, d, i, 100);
    return kUnchanged;
  });
  Expect(b, "isolate", "hardware", "metric_outlier");
  b.expected["isolate"] = json::array({Isolate(b.N(hs).host, "gpu", fmt::format("gpu{}", g))});
}

// Everyone slows down together (a data loader, a framework change): no host to blame.
void GlobalSlowdown(Bundle& b) {
  b.state = "slow";
  HealthyMetrics(b, [&](int h, int d, int i, const char* name) {
    if (i >= 30 && std::string(name) == "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE") return 0.40 + Jitter(h, d, i, 0.04);
    return kUnchanged;
  });
  Expect(b, "none", "unknown", "metric_outlier");
}

// A one-minute burst of ECN marks on one NIC: a spike, not a fault.
void TransientSpike(Bundle& b) {
  const int hs = b.Rand(b.Hosts()), nic = b.Rand(b.c.gpus);
  b.state = "slow";
  HealthyMetrics(b, [&](int h, int d, int i, const char* name) {
    if (h == hs && d == nic && i >= 60 && i < 64 && std::string(name) == "np_ecn_marked_roce_packets")
      return 20000.0;
    return kUnchanged;
  });
  Expect(b, "none", "unknown", "metric_outlier");
}

void NoSignal(Bundle& b) {
  b.state = "hung";
  WatchdogTimeouts(b, b.c.fail);
  Expect(b, "offline", "unknown", "offline");
  b.expected["offline_all"] = true;
}

void WriteJson(const fs::path& p, const json& j) {
  std::ofstream(p) << j.dump(2) << "\n";
}

}  // namespace

size_t GenerateBundle(const GenOptions& o, const std::string& dir) {
  Bundle b;
  b.c = MakeCluster(o.hosts, o.gpus, o.seed);
  b.rng.seed(o.seed * 0x9E3779B97F4A7C15ull + std::hash<std::string>{}(o.scenario));
  b.kernel.resize(static_cast<size_t>(o.hosts));
  b.train.resize(static_cast<size_t>(o.hosts));
  for (int i = 0; i < o.hosts; ++i) b.facts.push_back(BaseFacts(b.N(i), o.gpus));

  const std::string& s = o.scenario;
  if (s == "xid79" || s == "dbe" || s == "nvlink" || s == "pcie_fatal") GpuCritical(b, s);
  else if (s == "nic_down") NicDown(b);
  else if (s == "user_exception" || s == "oom" || s == "app_xid") UserFault(b, s);
  else if (s == "pair") Pair(b);
  else if (s == "rootdiag") RootDiag(b, false);
  else if (s == "rootdiag_missing") RootDiag(b, true);
  else if (s == "config_mismatch") ConfigMismatch(b);
  else if (s == "switch_flap") SwitchFlap(b);
  else if (s == "large_packet_loss") LargePacketLoss(b);
  else if (s == "no_signal") NoSignal(b);
  else if (s == "compute_hang") ComputeHang(b);
  else if (s == "comm_hang") CommHang(b);
  else if (s == "compute_straggler") ComputeStraggler(b);
  else if (s == "degraded_nic") DegradedNic(b);
  else if (s == "ecn_surge") EcnSurge(b);
  else if (s == "thermal_throttling") ThermalThrottling(b);
  else if (s == "global_slowdown") GlobalSlowdown(b);
  else if (s == "transient_spike") TransientSpike(b);
  else throw std::invalid_argument("unknown scenario " + s);

  // Hosts the scenario did not touch: lose a few files as real collection does.
  std::set<std::string> touched;
  for (const auto& i : b.expected["isolate"]) touched.insert(i["host"].get<std::string>());
  for (const auto& r : b.expected["repair"]) touched.insert(r["host"].get<std::string>());
  for (int k : b.keep) touched.insert(b.N(k).host);
  std::set<std::pair<int, int>> dropped;  // (node, 0 kernel / 1 train / 2 facts)
  if (o.drop_files && o.hosts > 4)
    for (int k = 0; k < std::max(1, o.hosts / 16); ++k) {
      int n = b.Rand(o.hosts);
      if (!touched.count(b.N(n).host)) dropped.insert({n, b.Rand(3)});
    }

  fs::create_directories(dir);
  json topo;
  topo["nodes"] = json::array();
  std::set<std::string> switch_names;
  for (const auto& n : b.c.nodes) {
    json node = {{"host", n.host}, {"pod", n.pod}, {"mgmt_ip", n.mgmt_ip}};
    node["gpus"] = json::array();
    for (size_t g = 0; g < n.gpu_pci.size(); ++g)
      node["gpus"].push_back({{"index", g}, {"pci", n.gpu_pci[g]}, {"uuid", fmt::format("GPU-{}-{}", n.host, g)}});
    node["nics"] = json::array();
    for (size_t k = 0; k < n.nic_ip.size(); ++k) {
      node["nics"].push_back({{"name", fmt::format("mlx5_{}", k)}, {"ip", n.nic_ip[k]}, {"rail", k},
                              {"switch", n.nic_switch[k]}, {"port", n.nic_port[k]}});
      switch_names.insert(n.nic_switch[k]);
    }
    topo["nodes"].push_back(node);
  }
  topo["switches"] = json::array();
  for (const auto& sw : switch_names) topo["switches"].push_back({{"name", sw}, {"tier", 1}, {"uplinks", {"agg-0"}}});
  WriteJson(fs::path(dir) / "topology.json", topo);

  json job = {{"id", b.c.job_id}, {"state", b.state}, {"started_at", Iso(b.c.start)}, {"ended_at", Iso(b.c.end)}};
  job["hosts"] = json::array();
  for (const auto& n : b.c.nodes) job["hosts"].push_back(n.host);
  WriteJson(fs::path(dir) / "job.json", job);

  size_t bytes = 0;
  for (int i = 0; i < o.hosts; ++i) {
    if (b.drop_folder.count(i)) continue;
    const fs::path nd = fs::path(dir) / "nodes" / b.N(i).host;
    fs::create_directories(nd);
    std::mt19937_64 rng(o.seed * 1000003 + static_cast<uint64_t>(i));
    KernelNoise(b.c, i, rng, b.kernel[static_cast<size_t>(i)], o.kernel_bytes, rng() % 3 == 0);
    TrainNoise(b.c, i, rng, b.train[static_cast<size_t>(i)], o.train_bytes);
    if (!dropped.count({i, 0})) bytes += b.kernel[static_cast<size_t>(i)].Write((nd / "kernel.log").string());
    if (!dropped.count({i, 1})) bytes += b.train[static_cast<size_t>(i)].Write((nd / "train.log").string());
    if (!dropped.count({i, 2})) WriteJson(nd / "facts.json", b.facts[static_cast<size_t>(i)]);
    for (int g = 0; g < o.gpus; ++g) {
      auto it = b.ccl.find({i, g});
      if (it == b.ccl.end()) continue;
      fs::create_directories(nd / "ccl");
      std::ofstream(nd / "ccl" / fmt::format("{}-{}.jsonl", b.N(i).host, 41000 + g)) << it->second;
      bytes += it->second.size();
    }
  }
  if (!b.switches.empty()) {
    fs::create_directories(fs::path(dir) / "switches");
    for (auto& [name, f] : b.switches) bytes += f.Write((fs::path(dir) / "switches" / (name + ".log")).string());
  }
  if (!b.probes.empty()) WriteJson(fs::path(dir) / "probes.json", b.probes);
  if (!b.metrics.empty()) {
    fs::create_directories(fs::path(dir) / "metrics");
    for (const auto& [name, body] : b.metrics) std::ofstream(fs::path(dir) / "metrics" / (name + ".json")) << body;
  }
  b.expected["scenario"] = s;
  b.expected["seed"] = o.seed;
  b.expected["hosts"] = o.hosts;
  WriteJson(fs::path(dir) / "expected.json", b.expected);
  return bytes;
}

}  // namespace aegis::gen
