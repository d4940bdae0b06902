// Distributed errors: connection errors name remote endpoints; two hosts that accuse each
// other are a pair, many edges through one NIC are its root; a hang with nothing but
// timeouts goes to offline diagnosis.
#include <fmt/format.h>

#include <vector>

#include "gen/faults.h"
#include "gen/families.h"

namespace aegis::gen {

namespace {

// The root's NIC on one rail breaks: every connection to it fails.
void RootDiag(Scene& s, bool drop_root) {
  const int r = s.Rand(s.Hosts()), rail = s.Rand(s.Gpus());
  std::set<int> chosen;
  while (static_cast<int>(chosen.size()) < std::min(6, s.Hosts() - 1)) chosen.insert(s.Other({r}));
  for (int p : chosen) {
    IbCompletionError(s, p, r, rail, s.At(0.5 + s.Jitter(2)));
    IbCompletionError(s, r, p, rail, s.At(s.Jitter(0.5)));
  }
  // Later, as ranks abort, connections between healthy peers break too (noise edges).
  std::vector<int> v(chosen.begin(), chosen.end());
  if (v.size() >= 2) IbCompletionError(s, v[0], v[1], rail, s.At(30), 5);
  WatchdogTimeouts(s);
  if (drop_root) s.b.Node(r).has_folder = false;
  s.Expect("isolate", "hardware", "root_diag");
  s.ExpectIsolate(r, "nic", fmt::format("mlx5_{}", rail));
}

}  // namespace

void InjectPair(Scene& s) {
  const int a = s.Rand(s.Hosts()), c = s.Other({a}), rail = s.Rand(s.Gpus());
  IbCompletionError(s, a, c, rail, s.At(s.Jitter(0.5)));
  IbCompletionError(s, c, a, rail, s.At(s.Jitter(0.5)));
  WatchdogTimeouts(s);
  s.Expect("isolate", "network", "dist_pair");
  s.ExpectIsolate(a, "nic", fmt::format("mlx5_{}", rail));
  s.ExpectIsolate(c, "nic", fmt::format("mlx5_{}", rail));
}

void InjectRootDiag(Scene& s) { RootDiag(s, false); }
void InjectRootDiagMissing(Scene& s) { RootDiag(s, true); }

void InjectNoSignal(Scene& s) {
  WatchdogTimeouts(s);
  s.Expect("offline", "unknown", "offline");
  s.b.expected["offline_all"] = true;
}

}  // namespace aegis::gen
