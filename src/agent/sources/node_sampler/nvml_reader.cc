// NVML through dlopen: the few entry points the agent reads, declared here with the
// types of NVML's C API (every handle an opaque pointer, every enum an int), so that no
// NVIDIA header or library is needed to build.
#include <dlfcn.h>

#include <cstdio>
#include <map>
#include <mutex>

#include "agent/sources/node_sampler/gpu_reader.h"

namespace aegis::agent {

namespace {

using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr int kTemperatureGpu = 0;        // NVML_TEMPERATURE_GPU
constexpr int kClockSm = 1;               // NVML_CLOCK_SM
constexpr int kEccCorrected = 0;          // NVML_MEMORY_ERROR_TYPE_CORRECTED
constexpr int kEccUncorrected = 1;        // NVML_MEMORY_ERROR_TYPE_UNCORRECTED
constexpr int kVolatileEcc = 0;           // NVML_VOLATILE_ECC
constexpr int kFeatureEnabled = 1;        // NVML_FEATURE_ENABLED
struct NvmlUtilization {
  unsigned int gpu, memory;
};

struct NvmlApi {
  nvmlReturn_t (*Init)();
  nvmlReturn_t (*Shutdown)();
  nvmlReturn_t (*GetCount)(unsigned int*);
  nvmlReturn_t (*GetHandle)(unsigned int, nvmlDevice_t*);
  nvmlReturn_t (*GetTemperature)(nvmlDevice_t, int, unsigned int*);
  nvmlReturn_t (*GetClockInfo)(nvmlDevice_t, int, unsigned int*);
  nvmlReturn_t (*GetPowerUsage)(nvmlDevice_t, unsigned int*);
  nvmlReturn_t (*GetUtilization)(nvmlDevice_t, NvmlUtilization*);
  nvmlReturn_t (*GetPcieReplay)(nvmlDevice_t, unsigned int*);
  nvmlReturn_t (*GetTotalEcc)(nvmlDevice_t, int, int, unsigned long long*);
  nvmlReturn_t (*GetDriverVersion)(char*, unsigned int);
  nvmlReturn_t (*GetCudaVersion)(int*);
  nvmlReturn_t (*GetPersistence)(nvmlDevice_t, int*);
  nvmlReturn_t (*GetEccMode)(nvmlDevice_t, int*, int*);
};

template <typename F>
bool Bind(void* lib, const char* name, F** out, bool required) {
  *out = reinterpret_cast<F*>(::dlsym(lib, name));
  return *out != nullptr || !required;
}

class NvmlReader : public GpuReader {
 public:
  NvmlReader(void* lib, NvmlApi api) : lib_(lib), api_(api) {}
  ~NvmlReader() override {
    api_.Shutdown();
    ::dlclose(lib_);
  }

  std::vector<GpuSample> Sample() override {
    std::vector<GpuSample> out;
    unsigned int n = 0;
    if (api_.GetCount(&n) != kNvmlSuccess) return out;
    for (unsigned int i = 0; i < n; ++i) {
      nvmlDevice_t d = nullptr;
      if (api_.GetHandle(i, &d) != kNvmlSuccess) continue;
      const int gpu = static_cast<int>(i);
      unsigned int u = 0;
      unsigned long long ull = 0;
      if (api_.GetTemperature && api_.GetTemperature(d, kTemperatureGpu, &u) == kNvmlSuccess)
        out.push_back({gpu, "DCGM_FI_DEV_GPU_TEMP", static_cast<double>(u), false});
      if (api_.GetClockInfo && api_.GetClockInfo(d, kClockSm, &u) == kNvmlSuccess)
        out.push_back({gpu, "DCGM_FI_DEV_SM_CLOCK", static_cast<double>(u), false});
      if (api_.GetPowerUsage && api_.GetPowerUsage(d, &u) == kNvmlSuccess)
        out.push_back({gpu, "DCGM_FI_DEV_POWER_USAGE", static_cast<double>(u) / 1000.0, false});
      NvmlUtilization util{};
      if (api_.GetUtilization && api_.GetUtilization(d, &util) == kNvmlSuccess)
        out.push_back({gpu, "DCGM_FI_DEV_GPU_UTIL", static_cast<double>(util.gpu), false});
      if (api_.GetPcieReplay && api_.GetPcieReplay(d, &u) == kNvmlSuccess)
        out.push_back({gpu, "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", static_cast<double>(u), true});
      if (api_.GetTotalEcc && api_.GetTotalEcc(d, kEccCorrected, kVolatileEcc, &ull) == kNvmlSuccess)
        out.push_back({gpu, "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", static_cast<double>(ull), true});
      if (api_.GetTotalEcc && api_.GetTotalEcc(d, kEccUncorrected, kVolatileEcc, &ull) == kNvmlSuccess)
        out.push_back({gpu, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", static_cast<double>(ull), true});
    }
    return out;
  }

  GpuFacts Facts() override {
    GpuFacts f;
    unsigned int n = 0;
    if (api_.GetCount(&n) == kNvmlSuccess) f.count = static_cast<int>(n);
    char version[96] = {0};
    if (api_.GetDriverVersion && api_.GetDriverVersion(version, sizeof version - 1) == kNvmlSuccess)
      f.driver_version = version;
    int cuda = 0;
    if (api_.GetCudaVersion && api_.GetCudaVersion(&cuda) == kNvmlSuccess && cuda > 0) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%d.%d", cuda / 1000, (cuda % 1000) / 10);
      f.cuda_version = buf;
    }
    for (unsigned int i = 0; i < n; ++i) {
      nvmlDevice_t d = nullptr;
      if (api_.GetHandle(i, &d) != kNvmlSuccess) continue;
      int mode = 0, pending = 0;
      if (api_.GetPersistence && api_.GetPersistence(d, &mode) == kNvmlSuccess)
        f.persistence_mode = f.persistence_mode.value_or(true) && mode == kFeatureEnabled;
      if (api_.GetEccMode && api_.GetEccMode(d, &mode, &pending) == kNvmlSuccess)
        f.ecc_mode = f.ecc_mode.value_or(true) && mode == kFeatureEnabled;
    }
    return f;
  }

 private:
  void* lib_;
  NvmlApi api_;
};

}  // namespace

std::unique_ptr<GpuReader> OpenNvml(const std::string& library, Status* why) {
  void* lib = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = ::dlerror();
    *why = Status::NotFound("NVML not loaded (" + std::string(e ? e : library) + ")");
    return nullptr;
  }
  NvmlApi api{};
  bool ok = Bind(lib, "nvmlInit_v2", &api.Init, true) && Bind(lib, "nvmlShutdown", &api.Shutdown, true) &&
            Bind(lib, "nvmlDeviceGetCount_v2", &api.GetCount, true) &&
            Bind(lib, "nvmlDeviceGetHandleByIndex_v2", &api.GetHandle, true);
  if (ok) {
    Bind(lib, "nvmlDeviceGetTemperature", &api.GetTemperature, false);
    Bind(lib, "nvmlDeviceGetClockInfo", &api.GetClockInfo, false);
    Bind(lib, "nvmlDeviceGetPowerUsage", &api.GetPowerUsage, false);
    Bind(lib, "nvmlDeviceGetUtilizationRates", &api.GetUtilization, false);
    Bind(lib, "nvmlDeviceGetPcieReplayCounter", &api.GetPcieReplay, false);
    Bind(lib, "nvmlDeviceGetTotalEccErrors", &api.GetTotalEcc, false);
    Bind(lib, "nvmlSystemGetDriverVersion", &api.GetDriverVersion, false);
    if (!Bind(lib, "nvmlSystemGetCudaDriverVersion_v2", &api.GetCudaVersion, true))
      Bind(lib, "nvmlSystemGetCudaDriverVersion", &api.GetCudaVersion, false);
    Bind(lib, "nvmlDeviceGetPersistenceMode", &api.GetPersistence, false);
    Bind(lib, "nvmlDeviceGetEccMode", &api.GetEccMode, false);
  }
  if (!ok) {
    ::dlclose(lib);
    *why = Status::NotFound(library + " lacks the NVML entry points (nvmlInit_v2, nvmlDeviceGetCount_v2, ...)");
    return nullptr;
  }
  if (const int rc = api.Init(); rc != kNvmlSuccess) {
    ::dlclose(lib);
    *why = Status::Unavailable("nvmlInit_v2 failed (NVML error " + std::to_string(rc) + ")");
    return nullptr;
  }
  return std::make_unique<NvmlReader>(lib, api);
}

std::shared_ptr<GpuReader> SharedNvml(const std::string& library, Status* why) {
  static std::mutex mu;
  static std::map<std::string, std::weak_ptr<GpuReader>> open;
  std::lock_guard<std::mutex> l(mu);
  if (auto r = open[library].lock()) return r;
  std::shared_ptr<GpuReader> r = OpenNvml(library, why);
  if (r) open[library] = r;
  return r;
}

}  // namespace aegis::agent
