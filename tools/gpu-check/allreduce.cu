// A minimal NCCL job for tools/gpu-check.sh: one process, every visible GPU one rank of a
// communicator (ncclCommInitAll), ITERS all-reduces of 1 MiB, then a clean destroy.
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(x)                                                                 \
  do {                                                                                \
    cudaError_t e = (x);                                                              \
    if (e != cudaSuccess) {                                                           \
      std::fprintf(stderr, "CUDA %s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      return 1;                                                                       \
    }                                                                                 \
  } while (0)
#define CHECK_NCCL(x)                                                                 \
  do {                                                                                \
    ncclResult_t r = (x);                                                             \
    if (r != ncclSuccess) {                                                           \
      std::fprintf(stderr, "NCCL %s:%d: %s\n", __FILE__, __LINE__, ncclGetErrorString(r)); \
      return 1;                                                                       \
    }                                                                                 \
  } while (0)

int main(int argc, char** argv) {
  const int iters = argc > 1 ? std::atoi(argv[1]) : 50;
  int ndev = 0;
  CHECK_CUDA(cudaGetDeviceCount(&ndev));
  if (ndev < 1) return 1;
  const size_t count = (1 << 20) / sizeof(float);
  std::vector<ncclComm_t> comms(ndev);
  std::vector<int> devs(ndev);
  for (int i = 0; i < ndev; ++i) devs[i] = i;
  CHECK_NCCL(ncclCommInitAll(comms.data(), ndev, devs.data()));
  std::vector<float*> buf(ndev);
  std::vector<cudaStream_t> streams(ndev);
  for (int i = 0; i < ndev; ++i) {
    CHECK_CUDA(cudaSetDevice(i));
    CHECK_CUDA(cudaMalloc(&buf[i], count * sizeof(float)));
    CHECK_CUDA(cudaMemset(buf[i], 0, count * sizeof(float)));
    CHECK_CUDA(cudaStreamCreate(&streams[i]));
  }
  for (int it = 0; it < iters; ++it) {
    CHECK_NCCL(ncclGroupStart());
    for (int i = 0; i < ndev; ++i)
      CHECK_NCCL(ncclAllReduce(buf[i], buf[i], count, ncclFloat, ncclSum, comms[i], streams[i]));
    CHECK_NCCL(ncclGroupEnd());
  }
  for (int i = 0; i < ndev; ++i) {
    CHECK_CUDA(cudaSetDevice(i));
    CHECK_CUDA(cudaStreamSynchronize(streams[i]));
  }
  for (int i = 0; i < ndev; ++i) ncclCommDestroy(comms[i]);
  std::printf("allreduce: %d GPU(s), %d iterations of 1 MiB\n", ndev, iters);
  return 0;
}
