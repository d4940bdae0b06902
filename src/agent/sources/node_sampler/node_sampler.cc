#include "agent/sources/node_sampler/node_sampler.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "wire/metric_event.h"

namespace aegis::agent {

NodeSampler::NodeSampler(std::string node, std::string sys_root, GpuReader* gpu, ShipFilter ship,
                         AgentCounters* counters)
    : node_(std::move(node)), sys_root_(std::move(sys_root)), gpu_(gpu), ship_(std::move(ship)), counters_(counters) {}

void NodeSampler::Add(const std::string& name, const std::string& device, double t, double v) {
  if (!ship_ || !ship_(name)) return;
  Series& s = series_[{name, device}];
  s.t.push_back(t);
  s.v.push_back(v);
}

void NodeSampler::Sample(double epoch) {
  std::vector<RdmaCounter> rdma = ReadRdmaCounters(sys_root_);
  std::vector<GpuSample> gpu;
  if (gpu_) gpu = gpu_->Sample();
  for (const auto& c : rdma)
    Add(c.name, c.port == 1 ? c.device : c.device + "/" + std::to_string(c.port), epoch, static_cast<double>(c.value));
  for (const auto& g : gpu) Add(g.name, std::to_string(g.gpu), epoch, g.value);
  counters_->Add(counters_->metric_samples, rdma.size() + gpu.size());
  std::lock_guard<std::mutex> lock(mu_);
  rdma_ = std::move(rdma);
  gpu_now_ = std::move(gpu);
}

void NodeSampler::Flush(EventOutput* out) {
  for (auto& [key, s] : series_) {
    if (s.t.empty()) continue;
    char t0[32];
    std::snprintf(t0, sizeof t0, "%.3f", s.t.front());
    const std::string id = node_ + ":metric:" + IdPart(key.first) + ":" + IdPart(key.second) + ":" + t0;
    out->Add(EventType::kMetric, wire::EncodeMetricEvent(id, node_, key.first, key.second, s.t, s.v));
  }
  series_.clear();
}

void NodeSampler::Render(PromText* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  // One family per counter name, samples per (device, port).
  std::map<std::string, std::vector<const RdmaCounter*>> by_name;
  for (const auto& c : rdma_) by_name[c.name].push_back(&c);
  for (const auto& [name, list] : by_name) {
    const std::string family = "aegis_node_rdma_" + PromText::ValidName(name) + "_total";
    out->Family(family, "counter",
                std::string("RDMA port counter ") + name + " as read from sysfs (" +
                    (list.front()->hw ? "hw_counters" : "counters") + "), raw and cumulative");
    for (const RdmaCounter* c : list) out->Sample(family, {{"device", c->device}, {"port", std::to_string(c->port)}}, c->value);
  }
  struct GpuFamily {
    const char* field;
    const char* family;
    const char* type;
    double scale;
    const char* help;
  };
  static const GpuFamily kGpu[] = {
      {"DCGM_FI_DEV_GPU_TEMP", "aegis_node_gpu_temperature_celsius", "gauge", 1, "GPU temperature (NVML)"},
      {"DCGM_FI_DEV_SM_CLOCK", "aegis_node_gpu_sm_clock_hertz", "gauge", 1e6, "GPU SM clock (NVML)"},
      {"DCGM_FI_DEV_POWER_USAGE", "aegis_node_gpu_power_watts", "gauge", 1, "GPU power draw (NVML)"},
      {"DCGM_FI_DEV_GPU_UTIL", "aegis_node_gpu_utilization_ratio", "gauge", 0.01, "GPU busy fraction (NVML)"},
      {"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "aegis_node_gpu_pcie_replays_total", "counter", 1, "PCIe replays (NVML)"},
      {"DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "aegis_node_gpu_ecc_corrected_errors_total", "counter", 1,
       "corrected ECC errors since the driver loaded (NVML)"},
      {"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "aegis_node_gpu_ecc_uncorrected_errors_total", "counter", 1,
       "uncorrected ECC errors since the driver loaded (NVML)"},
  };
  for (const auto& f : kGpu) {
    bool any = false;
    for (const auto& g : gpu_now_) {
      if (g.name != f.field) continue;
      if (!any) out->Family(f.family, f.type, f.help);
      any = true;
      out->Sample(f.family, {{"gpu", std::to_string(g.gpu)}}, g.value * f.scale);
    }
  }
}

}  // namespace aegis::agent
