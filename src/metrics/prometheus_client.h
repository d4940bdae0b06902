// Live metrics: fetches every catalogued metric from a Prometheus server's HTTP API
// (GET /api/v1/query_range) over [start, end] at `step`, and parses the answers like
// bundle metrics/*.json. A server that cannot be reached, or answers an error, is
// reported per metric to the Reporter (where "prometheus"); it never stops a diagnosis.
#pragma once
#include <string>
#include <vector>

#include "common/status.h"
#include "metrics/series.h"

namespace aegis {

// base_url: "http://host:port" with an optional path prefix ("http://h:9090/prom").
// Returns the series of every metric that could be fetched.
std::vector<Series> FetchFromPrometheus(const std::string& base_url, const std::vector<std::string>& metrics,
                                        double start, double end, double step, Reporter* reporter);

}  // namespace aegis
