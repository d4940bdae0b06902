// The NCCL job of tools/gpu-check.sh: one process, every visible GPU one rank of one
// communicator (ncclCommInitAll). For each message size: WARMUP then ITERS operations,
// timed with CUDA events on rank 0's stream after a device-wide sync, and one JSON line:
//   {"op", "bytes", "ranks", "iters", "us", "algbw_gbs", "busbw_gbs"}
// The operation is an all-reduce across the ranks (bus bandwidth = algorithm bandwidth x
// 2(n-1)/n, as nccl-tests count it). With one GPU NCCL copies a one-rank all-reduce without
// launching a collective, so nothing would reach the profiler; the check then runs a
// send/receive of the rank to itself instead (bus bandwidth = algorithm bandwidth), which
// NCCL does run as a p2p kernel with profiler events. A last line sums what was issued:
//   {"summary": true, "ranks", "op", "func", "per_rank": N}
// Usage: allreduce [ITERS=50] [WARMUP=5] [MAX_BYTES=268435456]
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(x)                                                                         \
  do {                                                                                        \
    cudaError_t err_ = (x);                                                                   \
    if (err_ != cudaSuccess) {                                                                \
      std::fprintf(stderr, "CUDA %s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)
#define CHECK_NCCL(x)                                                                         \
  do {                                                                                        \
    ncclResult_t res_ = (x);                                                                  \
    if (res_ != ncclSuccess) {                                                                \
      std::fprintf(stderr, "NCCL %s:%d: %s\n", __FILE__, __LINE__, ncclGetErrorString(res_)); \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)

namespace {

struct Rank {
  ncclComm_t comm;
  float *send, *recv;
  cudaStream_t stream;
};

// One operation on every rank, as one NCCL group.
int Issue(std::vector<Rank>& ranks, size_t count, bool self_p2p) {
  CHECK_NCCL(ncclGroupStart());
  for (auto& r : ranks) {
    if (self_p2p) {
      CHECK_NCCL(ncclSend(r.send, count, ncclFloat, 0, r.comm, r.stream));
      CHECK_NCCL(ncclRecv(r.recv, count, ncclFloat, 0, r.comm, r.stream));
    } else {
      CHECK_NCCL(ncclAllReduce(r.send, r.recv, count, ncclFloat, ncclSum, r.comm, r.stream));
    }
  }
  CHECK_NCCL(ncclGroupEnd());
  return 0;
}

int SyncAll(std::vector<Rank>& ranks) {
  for (size_t i = 0; i < ranks.size(); ++i) {
    CHECK_CUDA(cudaSetDevice(static_cast<int>(i)));
    CHECK_CUDA(cudaStreamSynchronize(ranks[i].stream));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int iters = argc > 1 ? std::atoi(argv[1]) : 50;
  const int warmup = argc > 2 ? std::atoi(argv[2]) : 5;
  const size_t max_bytes = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : (256ull << 20);
  int ndev = 0;
  CHECK_CUDA(cudaGetDeviceCount(&ndev));
  if (ndev < 1 || iters < 1 || warmup < 0) return 1;
  const bool self_p2p = ndev == 1;
  std::vector<ncclComm_t> comms(ndev);
  std::vector<int> devs(ndev);
  for (int i = 0; i < ndev; ++i) devs[i] = i;
  CHECK_NCCL(ncclCommInitAll(comms.data(), ndev, devs.data()));
  std::vector<Rank> ranks(ndev);
  for (int i = 0; i < ndev; ++i) {
    CHECK_CUDA(cudaSetDevice(i));
    ranks[i].comm = comms[i];
    CHECK_CUDA(cudaMalloc(&ranks[i].send, max_bytes));
    CHECK_CUDA(cudaMalloc(&ranks[i].recv, max_bytes));
    CHECK_CUDA(cudaMemset(ranks[i].send, 0, max_bytes));
    CHECK_CUDA(cudaStreamCreateWithFlags(&ranks[i].stream, cudaStreamNonBlocking));
  }
  CHECK_CUDA(cudaSetDevice(0));
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  const char* op = self_p2p ? "sendrecv_self" : "allreduce";
  long long per_rank = 0;
  for (size_t bytes = 8; bytes <= max_bytes; bytes *= 8) {
    const size_t count = bytes / sizeof(float) ? bytes / sizeof(float) : 1;
    for (int w = 0; w < warmup; ++w)
      if (Issue(ranks, count, self_p2p)) return 1;
    if (SyncAll(ranks)) return 1;
    CHECK_CUDA(cudaSetDevice(0));
    CHECK_CUDA(cudaEventRecord(start, ranks[0].stream));
    for (int it = 0; it < iters; ++it)
      if (Issue(ranks, count, self_p2p)) return 1;
    CHECK_CUDA(cudaSetDevice(0));
    CHECK_CUDA(cudaEventRecord(stop, ranks[0].stream));
    if (SyncAll(ranks)) return 1;
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    per_rank += warmup + iters;
    const double us = 1000.0 * ms / iters, real_bytes = static_cast<double>(count * sizeof(float));
    const double algbw = real_bytes / (us * 1e-6) / 1e9;
    const double busbw = self_p2p ? algbw : algbw * 2.0 * (ndev - 1) / ndev;
    std::printf("{\"op\": \"%s\", \"bytes\": %.0f, \"ranks\": %d, \"iters\": %d, \"us\": %.3f, \"algbw_gbs\": %.3f, "
                "\"busbw_gbs\": %.3f}\n",
                op, real_bytes, ndev, iters, us, algbw, busbw);
    std::fflush(stdout);
  }
  // Self p2p: each operation is one Send and one Recv on the rank.
  std::printf("{\"summary\": true, \"ranks\": %d, \"op\": \"%s\", \"funcs\": %s, \"per_rank\": %lld}\n", ndev, op,
              self_p2p ? "[\"Send\", \"Recv\"]" : "[\"AllReduce\"]", per_rank);
  for (auto& r : ranks) {
    CHECK_NCCL(ncclCommDestroy(r.comm));  // finalizes the profiler contexts: final snapshots
    cudaFree(r.send);
    cudaFree(r.recv);
  }
  return 0;
}
