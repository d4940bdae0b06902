// The outlier analyzer (docs/algorithm.md, "Slow jobs"). Per metric (rules/metrics.yaml) and per
// series (host, GPU or NIC): counters become per-second rates (a drop is a reset); over
// the last `window_s` the center and spread across all series are taken at each time
// (median / MAD by default, so that two bad hosts do not hide each other; mean / sd as the
// classic variant); a series beyond center +/- k * spread (and beyond the metric's
// min_delta) in the bad direction for the whole window, and at least min_sustained_s in a
// row, is abnormal. When too many series are out, or the center itself moved in the bad
// direction, the metric says "systemic" and blames nobody. Pure function, thread-safe.
#pragma once
#include <string>
#include <vector>

#include "metrics/series.h"
#include "rules/catalog.h"

namespace aegis {

struct OutlierOptions {
  double window_s = 600;        // T
  double min_sustained_s = 300;  // a shorter excursion is a spike, not a fault
  double k = 2.0;               // spreads from the center
  bool robust = true;           // median / MAD; false: mean / standard deviation
  double max_outlier_share = 0.3;  // more series out than this: systemic
  double systemic_shift = 0.2;     // center moved this much (relative) in the bad direction
  int threads = 0;                 // metrics analysed in parallel; 0: one per core
};

struct MetricFinding {
  std::string metric, host, device, component, file, reason;
  double value = 0, center = 0, spread = 0;  // medians over the window
  double duration_s = 0;                     // longest run out of bounds
  bool high = true;                          // abnormally high (else low)
};

struct SystemicFinding {
  std::string metric, reason;
  double before = 0, after = 0;  // center before and in the window
  size_t series = 0, out = 0;
};

struct MetricAnalysis {
  std::vector<MetricFinding> abnormal;
  std::vector<SystemicFinding> systemic;
  size_t series = 0, metrics = 0;
};

MetricAnalysis AnalyzeMetrics(const std::vector<Series>& series, const Catalog& catalog, const OutlierOptions& options);

}  // namespace aegis
