// Correlation diagnosis of degradation (AEGIS.md section 4): the metric outlier
// analyzer's findings become the verdict. Abnormal series name their host and device;
// a metric that moved on every host at once is systemic and blames nobody.
#include <fmt/format.h>

#include <map>
#include <set>

#include "engine/stages.h"
#include "metrics/outliers.h"

namespace aegis {

namespace {

std::string DeviceOf(const MetricFinding& f) {
  if (f.device.empty()) return {};
  const bool numeric = f.device.find_first_not_of("0123456789") == std::string::npos;
  return numeric && (f.component == "gpu" || f.component == "nvlink" || f.component == "pcie") ? "gpu" + f.device : f.device;
}

}  // namespace

bool MetricStage(const Incident& inc, const Catalog& catalog, const OutlierOptions& options, Verdict* v) {
  if (inc.metrics.empty()) return false;
  const MetricAnalysis a = AnalyzeMetrics(inc.metrics, catalog, options);
  if (!a.abnormal.empty()) {
    std::map<std::string, std::vector<const MetricFinding*>> by_host;
    for (const auto& f : a.abnormal)
      if (inc.InScope(inc.topology.FindNode(f.host)))
        by_host[f.host].push_back(&f);
    // A host that stands out on many series of one metric next to hosts that stand out on
    // one: the analyzer's findings are per series, the verdict is per device.
    std::set<std::pair<std::string, std::string>> seen;
    for (const auto& [host, list] : by_host)
      for (auto* f : list) {
        const std::string device = DeviceOf(*f);
        if (seen.insert({host, f->component + "/" + device}).second) {
          if (f->component == "link") v->repair.push_back({host, "link", "", device, "", "", ""});
          else v->isolate.push_back({host, f->component, device});
        }
        if (v->evidence.size() < 10) {
          Evidence e;
          e.host = host;
          e.file = f->file;
          e.rule = "metric-" + f->metric;
          e.text = fmt::format("{}{{{}}}: {:.4g} for {:.0f} s; cluster {} {:.4g}, spread {:.4g} ({} is bad): {}", f->metric,
                               f->device, f->value, f->duration_s, options.robust ? "median" : "mean", f->center,
                               f->spread, f->high ? "high" : "low", f->reason);
          v->evidence.push_back(e);
        }
      }
    if (!v->isolate.empty() || !v->repair.empty()) {
      Decide(v, v->isolate.empty() ? "repair" : "isolate", v->isolate.empty() ? "network" : "hardware", "metric_outlier", fmt::format("metric outliers: {} ({}) stays beyond the cluster for the whole window on {}; {} and "
                               "restart.",
                               a.abnormal.front().metric, DeviceOf(a.abnormal.front()), a.abnormal.front().host,
                               v->isolate.empty() ? "repair it" : "isolate it"));
      return true;
    }
  }
  if (!a.systemic.empty()) {
    std::vector<std::string> names;
    for (const auto& s : a.systemic) {
      names.push_back(s.metric);
      Evidence e;
      e.file = "metrics";
      e.rule = "metric-systemic";
      e.text = fmt::format("{}: cluster {} moved from {:.4g} to {:.4g}; {} of {} series beyond the others", s.metric,
                           options.robust ? "median" : "mean", s.before, s.after, s.out, s.series);
      v->evidence.push_back(e);
    }
    Decide(v, "none", "unknown", "metric_outlier",
           fmt::format("systemic: {} moved on all hosts together; no single host to blame (look at the job, the "
                       "framework or a shared component).",
                       fmt::join(names, ", ")));
    return true;
  }
  return false;
}

bool NothingStandsOutStage(const Incident& inc, Verdict* v) {
  if (inc.metrics.empty() && inc.ccl.empty()) return false;  // nothing was compared: offline
  Evidence e;
  e.file = inc.metrics.empty() ? "ccl" : "metrics";
  e.rule = "no-outlier";
  e.text = fmt::format("{} metric series and {} CCL records compared; none stays apart from the others",
                       inc.metrics.size(), inc.ccl.size());
  v->evidence.push_back(e);
  Decide(v, "none", "unknown", inc.metrics.empty() ? "ccl_degradation" : "metric_outlier",
         "the job is slow but no host stands out (no sustained outlier, no straggler); nothing to isolate.");
  return true;
}

}  // namespace aegis
