// Scenario generator, log storms: one line printed hundreds of thousands of times, as real
// clusters print them (NCCL repeating an environment setting at every communicator it
// creates; a GPU reporting the same Xid over and over). Added to a scenario's bundle after
// it is built, so that the scenario's fault and its expected verdict stay as they are:
// the NCCL line is a hint on every rank of the job, and the Xid storm is history (two days
// before the job, in a zoned time) on a host the scenario left healthy.
#pragma once
#include <cstddef>
#include <cstdint>

#include "gen/bundle.h"

namespace aegis::gen {

struct StormOptions {
  // "NCCL INFO NCCL_IB_TIMEOUT set by environment to 22." this many times in all, spread
  // over every host's training log (random ranks, between the job's start and the fault).
  size_t hint_lines = 0;
  // "NVRM: Xid (...): 95, ..." of one GPU this many times, identical but for their times, in
  // the kernel log of one healthy host, over the hour two days before the job.
  size_t xid_lines = 0;
};

// Adds the storms to `b` and says what was added in expected.json's "storm" (readers of
// the verdict part ignore it). Deterministic for `seed`. Throws std::invalid_argument when
// no host can take the Xid storm (every host is part of the scenario's verdict).
void AddStorms(Bundle& b, const StormOptions& options, uint64_t seed);

}  // namespace aegis::gen
