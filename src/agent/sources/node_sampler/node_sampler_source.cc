// "node_sampler": RDMA port counters and GPU readings (node_sampler.h) as an agent
// source: sampled every sample_s (at once at the first pass), the catalogued series
// shipped every metric_flush_s and when the agent stops; the newest values on /metrics.
// NVML is loaded once at creation (said once when absent: GPU readings are skipped).
#include <algorithm>
#include <limits>

#include "agent/log.h"
#include "agent/sources/builtin.h"
#include "agent/sources/node_sampler/gpu_reader.h"
#include "agent/sources/node_sampler/node_sampler.h"

namespace aegis::agent {

namespace {

class NodeSamplerInput : public Source {
 public:
  explicit NodeSamplerInput(const SourceContext& ctx)
      : Source("node_sampler"),
        out_(ctx.out),
        sample_s_(ctx.config->sample_s),
        flush_s_(ctx.config->metric_flush_s),
        gpu_(Open(ctx)),
        sampler_(
            ctx.config->node, ctx.config->roots.sys, gpu_.get(),
            [live = ctx.rules](std::string_view metric) { return live->Current()->catalog.FindMetric(metric) != nullptr; },
            ctx.counters) {}

  double due() const override { return next_flush_ < 0 ? next_sample_ : std::min(next_sample_, next_flush_); }
  SourcePass Poll(const SourceTick& t) override {
    if (next_flush_ < 0) next_flush_ = t.now + flush_s_;  // the first series ship a period after the start
    if (t.now >= next_sample_) {
      next_sample_ = t.now + sample_s_;
      sampler_.Sample(t.epoch);
    }
    if (t.now >= next_flush_) {
      next_flush_ = t.now + flush_s_;
      sampler_.Flush(out_);
    }
    return {};
  }
  void Stop() override { sampler_.Flush(out_); }
  void RenderMetrics(PromText* p) const override { sampler_.Render(p); }

 private:
  static std::shared_ptr<GpuReader> Open(const SourceContext& ctx) {
    Status why;
    auto gpu = SharedNvml(ctx.config->nvml_library, &why);
    ctx.counters->nvml_available = gpu != nullptr;
    if (!gpu) Log(why.message() + ": GPU readings skipped");
    return gpu;
  }

  EventOutput* out_;
  double sample_s_, flush_s_;
  std::shared_ptr<GpuReader> gpu_;
  NodeSampler sampler_;
  double next_sample_ = 0, next_flush_ = -1;
};

}  // namespace

void RegisterNodeSamplerSource(SourceRegistry* r) {
  (void)r->Register("node_sampler", [](const SourceContext& ctx, std::unique_ptr<Source>* out) {
    *out = std::make_unique<NodeSamplerInput>(ctx);
    return Status::Ok();
  });
}

}  // namespace aegis::agent
