#include "metrics/outliers.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/parallel.h"

namespace aegis {

namespace {

double Median(std::vector<double>& x) {
  auto mid = x.begin() + static_cast<std::ptrdiff_t>(x.size() / 2);
  std::nth_element(x.begin(), mid, x.end());
  double m = *mid;
  if (x.size() % 2 == 0) m = (m + *std::max_element(x.begin(), mid)) / 2;
  return m;
}

// Per-second rates of a cumulative counter; a value below its predecessor is a reset
// (the device or driver restarted) and counts from zero.
void ToRates(const Series& s, std::vector<double>* t, std::vector<double>* v) {
  for (size_t i = 1; i < s.t.size(); ++i) {
    const double dt = s.t[i] - s.t[i - 1];
    if (dt <= 0) continue;
    const double dv = s.v[i] >= s.v[i - 1] ? s.v[i] - s.v[i - 1] : s.v[i];
    t->push_back(s.t[i]);
    v->push_back(dv / dt);
  }
}

void AnalyzeOne(const MetricSpec& spec, const std::vector<const Series*>& list, const OutlierOptions& o,
                MetricAnalysis* out) {
  // Counters become rates; gauges are used as they are (no copy).
  std::vector<std::vector<double>> rate_t(spec.counter ? list.size() : 0), rate_v(spec.counter ? list.size() : 0);
  auto times = [&](size_t i) -> const std::vector<double>& { return spec.counter ? rate_t[i] : list[i]->t; };
  auto values = [&](size_t i) -> const std::vector<double>& { return spec.counter ? rate_v[i] : list[i]->v; };
  double t0 = INFINITY, t_end = -INFINITY, step = INFINITY;
  for (size_t i = 0; i < list.size(); ++i) {
    if (spec.counter) ToRates(*list[i], &rate_t[i], &rate_v[i]);
    const auto& t = times(i);
    for (size_t k = 1; k < t.size(); ++k)
      if (t[k] > t[k - 1]) step = std::min(step, t[k] - t[k - 1]);
    if (!t.empty()) {
      t0 = std::min(t0, t.front());
      t_end = std::max(t_end, t.back());
    }
  }
  if (!std::isfinite(step) || !std::isfinite(t0)) return;
  // Values on a common grid: Prometheus aligns range-query points to start + k * step.
  const int slots = static_cast<int>(std::llround((t_end - t0) / step)) + 1;
  const int first_window_slot = std::max(0, static_cast<int>(std::ceil((t_end - o.window_s - t0) / step - 1e-9)));
  auto slot_of = [&](double t) { return static_cast<int>(std::llround((t - t0) / step)); };
  std::vector<std::vector<double>> at(static_cast<size_t>(slots));
  for (auto& x : at) x.reserve(list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    const auto &t = times(i), &v = values(i);
    for (size_t k = 0; k < t.size(); ++k)
      if (const int slot = slot_of(t[k]); slot >= 0 && slot < slots) at[static_cast<size_t>(slot)].push_back(v[k]);
  }
  std::vector<double> center(static_cast<size_t>(slots), NAN), spread(static_cast<size_t>(slots), NAN);
  for (int k = 0; k < slots; ++k) {
    auto& x = at[static_cast<size_t>(k)];
    if (x.size() < 3) continue;
    if (o.robust) {
      const double m = Median(x);
      for (double& y : x) y = std::fabs(y - m);
      center[static_cast<size_t>(k)] = m;
      spread[static_cast<size_t>(k)] = 1.4826 * Median(x);  // MAD scaled to a standard deviation
    } else {
      double sum = 0, sq = 0;
      for (double y : x) sum += y;
      const double mean = sum / static_cast<double>(x.size());
      for (double y : x) sq += (y - mean) * (y - mean);
      center[static_cast<size_t>(k)] = mean;
      spread[static_cast<size_t>(k)] = std::sqrt(sq / static_cast<double>(x.size()));
    }
  }
  const int window_slots = slots - first_window_slot;
  std::vector<MetricFinding> found;
  for (size_t i = 0; i < list.size(); ++i) {
    const auto &pt = times(i), &pv = values(i);
    int in_window = 0, out = 0, run = 0, best_run = 0, last_slot = -2;
    std::vector<double> vals, centers, spreads;
    for (size_t k = 0; k < pt.size(); ++k) {
      const int slot = slot_of(pt[k]);
      if (slot < 0 || slot >= slots) continue;
      if (slot < first_window_slot || std::isnan(center[static_cast<size_t>(slot)])) continue;
      ++in_window;
      const double c = center[static_cast<size_t>(slot)], sd = spread[static_cast<size_t>(slot)];
      const double dev = spec.high_is_bad ? pv[k] - c : c - pv[k];
      const bool is_out = dev > std::max(o.k * sd, spec.min_delta);
      if (is_out) {
        ++out;
        run = slot == last_slot + 1 ? run + 1 : 1;
        best_run = std::max(best_run, run);
        vals.push_back(pv[k]);
        centers.push_back(c);
        spreads.push_back(sd);
      } else {
        run = 0;
      }
      last_slot = slot;
    }
    const double sustained = (best_run - 1) * step;
    // Out for the whole window (a missing point is tolerated) and long enough in a row.
    if (in_window < 2 || out < std::max(2, static_cast<int>(std::ceil(0.9 * window_slots))) ||
        sustained + 1e-9 < std::min(o.min_sustained_s, (window_slots - 1) * step))
      continue;
    MetricFinding f;
    f.metric = spec.name;
    f.host = list[i]->host;
    f.device = list[i]->device;
    f.component = spec.component;
    f.file = list[i]->file;
    f.reason = spec.reason;
    f.value = Median(vals);
    f.center = Median(centers);
    f.spread = Median(spreads);
    f.duration_s = sustained;
    f.high = spec.high_is_bad;
    found.push_back(f);
  }
  // Systemic: too many out at once, or the whole cluster moved in the bad direction.
  std::vector<double> before, after;
  for (int k = 0; k < slots; ++k)
    if (!std::isnan(center[static_cast<size_t>(k)])) (k < first_window_slot ? before : after).push_back(center[static_cast<size_t>(k)]);
  SystemicFinding sys;
  sys.metric = spec.name;
  sys.series = list.size();
  sys.out = found.size();
  bool systemic = found.size() > o.max_outlier_share * static_cast<double>(list.size());
  if (!before.empty() && !after.empty()) {
    sys.before = Median(before);
    sys.after = Median(after);
    const double moved = spec.high_is_bad ? sys.after - sys.before : sys.before - sys.after;
    if (moved > std::max(spec.min_delta, o.systemic_shift * std::fabs(sys.before))) systemic = true;
  }
  if (systemic) {
    sys.reason = spec.reason;
    out->systemic.push_back(sys);
    return;
  }
  out->abnormal.insert(out->abnormal.end(), found.begin(), found.end());
}

}  // namespace

MetricAnalysis AnalyzeMetrics(const std::vector<Series>& series, const Catalog& catalog, const OutlierOptions& options) {
  MetricAnalysis out;
  std::map<std::string, std::vector<const Series*>> by_metric;
  for (const auto& s : series)
    if (catalog.FindMetric(s.metric)) by_metric[s.metric].push_back(&s);
  // Metrics are independent: each thread takes the next one; results merge in name order.
  std::vector<std::pair<const MetricSpec*, const std::vector<const Series*>*>> work;
  for (const auto& [name, list] : by_metric) work.push_back({catalog.FindMetric(name), &list});
  std::vector<MetricAnalysis> parts(work.size());
  ParallelFor(work.size(), options.threads, [&] {
    return [&](size_t i) { AnalyzeOne(*work[i].first, *work[i].second, options, &parts[i]); };
  });
  for (size_t i = 0; i < parts.size(); ++i) {
    out.series += work[i].second->size();
    ++out.metrics;
    out.abnormal.insert(out.abnormal.end(), parts[i].abnormal.begin(), parts[i].abnormal.end());
    out.systemic.insert(out.systemic.end(), parts[i].systemic.begin(), parts[i].systemic.end());
  }
  return out;
}

}  // namespace aegis
