// Metric outliers of slow jobs, as Prometheus range queries (20 minutes at 15 s, per GPU
// or per NIC): a NIC flooded with ECN marks, a GPU throttling on heat; and the two that
// must blame nobody: the whole cluster slowing together, a one-minute spike.
#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <string>

#include "gen/families.h"

namespace aegis::gen {

namespace {

constexpr int kMetricPoints = 80;
constexpr double kMetricStep = 15;
const double kUnchanged = std::nan("");  // an override that leaves the healthy value

// value(h, dev, i): the sample i (0 oldest) of host h, device dev; counters accumulate it
// as a per-second rate.
void WriteMetric(Scene& s, const std::string& name, bool per_gpu, bool counter,
                 const std::function<double(int, int, int)>& value) {
  const double t_end = s.b.c.fail + 1200;
  std::string out = "{\"status\": \"success\", \"data\": {\"resultType\": \"matrix\", \"result\": [";
  bool first = true;
  const int label_style = s.Rand(3);
  for (int h = 0; h < s.Hosts(); ++h)
    for (int d = 0; d < s.Gpus(); ++d) {
      std::string labels;
      const std::string& host = s.N(h).host;
      if (per_gpu)
        labels = label_style == 0 ? fmt::format("\"Hostname\": \"{}\", \"gpu\": \"{}\", \"instance\": \"{}:9400\"", host, d, s.N(h).mgmt_ip)
                                  : fmt::format("\"host\": \"{}\", \"gpu\": \"{}\"", host, d);
      else
        labels = label_style == 1 ? fmt::format("\"instance\": \"{}:9100\", \"device\": \"mlx5_{}\", \"port\": \"1\"", host, d)
                                  : fmt::format("\"hostname\": \"{}\", \"device\": \"mlx5_{}\"", host, d);
      out += fmt::format("{}{{\"metric\": {{\"__name__\": \"{}\", {}}}, \"values\": [", first ? "" : ", ", name, labels);
      first = false;
      double acc = 1000.0 * (h + 1);
      for (int i = 0; i < kMetricPoints; ++i) {
        const double t = t_end - (kMetricPoints - 1 - i) * kMetricStep;
        double v = value(h, d, i);
        if (counter) {
          acc += v * kMetricStep;
          v = acc;
        }
        out += fmt::format("{}[{:.3f}, \"{:.6g}\"]", i ? ", " : "", t, v);
      }
      out += "]}";
    }
  out += "]}}";
  s.b.metrics[name] = std::move(out);
}

double Wobble(int h, int d, int i, double amp) {
  return amp * static_cast<double>((h * 7919 + d * 104729 + i * 1299709) % 1000) / 1000.0;
}

// The healthy background every metric scenario shares; override(h, d, i, name) replaces
// a sample unless it returns kUnchanged.
void HealthyMetrics(Scene& s, const std::function<double(int, int, int, const std::string&)>& override_fn) {
  auto with = [&](const std::string& name, auto base) {
    return [&, name, base](int h, int d, int i) {
      const double o = override_fn(h, d, i, name);
      return std::isnan(o) ? base(h, d, i) : o;
    };
  };
  WriteMetric(s, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", true, false,
              with("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", [](int h, int d, int i) { return 0.58 + Wobble(h, d, i, 0.04); }));
  WriteMetric(s, "DCGM_FI_DEV_GPU_TEMP", true, false,
              with("DCGM_FI_DEV_GPU_TEMP", [](int h, int d, int i) { return 61 + Wobble(h, d, i, 6); }));
  WriteMetric(s, "DCGM_FI_DEV_SM_CLOCK", true, false,
              with("DCGM_FI_DEV_SM_CLOCK", [](int h, int d, int i) { return 1980 - Wobble(h, d, i, 30); }));
  WriteMetric(s, "np_ecn_marked_roce_packets", false, true,
              with("np_ecn_marked_roce_packets", [](int h, int d, int i) { return Wobble(h, d, i, 5); }));
  WriteMetric(s, "rp_cnp_handled", false, true, with("rp_cnp_handled", [](int h, int d, int i) { return Wobble(h, d, i, 5); }));
}

}  // namespace

// The brief's case: one NIC's ECN marks (and the CNPs they cause) jump from ~0 to
// 10-30K/s after its link started dropping packets silently.
void InjectEcnSurge(Scene& s) {
  const int hs = s.Rand(s.Hosts()), nic = s.Rand(s.Gpus());
  HealthyMetrics(s, [&](int h, int d, int i, const std::string& name) {
    if (h == hs && d == nic && i >= 30 && name.find("DCGM") == std::string::npos) return 10000 + Wobble(h, d, i, 20000);
    return kUnchanged;
  });
  s.Expect("isolate", "hardware", "metric_outlier");
  s.ExpectIsolate(hs, "nic", fmt::format("mlx5_{}", nic));
}

void InjectThermalThrottling(Scene& s) {
  const int hs = s.Rand(s.Hosts()), g = s.Rand(s.Gpus());
  HealthyMetrics(s, [&](int h, int d, int i, const std::string& name) {
    if (h != hs || d != g || i < 20) return kUnchanged;
    if (name == "DCGM_FI_DEV_GPU_TEMP") return 88 + Wobble(h, d, i, 4);
    if (name == "DCGM_FI_DEV_SM_CLOCK") return 1300 + Wobble(h, d, i, 100);
    return kUnchanged;
  });
  s.Expect("isolate", "hardware", "metric_outlier");
  s.ExpectIsolate(hs, "gpu", fmt::format("gpu{}", g));
}

// Everyone slows down together (a data loader, a framework change): no host to blame.
void InjectGlobalSlowdown(Scene& s) {
  HealthyMetrics(s, [&](int h, int d, int i, const std::string& name) {
    if (i >= 30 && name == "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE") return 0.40 + Wobble(h, d, i, 0.04);
    return kUnchanged;
  });
  s.Expect("none", "unknown", "metric_outlier");
}

// A one-minute burst of ECN marks on one NIC: a spike, not a fault.
void InjectTransientSpike(Scene& s) {
  const int hs = s.Rand(s.Hosts()), nic = s.Rand(s.Gpus());
  HealthyMetrics(s, [&](int h, int d, int i, const std::string& name) {
    if (h == hs && d == nic && i >= 60 && i < 64 && name == "np_ecn_marked_roce_packets") return 20000.0;
    return kUnchanged;
  });
  s.Expect("none", "unknown", "metric_outlier");
}

}  // namespace aegis::gen
