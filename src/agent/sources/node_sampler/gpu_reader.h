// GPU state for the agent, behind a small interface so that everything above it (metrics,
// facts, tests) works without a GPU. The one implementation reads NVML, loaded at run
// time with dlopen("libnvidia-ml.so.1"): the agent links nothing of NVIDIA's and runs on
// machines without a driver (OpenNvml then says why, and the caller says it once and
// skips GPU readings). Readings are named as dcgm-exporter names them (the bundle
// format's metrics/ and rules/metrics.yaml): DCGM_FI_DEV_GPU_TEMP (C), DCGM_FI_DEV_SM_CLOCK
// (MHz), DCGM_FI_DEV_POWER_USAGE (W), DCGM_FI_DEV_GPU_UTIL (%), DCGM_FI_DEV_PCIE_REPLAY_COUNTER,
// DCGM_FI_DEV_ECC_SBE_VOL_TOTAL, DCGM_FI_DEV_ECC_DBE_VOL_TOTAL. A reading the device does
// not support is left out. Not thread-safe: one thread samples.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace aegis::agent {

struct GpuSample {
  int gpu = 0;
  std::string name;  // DCGM field name
  double value = 0;
  bool counter = false;  // cumulative
};

struct GpuFacts {
  int count = -1;
  std::string driver_version;  // "570.86.15"
  std::string cuda_version;    // "12.8" (the driver's CUDA version)
  std::optional<bool> persistence_mode;  // on for every GPU
  std::optional<bool> ecc_mode;          // on for every GPU
};

class GpuReader {
 public:
  virtual ~GpuReader() = default;
  virtual std::vector<GpuSample> Sample() = 0;
  virtual GpuFacts Facts() = 0;
};

// Loads NVML from `library` (a name dlopen searches, or a path) and initialises it.
// nullptr with *why set when the library is absent or nvmlInit fails.
std::unique_ptr<GpuReader> OpenNvml(const std::string& library, Status* why);
// OpenNvml shared: one reader per library while anyone holds it (the node sampler and
// the facts source use one NVML), opened again after the last holder let go. The
// reader is still used from one thread at a time (the agent's loop).
std::shared_ptr<GpuReader> SharedNvml(const std::string& library, Status* why);

}  // namespace aegis::agent
