// The node's facts for ConfigCheck (`--facts auto`), in the facts.json vocabulary of
// docs/formats.md and rules/checks/config.yaml, read from what the node shows:
//   gpu.count / driver_version / persistence_mode / ecc_mode   NVML, else PROC/driver/nvidia
//   cuda.version                     NVML (the driver's CUDA version)
//   nccl.version                     the libnccl.so.X.Y.Z mapped by the training process
//   env.NCCL_*                       /proc/PID/environ of the training process: the process
//                                    with the most NCCL_ variables (lowest pid on a tie)
//   nic.count, nic.<dev>.state / link_layer / fw_version / mtu
//                                    SYS/class/infiniband (port 1; mtu of its netdev); with
//                                    no RDMA device, the physical SYS/class/net interfaces
//   pcie.acs_enabled                 PCI bridges' ACS control (SYS/bus/pci/devices/*/config,
//                                    readable in full only as root): true when any bridge
//                                    has Source Validation, P2P Request Redirect or P2P
//                                    Completion Redirect on, as `lspci -vvv` shows them in
//                                    ACSCtl (SrcValid+, ReqRedir+, CmpltRedir+)
//   os.kernel                        PROC/sys/kernel/osrelease
//   os.memlock                       soft RLIMIT_MEMLOCK of the training process (else the
//                                    agent's): "unlimited", or KiB as `ulimit -l` prints it
//   os.dev_shm_mb                    size of /dev/shm (statvfs), MiB
// A piece that cannot be read is simply absent. Roots are parameters so that tests use
// a fake tree. Thread-safe.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "agent/agent_config.h"
#include "agent/sources/node_sampler/gpu_reader.h"

namespace aegis::agent {

nlohmann::json CollectFacts(const FactsRoots& roots, GpuReader* gpu);

// Pieces, exposed for tests and fuzzing.
// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15  Tue ..." -> "570.86.15".
std::string DriverVersionFromProc(std::string_view text);
// The soft "Max locked memory" of a /proc/PID/limits text: "unlimited" or KiB.
std::string MemlockFromLimits(std::string_view text);
// ACS state of one PCI function's configuration space: nullopt when it is no bridge, the
// extended space is not readable, or it has no ACS capability.
std::optional<bool> AcsEnabledFromConfig(std::string_view config);
// "…/libnccl.so.2.21.5" in a /proc/PID/maps text -> "2.21.5".
std::string NcclVersionFromMaps(std::string_view maps);

}  // namespace aegis::agent
