// Scenario generator, the pieces several scenarios share: how the rest of a job reacts to
// a fault (connection errors naming the dead peer, every rank's watchdog timeout), the
// critical Xid lines, a Python traceback. Each prints what the real software prints.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "gen/scene.h"

namespace aegis::gen {

// Every rank of the job (but those on `except`) times out in the collective it was in,
// one collective timeout after the fault.
void WatchdogTimeouts(Scene& s, const std::set<int>& except = {});

// An IB completion error printed by (node, rail) about its connection to (peer, rail),
// after the timestamped warning PyTorch prints when it notices.
void IbCompletionError(Scene& s, int node, int peer, int rail, double ts, int status = 12);

// Up to `count` other hosts lose their connection to `dead` just after the fault: socket
// resets naming its host, or IB completion errors naming its NIC.
void PeersLoseConnection(Scene& s, int dead, int count, bool socket_style);

// One host's configuration drifts from the others' (by seed: its NCCL version, RoCE GID
// index, one NIC's MTU, /dev/shm size or GPU driver), written into its facts; records the
// repair a correct diagnosis names (host, key, what it has and what the others have).
struct Drift {
  int host = -1;
  std::string key, value, expected;
};
Drift DriftConfig(Scene& s);

// A Python exception of the job's own code on rank (node, gpu) at `t`.
void PythonTraceback(Scene& s, int node, int gpu, double t, const std::string& exception_line);

// The kernel line of a critical Xid (79, 48, 95, 74 or 145) on `gpu` of `node`, as the
// driver prints it for a process `pid`.
std::string CriticalXidLine(const GenNode& n, int gpu, int xid, int pid, int nvlink = 3);

}  // namespace aegis::gen
