// The bundle source: reads an incident bundle (a directory, docs/formats.md) into an
// IncidentBuilder, all of it at once: topology.json and job.json first, then every log
// (scanned on `threads` threads, largest first), CCL snapshots, facts, metrics, switch
// logs and probes. What is missing or unreadable is reported to the builder, never fatal.
// DiagnoseBundle is `aegis diagnose`: this source, live Prometheus metrics when asked,
// then the engine's decision. Thread-safe for distinct bundles.
#pragma once
#include <string>

#include "common/status.h"
#include "engine/engine.h"
#include "engine/incident_builder.h"
#include "env/env.h"
#include "match/matcher.h"

namespace aegis {

struct BundleReadOptions {
  int threads = 0;  // log-scanning threads; 0: one per core
  // Its wall clock stands for the job's start when job.json has none (the year of
  // yearless times); not owned; null: Env::Default().
  Env* env = nullptr;
};

// Not ok (NotFound or InvalidArgument, with one clear message) when the bundle cannot be
// used at all: no such directory, topology.json or job.json missing or not JSON.
Status ReadBundle(const std::string& dir, const Matcher& matcher, const BundleReadOptions& options,
                  IncidentBuilder* builder);

struct DiagnoseOptions {
  int threads = 0;                // log-scanning threads; 0: one per core
  DecideOptions decide;           // the engine's settings (metric outlier window, ...)
  std::string prometheus_url;     // also fetch the catalogued metrics from this Prometheus
  double prometheus_step = 15;    // seconds between samples asked for
  // Its wall clock stands for the job's start or end when job.json has none (the year of
  // yearless times, the end of the Prometheus window); not owned; null: Env::Default().
  Env* env = nullptr;
};

Status DiagnoseBundle(const std::string& dir, const Matcher& matcher, const DiagnoseOptions& options, Verdict* out);

}  // namespace aegis
