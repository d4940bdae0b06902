#include "gen/faults.h"

#include <fmt/format.h>

#include <algorithm>

namespace aegis::gen {

using nlohmann::json;

void WatchdogTimeouts(Scene& s, const std::set<int>& except) {
  const long seq = 4000 + s.Rand(50000);
  const long timeout_ms = static_cast<long>(s.b.c.timeout * 1000);
  for (int n = 0; n < s.Hosts(); ++n) {
    if (except.count(n)) continue;
    for (int g = 0; g < s.Gpus(); ++g) {
      const int r = s.b.c.Rank(n, g);
      const double ts = s.At(600) + s.Jitter(0.5);
      s.Train(n, g, ts,
              GlogHeader('E', ts, "ProcessGroupNCCL.cpp:632") +
                  fmt::format("[Rank {}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={}, "
                              "OpType=ALLREDUCE, NumelIn=67108864, NumelOut=67108864, Timeout(ms)={}) ran for {} "
                              "milliseconds before timing out.",
                              r, seq, timeout_ms, timeout_ms + s.Rand(900)));
      if (g == 0)
        s.Train(n, g, ts + 0.01,
                GlogHeader('E', ts + 0.01, "ProcessGroupNCCL.cpp:1664") +
                    fmt::format("[PG ID 0 PG GUID 0(default_pg) Rank {}] Process group watchdog thread terminated with "
                                "exception: [Rank {}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={}, "
                                "OpType=ALLREDUCE, NumelIn=67108864, NumelOut=67108864, Timeout(ms)={}) ran for "
                                "{} milliseconds before timing out.",
                                r, r, seq, timeout_ms, timeout_ms + 45));
    }
  }
}

void IbCompletionError(Scene& s, int node, int peer, int rail, double ts, int status) {
  const GenNode& n = s.N(node);
  const GenNode& p = s.N(peer);
  const size_t k = static_cast<size_t>(rail);
  // Two wordings, by NCCL version.
  std::string msg;
  if (s.Coin())
    msg = fmt::format("transport/net_ib.cc:2451 NCCL WARN NET/IB: Got completion from peer {}<{}> with status={} "
                      "opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:{} remoteGids::ffff:{} hca mlx5_{}",
                      p.nic_ip[k], 40000 + s.Rand(20000), status, n.nic_ip[k], p.nic_ip[k], rail);
  else
    msg = fmt::format("transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer {}<{}> with error {}, "
                      "opcode 0, len 0, vendor err 129 (Send) localGid ::ffff:{} remoteGids::ffff:{}",
                      p.nic_ip[k], 40000 + s.Rand(20000), status, n.nic_ip[k], p.nic_ip[k]);
  s.Train(node, rail, ts, GlogHeader('W', ts, "ProcessGroupNCCL.cpp:1585") + "NCCL transport error detected");
  s.NcclWarn(node, rail, ts, msg);
  s.NcclWarn(node, rail, ts,
             "transport/net_ib.cc:1919 NCCL WARN NET/IB : communicator encountered a fatal error (detected in ncclIbTest)");
}

void PeersLoseConnection(Scene& s, int dead, int count, bool socket_style) {
  std::set<int> chosen;
  while (static_cast<int>(chosen.size()) < std::min(count, s.Hosts() - 1)) chosen.insert(s.Other({dead}));
  for (int n : chosen) {
    const int g = s.Rand(s.Gpus());
    const double ts = s.At(0.2 + s.Jitter(1.5));
    if (socket_style) {
      s.Train(n, g, ts,
              GlogHeader('W', ts, "TCPStore.cpp:125") +
                  fmt::format("[c10d] recvValue failed on SocketImpl(fd=76, addr=[{}]:{}, remote=[{}]:29500): "
                              "Connection reset by peer",
                              s.N(n).host, 50000 + s.Rand(9000), s.N(dead).host));
      s.NcclWarn(n, g, ts, fmt::format("misc/socket.cc:50 NCCL WARN socketProgress: Connection closed by remote peer {}<{}>",
                                       s.N(dead).mgmt_ip, 40000 + s.Rand(20000)));
    } else {
      IbCompletionError(s, n, dead, g, ts);
    }
  }
}

void PythonTraceback(Scene& s, int node, int gpu, double t, const std::string& exception_line) {
  static const char* kFrames[] = {
      "  File \"/workspace/train.py\", line 512, in <module>", "    main()",
      "  File \"/workspace/train.py\", line 488, in main", "    loss = model(batch)",
      "  File \"/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py\", line 1518, in _wrapped_call_impl",
      "    return self._call_impl(*args, **kwargs)"};
  s.Train(node, gpu, t, PyLogTime(t) + "[ERROR] [train.py:412] training step failed");
  s.Train(node, gpu, t, "Traceback (most recent call last):");
  for (const char* f : kFrames) s.Train(node, gpu, t, f);
  s.Train(node, gpu, t, exception_line);
}

std::string CriticalXidLine(const GenNode& n, int gpu, int xid, int pid, int nvlink) {
  const std::string pci = PciShort(n.gpu_pci[static_cast<size_t>(gpu)]);
  switch (xid) {
    case 79: return fmt::format("NVRM: Xid (PCI:{}): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.", pci);
    case 48:
      return fmt::format("NVRM: Xid (PCI:{}): 48, pid={}, name=python, An uncorrectable double bit error (DBE) has been "
                         "detected on GPU in the framebuffer at partition 6, subpartition 0.",
                         pci, pid);
    case 95: return fmt::format("NVRM: Xid (PCI:{}): 95, pid={}, name=python, Uncontained: FBHUB. RST: Yes, D-RST: No", pci, pid);
    default:  // 74, 145: NVLink
      return fmt::format("NVRM: Xid (PCI:{}): {}, pid={}, name=python, NVLink: fatal error detected on link {}"
                         "(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)",
                         pci, xid, pid, nvlink);
  }
}

Drift DriftConfig(Scene& s) {
  Drift d;
  d.host = s.Rand(s.Hosts());
  json& facts = s.b.Node(d.host).facts;
  switch (s.Rand(5)) {
    case 0:
      d = {d.host, "nccl.version", "2.18.1", facts["nccl"]["version"].get<std::string>()};
      facts["nccl"]["version"] = d.value;
      break;
    case 1:
      d = {d.host, "env.NCCL_IB_GID_INDEX", "1", facts["env"]["NCCL_IB_GID_INDEX"].get<std::string>()};
      facts["env"]["NCCL_IB_GID_INDEX"] = d.value;
      break;
    case 2: {
      const std::string nic = fmt::format("mlx5_{}", s.Rand(s.Gpus()));
      d = {d.host, "nic." + nic + ".mtu", "1500", std::to_string(facts["nic"][nic]["mtu"].get<int>())};
      facts["nic"][nic]["mtu"] = 1500;
      break;
    }
    case 3:
      // Docker's default /dev/shm: NCCL's shared-memory transport needs far more.
      d = {d.host, "os.dev_shm_mb", "64", ">= 1024"};
      facts["os"]["dev_shm_mb"] = 64;
      break;
    default:
      d = {d.host, "gpu.driver_version", "535.183.01", facts["gpu"]["driver_version"].get<std::string>()};
      facts["gpu"]["driver_version"] = d.value;
  }
  s.Expect("repair", "config", "config_check");
  s.ExpectRepair({{"host", s.N(d.host).host}, {"component", "config"}, {"key", d.key}, {"value", d.value},
                  {"expected", d.expected}});
  return d;
}

}  // namespace aegis::gen
