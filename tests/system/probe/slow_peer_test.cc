// A slow peer, as the plugin sees it on the real clock (its step times come from the
// CPU's clock, and the slow rank's fake NCCL really takes 3 ms per send step): the slow
// rank's recent throughput is far below the others'.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "probe/fake_nccl.h"
#include "probe/probe_fixture.h"

namespace aegis {
namespace {

using test::Probe;
using test::Ring;

TEST_F(Probe, SlowPeerHasLowRecentThroughput) {
  const int n = 8, slow = 3;
  auto comm = nccl_->InitComm(0x3333ull, "dp", n, 8);
  for (int it = 0; it < 6; ++it)
    for (const auto& r : comm) {
      auto plan = Ring(r.rank, n);
      plan.steps = 2;
      if (r.rank == slow)
        plan.step = [](int, bool send) {
          test::FakeNccl::Step step;
          if (send) step.in_flight = [] { std::this_thread::sleep_for(std::chrono::milliseconds(3)); };  // 3 ms per MiB
          return step;
        };
      nccl_->Collective(r, static_cast<uint64_t>(it), plan);
    }
  nccl_->Drain();
  for (const auto& r : comm) nccl_->Finalize(r);
  auto recs = Records(0x3333ull);
  std::vector<double> others;
  double slow_gbps = 0;
  for (const auto& [rank, rec] : recs) {
    const double g = Net(rec, (rank + 1) % n, "send")["recent_gbps"];
    if (rank == slow) slow_gbps = g;
    else others.push_back(g);
  }
  std::sort(others.begin(), others.end());
  ASSERT_GT(slow_gbps, 0);
  EXPECT_LT(slow_gbps * 10, others[others.size() / 2]);  // 3 ms per MiB: far below the rest
}

}  // namespace
}  // namespace aegis
