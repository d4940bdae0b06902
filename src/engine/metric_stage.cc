// Correlation diagnosis of degradation (docs/algorithm.md, "Slow jobs"): the metric outlier
// analyzer's findings become the verdict. Abnormal series name their host and device;
// a metric that moved on every host at once is systemic and blames nobody.
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

#include "engine/stages.h"
#include "metrics/outliers.h"

namespace aegis {

namespace {

Component ComponentOf(const MetricFinding& f) { return ParseComponent(f.component).value_or(Component::kHost); }

std::string DeviceOf(const MetricFinding& f) {
  if (f.device.empty()) return {};
  const bool numeric = f.device.find_first_not_of("0123456789") == std::string::npos;
  const Component c = ComponentOf(f);
  return numeric && (c == Component::kGpu || c == Component::kNvlink || c == Component::kPcie) ? "gpu" + f.device
                                                                                                : f.device;
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
          if (ComponentOf(*f) == Component::kLink) v->repair.push_back({host, Component::kLink, "", device, "", "", ""});
          else v->isolate.push_back({host, ComponentOf(*f), device});
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
      // How far the first finding stands from the rest, in spreads (k is the threshold).
      const MetricFinding& f = a.abnormal.front();
      const double distance = f.spread > 0 ? std::abs(f.value - f.center) / f.spread : options.k * 2;
      const size_t hosts = by_host.size();
      Decide(v, v->isolate.empty() ? Action::kRepair : Action::kIsolate,
             v->isolate.empty() ? Cause::kNetwork : Cause::kHardware, Stage::kMetricOutlier,
             fmt::format("metric outliers: {} ({}) stays beyond the cluster for the whole window on {}; {} and "
                         "restart.",
                         f.metric, DeviceOf(f), f.host, v->isolate.empty() ? "repair it" : "isolate it"),
             Support((hosts == 1 ? 0.85 : 0.6) * std::min(1.0, distance / (2 * options.k)),
                     fmt::format("{} {:.1f} spreads from the cluster's center for {:.0f} s; {} host(s) stand out",
                                 f.metric, distance, f.duration_s, hosts)));
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
    Decide(v, Action::kNone, Cause::kUnknown, Stage::kMetricOutlier,
           fmt::format("systemic: {} moved on all hosts together; no single host to blame (look at the job, the "
                       "framework or a shared component).",
                       fmt::join(names, ", ")),
           Support(0.6, fmt::format("{} metric(s) moved on every host together", names.size())));
    return true;
  }
  return false;
}

bool NothingStandsOutStage(const Incident& inc, Verdict* v) {
  Evidence e;
  if (inc.metrics.empty() && inc.ccl.empty()) {
    // Nothing to compare is not a reason to take every host out of service: a slow job
    // still runs, and sending all of it to offline diagnosis costs more than it can find.
    e.file = ".";
    e.rule = "no-signal";
    e.text = fmt::format("no CCL counters (the probe's snapshots) and no metric series to compare; no rule matched "
                         "a cause in {} bytes of logs",
                         inc.bytes_scanned);
    v->evidence.push_back(e);
    Decide(v, Action::kNone, Cause::kUnknown, Stage::kMetricOutlier,
           "the job is slow, but there was nothing to compare its hosts by (no probe counters, no metrics); nothing "
           "to isolate: load the probe or collect metrics to find a straggler.",
           Support(0.2, e.text));
    return true;
  }
  e.file = inc.metrics.empty() ? "ccl" : "metrics";
  e.rule = "no-outlier";
  e.text = fmt::format("{} metric series and {} CCL records compared; none stays apart from the others",
                       inc.metrics.size(), inc.ccl.size());
  v->evidence.push_back(e);
  Decide(v, Action::kNone, Cause::kUnknown, inc.metrics.empty() ? Stage::kCclDegradation : Stage::kMetricOutlier,
         "the job is slow but no host stands out (no sustained outlier, no straggler); nothing to isolate.",
         Support(0.5, e.text));
  return true;
}

}  // namespace aegis
