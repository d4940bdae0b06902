// The logs the scanning benchmarks read: the generator's noise (NCCL INFO and training
// progress for a job log; NVRM, mlx5, PCIe and systemd chatter for a kernel log) with the
// occasional hint, as a healthy job's logs look. Fixed seeds: every run scans the same bytes.
#pragma once
#include <random>
#include <string>

#include "gen/cluster.h"
#include "gen/faults.h"

namespace aegis::bench {

inline std::string NoiseLog(bool kernel, size_t bytes) {
  gen::Cluster c = gen::MakeCluster(4, 8, 42);
  std::mt19937_64 rng(7);
  gen::LogFile f;
  if (kernel) gen::KernelNoise(c, 1, rng, f, bytes, true);
  else gen::TrainNoise(c, 1, rng, f, bytes);
  return f.Render();
}

// A log storm as the storm bundle of `make bench` holds it: one GPU's Xid 95 repeated
// (journal times, a few hundred a second) for a kernel log; for a job log its chatter with
// NCCL's "NCCL_IB_TIMEOUT set by environment" INFO line as every 19th line, on random ranks.
inline std::string StormLog(bool kernel, size_t bytes) {
  gen::Cluster c = gen::MakeCluster(4, 8, 42);
  const gen::GenNode& n = c.nodes[1];
  std::mt19937_64 rng(7);
  gen::LogFile f;
  if (kernel) {
    const std::string msg = gen::CriticalXidLine(n, 3, 95, 13619);
    size_t written = 0;
    for (double t = c.start; written < bytes; t += 0.0045) {
      std::string line = gen::KernelLine(n, t, msg, 3);
      written += line.size() + 1;
      f.Add(t, std::move(line));
    }
    return f.Render();
  }
  gen::TrainNoise(c, 1, rng, f, bytes);
  std::string out;
  size_t k = 0;
  for (const auto& line : f.Sorted()) {
    out += line.text;
    out += '\n';
    if (++k % 18 == 0) {
      const int gpu = static_cast<int>(rng() % 8);
      out += gen::TrainLine(n, c.Rank(1, gpu), line.ts, gen::NcclHeader(n, gpu, 41000 + gpu) +
                                                   "NCCL INFO NCCL_IB_TIMEOUT set by environment to 22.");
      out += '\n';
    }
  }
  return out;
}

}  // namespace aegis::bench
