// The diagnosis engine: the one decision every front end runs (`aegis diagnose` through
// sources/bundle_source, the controller through controller/live_job, the tests through
// their incident fixtures). Decide() takes an Incident (incident.h; built by an IncidentBuilder
// from any source) and returns its Verdict (verdict.h) by the stages of the algorithm in
// the order engine.cc explains. Pure: no I/O, no clock, no threads beyond the metric
// analyzer's own; thread-safe for concurrent calls; cheap to re-run as events arrive.
#pragma once
#include "engine/incident.h"
#include "engine/verdict.h"
#include "metrics/outliers.h"
#include "rules/catalog.h"

namespace aegis {

struct DecideOptions {
  OutlierOptions outliers;  // the metric outlier analyzer's window and thresholds
};

Verdict Decide(const Incident& incident, const Catalog& catalog, const DecideOptions& options = {});

}  // namespace aegis
