// Critical hardware errors: a line on the faulty host proves it bad; the other ranks lose
// its process and time out.
#include <fmt/format.h>

#include "gen/faults.h"
#include "gen/families.h"

namespace aegis::gen {

namespace {

enum class GpuFault { kFallenOffBus, kDbe, kNvlink, kPcieFatal };

void GpuCritical(Scene& s, GpuFault kind) {
  const int v = s.Rand(s.Hosts()), g = s.Rand(s.Gpus());
  const double t = s.At(0);
  const GenNode& n = s.N(v);
  const std::string pci = PciShort(n.gpu_pci[static_cast<size_t>(g)]);
  const std::string& full_pci = n.gpu_pci[static_cast<size_t>(g)];
  const int pid = kPidBase + g;
  std::string component = "gpu";
  switch (kind) {
    case GpuFault::kFallenOffBus:
      s.Kernel(v, t, fmt::format("NVRM: GPU at PCI:{}: GPU-{:08x}-1b53-9938-c9ed209a3513", pci, static_cast<uint32_t>(s.rng())));
      s.Kernel(v, t, CriticalXidLine(n, g, 79, pid));
      s.Kernel(v, s.At(0.001), fmt::format("NVRM: GPU {}: GPU has fallen off the bus.", full_pci));
      s.Train(v, g, s.At(0.5), "RuntimeError: CUDA error: unknown error");
      break;
    case GpuFault::kDbe:
      s.Kernel(v, t, CriticalXidLine(n, g, s.Coin() ? 48 : 95, pid));
      s.Train(v, g, s.At(0.2), "RuntimeError: CUDA error: uncorrectable ECC error encountered");
      break;
    case GpuFault::kNvlink: {
      component = "nvlink";
      const int xid = s.Coin() ? 74 : 145;
      s.Kernel(v, t, CriticalXidLine(n, g, xid, pid, s.Rand(18)));
      break;
    }
    case GpuFault::kPcieFatal:
      component = "pcie";
      s.Kernel(v, t, fmt::format("pcieport 0000:16:02.0: AER: Uncorrected (Fatal) error received: {}.0", pci));
      s.Kernel(v, t, fmt::format("nvidia {}: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, "
                                 "(Receiver ID)",
                                 full_pci));
      s.Kernel(v, t, fmt::format("nvidia {}:   device [10de:2330] error status/mask=00004000/00000000", full_pci));
      s.Kernel(v, t, fmt::format("nvidia {}:    [14] CmpltTO                (First)", full_pci));
      s.Kernel(v, s.At(0.1), CriticalXidLine(n, g, 79, pid));
      break;
  }
  // The other ranks lose the dead GPU's process: connection errors naming this host, then timeouts.
  PeersLoseConnection(s, v, 4, true);
  WatchdogTimeouts(s, {v});
  s.Expect("isolate", "hardware", "critical_error");
  s.ExpectIsolate(v, component, fmt::format("gpu{}", g));
}

}  // namespace

void InjectXid79(Scene& s) { GpuCritical(s, GpuFault::kFallenOffBus); }
void InjectDbe(Scene& s) { GpuCritical(s, GpuFault::kDbe); }
void InjectNvlink(Scene& s) { GpuCritical(s, GpuFault::kNvlink); }
void InjectPcieFatal(Scene& s) { GpuCritical(s, GpuFault::kPcieFatal); }

void InjectNicDown(Scene& s) {
  const int v = s.Rand(s.Hosts()), rail = s.Rand(s.Gpus());
  s.Kernel(v, s.At(0), fmt::format("mlx5_core 0000:{:02x}:00.0 ens{}f0np0: Link down", 0x0c + rail * 0x10, rail + 1));
  s.NcclWarn(v, rail, s.At(0.3),
             fmt::format("transport/net_ib.cc:131 NCCL WARN NET/IB : mlx5_{}:1 Got async event : port error", rail));
  for (int k = 0; k < 4; ++k) {
    const int peer = s.Other({v});
    IbCompletionError(s, peer, v, rail, s.At(1 + s.Jitter(1)));
  }
  WatchdogTimeouts(s);
  s.Expect("isolate", "hardware", "critical_error");
  s.ExpectIsolate(v, "nic", fmt::format("mlx5_{}", rail));
}

}  // namespace aegis::gen
