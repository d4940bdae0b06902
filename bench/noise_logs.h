// The logs the scanning benchmarks read: the generator's noise (NCCL INFO and training
// progress for a job log; NVRM, mlx5, PCIe and systemd chatter for a kernel log) with the
// occasional hint, as a healthy job's logs look. Fixed seeds: every run scans the same bytes.
#pragma once
#include <random>
#include <string>

#include "gen/cluster.h"

namespace aegis::bench {

inline std::string NoiseLog(bool kernel, size_t bytes) {
  gen::Cluster c = gen::MakeCluster(4, 8, 42);
  std::mt19937_64 rng(7);
  gen::LogFile f;
  if (kernel) gen::KernelNoise(c, 1, rng, f, bytes, true);
  else gen::TrainNoise(c, 1, rng, f, bytes);
  return f.Render();
}

}  // namespace aegis::bench
