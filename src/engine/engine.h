// The diagnosis engine: the one entry point every front end (CLI, agent, controller)
// uses. Given a bundle directory (spec/bundle.md) it returns the verdict
// (spec/verdict.md). Thread-safe for concurrent calls with distinct bundles; it uses
// `threads` worker threads itself to scan logs.
#pragma once
#include <string>

#include "engine/incident.h"
#include "engine/verdict.h"
#include "match/matcher.h"
#include "metrics/outliers.h"
#include "rules/catalog.h"

namespace aegis {

struct DiagnoseOptions {
  int threads = 0;  // log-scanning threads; 0: one per core
  OutlierOptions outliers;  // the metric outlier analyzer's window and thresholds
  std::string prometheus_url;  // also fetch the catalogued metrics from this Prometheus
  double prometheus_step = 15;  // seconds between samples asked for
};

// Throws BundleError when the bundle cannot be used at all (no directory, topology.json
// or job.json missing or not JSON). Anything else degrades into `missing`/`unreadable`.
Verdict Diagnose(const std::string& bundle_dir, const Matcher& matcher, const DiagnoseOptions& options);

// The decision over an already collected incident (Algorithm 1).
Verdict DecideVerdict(const Incident& incident, const Catalog& catalog, const OutlierOptions& outliers = {});

}  // namespace aegis
