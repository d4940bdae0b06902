// Node counters: RDMA port counters (sysfs) and GPU readings (GpuReader), sampled every
// `interval` (15 s) by the loop thread. The newest values are exposed on /metrics
// (aegis_node_rdma_<counter>_total{device,port}, aegis_node_gpu_*{gpu}); the samples of
// the metrics the rule catalogue's outlier analyzer reads (rules/metrics.yaml: e.g.
// np_ecn_marked_roce_packets, port_xmit_data, DCGM_FI_DEV_SM_CLOCK) are also shipped, raw
// and cumulative as read, one "metric" event per series per Flush (every minute):
//   {"id": "<node>:metric:<name>:<device>:<first t>", "type": "metric", "node": ...,
//    "metric": name, "device": "mlx5_0" (port 1; "mlx5_0/2" for another port) or "3"
//    (a GPU index), "t": [epoch s, ...], "v": [...]}
// Render() may run on another thread (the metrics server): the newest values are guarded.
#pragma once
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agent/counters.h"
#include "agent/event_output.h"
#include "agent/sources/node_sampler/gpu_reader.h"
#include "agent/prom_text.h"
#include "agent/sources/node_sampler/rdma_counters.h"

namespace aegis::agent {

class NodeSampler {
 public:
  using ShipFilter = std::function<bool(std::string_view metric)>;
  NodeSampler(std::string node, std::string sys_root, GpuReader* gpu, ShipFilter ship, AgentCounters* counters);
  void Sample(double epoch);
  void Flush(EventOutput* out);
  void Render(PromText* out) const;
  size_t pending_series() const { return series_.size(); }

 private:
  struct Series {
    std::vector<double> t, v;
  };
  void Add(const std::string& name, const std::string& device, double t, double v);

  std::string node_, sys_root_;
  GpuReader* gpu_;
  ShipFilter ship_;
  AgentCounters* counters_;
  std::map<std::pair<std::string, std::string>, Series> series_;  // (metric, device)
  mutable std::mutex mu_;
  std::vector<RdmaCounter> rdma_;  // newest, guarded by mu_
  std::vector<GpuSample> gpu_now_; // newest, guarded by mu_
};

}  // namespace aegis::agent
