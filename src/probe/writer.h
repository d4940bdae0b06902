// Snapshot output of the CCL probe: a background thread writes every registered
// communicator's counters as JSON Lines (spec ccl-snapshot.md) every AEGIS_CCL_INTERVAL_MS
// (default 1000), on the opt-in signal AEGIS_CCL_SIGNAL (e.g. USR1; a previous handler is
// chained) and at finalize, to AEGIS_CCL_DIR/<host>-<pid>.jsonl (default dir
// /tmp/aegis-ccl; rotated to .1 past AEGIS_CCL_MAX_MB, default 64, or AEGIS_CCL_MAX_KB)
// and, one datagram
// per record, to the Unix socket AEGIS_CCL_SOCKET (default /run/aegis/ccl.sock) that the
// node agent reads. NCCL's threads never wait on it; a missing directory, a full disk
// or no listener degrade to one warning through NCCL's logger. A communicator whose
// identity NCCL has not given yet (NCCL < 2.27, before its first collective) is skipped.
// The thread is named "aegis-ccl"; after each snapshot every (peer, direction) times its
// next request (CommState::RestartSampling, comm_state.h).
#pragma once
#include <string>

#include "probe/comm_state.h"
#include "probe/nccl_profiler_abi.h"

namespace aegis::probe {

class Writer {
 public:
  static Writer& Get();
  void SetLogger(abi::Logger logger);
  void Register(CommState* comm);
  // Writes the communicator's final snapshot now and stops reporting it.
  void Finalize(CommState* comm);
  // Writes every live communicator now (tests, signal).
  void SnapshotAll();
  const std::string& host() const { return host_; }

 private:
  Writer();
  struct Impl;
  Impl* impl_;
  std::string host_;
};

}  // namespace aegis::probe
