// The one way this code base runs work on several cores: ParallelFor runs work(i) for
// every i in [0, n) on up to `threads` threads (0: one per core), the calling thread
// being one of them. make() builds each thread's worker (a callable taking i), which owns
// what must not be shared between threads (a scanner, a parser). Items are handed out one
// at a time, so callers order them largest first to keep every core busy to the end.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace aegis {

inline int ThreadsOrCores(int threads) {
  return threads > 0 ? threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

template <typename MakeWorker>
void ParallelFor(size_t n, int threads, MakeWorker make) {
  if (n == 0) return;
  std::atomic<size_t> next{0};
  auto body = [&] {
    auto work = make();
    for (size_t i = next++; i < n; i = next++) work(i);
  };
  const int t = std::max(1, std::min<int>(ThreadsOrCores(threads), static_cast<int>(std::min<size_t>(n, 1024))));
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(t - 1));
  for (int k = 1; k < t; ++k) pool.emplace_back(body);
  body();
  for (auto& th : pool) th.join();
}

}  // namespace aegis
