// Scenario generator, the CCL probe's snapshots (the ccl-snapshot spec) of a synthetic job:
// every GPU is one process with a TP communicator (the GPUs of its host), a DP ring (its
// GPU index across all hosts, over its rail) and, for hangs, a PP ring (its index on a
// group of 4 hosts). Hangs are told by counters, slow jobs by durations and throughputs.
#pragma once
#include <cstdint>
#include <functional>

#include "gen/scene.h"

namespace aegis::gen {

struct CclCounts {
  uint64_t launched = 0, completed = 0;
};

// Three periodic snapshots up to the hang: counts(node, gpu, comm 't'/'d'/'p') at the
// hang; stuck(node, gpu, peer_node, send) is true when that ring transfer is posted and
// never completes. `iters` collectives completed normally before.
void WriteHangSnapshots(Scene& s, uint64_t iters, const std::function<CclCounts(int, int, char)>& counts,
                        const std::function<bool(int, int, int, bool)>& stuck);

// One snapshot of a slow job: td(node, gpu, comm, seq) is the duration factor of one
// collective on one GPU (1: normal); gbps(node, gpu, comm, to_node) the recent send
// throughput of a ring flow.
void WriteSlowSnapshots(Scene& s, const std::function<double(int, int, char, uint64_t)>& td,
                        const std::function<double(int, int, char, int)>& gbps);

}  // namespace aegis::gen
