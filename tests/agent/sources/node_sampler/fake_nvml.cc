// A stand-in for libnvidia-ml.so.1 with the entry points the agent reads, for the
// agent's NVML tests on machines without a GPU: two GPUs with fixed readings; the
// uncorrected-ECC reading is "not supported" (NVML_ERROR_NOT_SUPPORTED = 3). With
// FAKE_NVML_FAIL_INIT set, nvmlInit_v2 fails as with no driver loaded (9).
#include <cstdint>
#include <cstdlib>
#include <cstring>

extern "C" {

typedef struct nvmlDevice_st* nvmlDevice_t;
struct nvmlUtilization_t {
  unsigned int gpu, memory;
};

static unsigned Index(nvmlDevice_t d) { return static_cast<unsigned>(reinterpret_cast<uintptr_t>(d) - 1); }

__attribute__((visibility("default"))) int nvmlInit_v2() { return std::getenv("FAKE_NVML_FAIL_INIT") ? 9 : 0; }
__attribute__((visibility("default"))) int nvmlShutdown() { return 0; }
__attribute__((visibility("default"))) int nvmlDeviceGetCount_v2(unsigned int* n) {
  *n = 2;
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t* d) {
  if (i >= 2) return 2;
  *d = reinterpret_cast<nvmlDevice_t>(static_cast<uintptr_t>(i) + 1);
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned int* t) {
  if (sensor != 0) return 2;
  *t = 60 + Index(d);
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetClockInfo(nvmlDevice_t, int type, unsigned int* mhz) {
  *mhz = type == 1 ? 1980 : 1000;
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetPowerUsage(nvmlDevice_t, unsigned int* mw) {
  *mw = 350500;
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetUtilizationRates(nvmlDevice_t, nvmlUtilization_t* u) {
  u->gpu = 90;
  u->memory = 40;
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetPcieReplayCounter(nvmlDevice_t d, unsigned int* v) {
  *v = Index(d) * 3;
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetTotalEccErrors(nvmlDevice_t, int type, int, unsigned long long* v) {
  if (type != 0) return 3;
  *v = 5;
  return 0;
}
__attribute__((visibility("default"))) int nvmlSystemGetDriverVersion(char* out, unsigned int len) {
  std::strncpy(out, "570.86.15", len);
  return 0;
}
__attribute__((visibility("default"))) int nvmlSystemGetCudaDriverVersion_v2(int* v) {
  *v = 12080;
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetPersistenceMode(nvmlDevice_t, int* mode) {
  *mode = 1;
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetEccMode(nvmlDevice_t d, int* current, int* pending) {
  *current = Index(d) == 0 ? 1 : 0;  // one GPU with ECC off
  *pending = *current;
  return 0;
}
}
