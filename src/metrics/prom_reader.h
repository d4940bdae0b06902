// Parses the body of a Prometheus GET /api/v1/query_range answer (resultType "matrix").
// Values are strings as Prometheus writes them ("NaN", "+Inf" accepted and skipped).
// Series without a host label are dropped and counted; bad JSON is an error, never a crash.
// Any thread may call it at once: each thread keeps its own JSON parser between calls
// (its buffers, up to 64 MiB; a larger answer's are freed after it).
#pragma once
#include <string>
#include <vector>

#include "common/status.h"
#include "metrics/series.h"

namespace aegis {

struct PromParseResult {
  std::vector<Series> series;
  size_t skipped = 0;  // series without a host label or values
  Status status;       // not ok: the body could not be used at all
};

PromParseResult ParseQueryRange(const std::string& body, const std::string& fallback_metric, const std::string& file);

}  // namespace aegis
