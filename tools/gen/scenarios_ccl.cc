// The CCL probe's view: hangs told by launch and completion counters (a GPU stalled in
// compute, a NIC that drops traffic), slow jobs told by collective durations (the TD
// rule: the straggler arrives late, so its collectives are the shortest) and flow
// throughputs.
#include <fmt/format.h>

#include "gen/ccl_snapshots.h"
#include "gen/faults.h"
#include "gen/families.h"

namespace aegis::gen {

// A GPU stalls in compute: it never launches the next TP collective; its TP peers wait
// inside that one, the DP peers of its host wait inside theirs.
void InjectComputeHang(Scene& s) {
  const int hs = s.Rand(s.Hosts()), gs = s.Rand(s.Gpus());
  const uint64_t n = 200 + static_cast<uint64_t>(s.Rand(1000));
  WriteHangSnapshots(
      s, n,
      [&](int h, int g, char comm) {
        if (h == hs && g == gs) return CclCounts{n, n};  // stalled: nothing in flight
        if (comm == 't') return h == hs ? CclCounts{n + 1, n} : CclCounts{n + 1, n + 1};
        if (h == hs) return CclCounts{n, n};  // in TP, behind in DP/PP
        return CclCounts{n + 1, n};           // waiting in DP/PP
      },
      [&](int h, int, int peer_node, bool) { return h != hs && peer_node == hs; });
  WatchdogTimeouts(s);
  s.Expect("isolate", "hardware", "ccl_compute");
  s.ExpectIsolate(hs, "gpu", fmt::format("gpu{}", gs));
}

// One NIC drops traffic silently: on its rail, requests to and from it never complete.
void InjectCommHang(Scene& s) {
  const int hs = s.Rand(s.Hosts()), rail = s.Rand(s.Gpus());
  const uint64_t n = 200 + static_cast<uint64_t>(s.Rand(1000));
  WriteHangSnapshots(
      s, n,
      [&](int, int g, char comm) {
        if (comm == 't') return g == rail ? CclCounts{n + 1, n + 1} : CclCounts{n + 2, n + 1};
        return g == rail && comm == 'd' ? CclCounts{n + 1, n} : CclCounts{n + 1, n + 1};
      },
      [&](int h, int g, int peer_node, bool) { return g == rail && (h == hs || peer_node == hs) && h != peer_node; });
  WatchdogTimeouts(s);
  s.Expect("isolate", "hardware", "ccl_comm");
  s.ExpectIsolate(hs, "nic", fmt::format("mlx5_{}", rail));
}

// One GPU computes 30% slower: in its host's TP collectives it arrives last and waits
// least; its host then arrives late in every DP ring.
void InjectComputeStraggler(Scene& s) {
  const int hs = s.Rand(s.Hosts()), gs = s.Rand(s.Gpus());
  WriteSlowSnapshots(
      s,
      [&](int h, int g, char comm, uint64_t) {
        if (h != hs) return comm == 'd' ? 1.1 : 1.0;  // DP peers wait a little for the late host
        if (comm == 't') return g == gs ? 0.3 : 1.3;
        return 0.4;  // the late host's ranks wait least in DP
      },
      [&](int, int, char, int) { return 24.0; });
  s.Expect("isolate", "hardware", "ccl_degradation");
  s.ExpectIsolate(hs, "gpu", fmt::format("gpu{}", gs));
}

// The same straggler, but its GPU also sits in a second communicator that is healthy: the
// DP ring's collectives last as long on every member, give or take noise, and the
// straggler's happen to come out about 1% above that ring's mean. That is noise, not
// waiting: the TD rule's finding in TP stands.
void InjectNoisyStraggler(Scene& s) {
  const int hs = s.Rand(s.Hosts()), gs = s.Rand(s.Gpus());
  const double ratio = 1.005 + s.Jitter(0.015);
  auto healthy = [](int h, int g) { return 1.0 + static_cast<double>((h * 7 + g * 3) % 5 - 2) * 0.005; };
  double ring_mean = 0;  // the other members of the straggler's DP ring
  for (int h = 0; h < s.Hosts(); ++h)
    if (h != hs) ring_mean += healthy(h, gs) / (s.Hosts() - 1);
  WriteSlowSnapshots(
      s,
      [&](int h, int g, char comm, uint64_t) {
        if (comm == 't') return h != hs ? 1.0 : g == gs ? 0.3 : 1.3;
        return h == hs && g == gs ? ratio * ring_mean : healthy(h, g);
      },
      [&](int, int, char, int) { return 24.0; });
  s.Variant(fmt::format("straggler at {:.3f} x its DP ring's mean", ratio));
  s.Expect("isolate", "hardware", "ccl_degradation");
  s.ExpectIsolate(hs, "gpu", fmt::format("gpu{}", gs));
}

// One NIC delivers a third of its bandwidth (a degraded link or optic).
void InjectDegradedNic(Scene& s) {
  const int hs = s.Rand(s.Hosts()), rail = s.Rand(s.Gpus());
  WriteSlowSnapshots(
      s, [&](int, int, char, uint64_t) { return 1.0; },
      [&](int h, int g, char comm, int to) {
        const bool through = comm == 'd' && g == rail && (h == hs || to == hs);
        return (through ? 8.0 : 24.0) + static_cast<double>((h * 7 + g) % 10) / 10.0;
      });
  s.Expect("isolate", "hardware", "ccl_degradation");
  s.ExpectIsolate(hs, "nic", fmt::format("mlx5_{}", rail));
}

}  // namespace aegis::gen
