// NCCL start-up check: the configuration NCCL reveals in its own log lines at start-up,
// compared with the host's facts and across the job's hosts. It reads only the named
// fields the log rules extract (rules/logs/nccl.yaml), never the text of a line:
//   socket_if / socket_addr   the interface NCCL bootstraps or sends on (loopback, the
//                             docker default bridge or a link-local address)
//   env / value               an NCCL_* setting taken from the environment
//   ib_fallback               "NET/IB : No device found": no RDMA device for NCCL
//   local_gid                 the RoCE GID of a failed connection
//   nccl_version              the version a process prints with an error (the bare
//                             start-up banner is a class-none fact, which incidents do
//                             not keep)
// Findings (each names the facts key an operator repairs):
//   env.NCCL_SOCKET_IFNAME    a job of several hosts whose NCCL uses an interface other
//                             hosts cannot reach
//   env.NCCL_IB_HCA           NCCL fell back to sockets on a host whose facts list RDMA
//                             NICs, or NCCL_IB_HCA names devices the host lacks
//   env.NCCL_IB_GID_INDEX     a RoCE GID that is link-local (does not route)
//   nccl.version              hosts whose NCCL version lines differ from the others'
// Only events of the job's hosts on its time window count. Pure function of the incident.
#pragma once
#include <vector>

#include "engine/incident.h"
#include "engine/stages.h"

namespace aegis {

std::vector<ConfigFinding> RunNcclStartupCheck(const Incident& inc);

}  // namespace aegis
