// The "metric" event: samples of one node metric for one device, as the agent's sampler
// ships them every --metric-flush seconds:
//   {"id", "type": "metric", "node", "metric": "rx_bytes", "device": "mlx5_0", "t": [...], "v": [...]}
// `t` increasing epoch seconds, `v` numbers or null (a gap). Pure functions.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "engine/incident.h"

namespace aegis::wire {

// Limit of one event's samples.
constexpr size_t kMaxSeriesSamples = 100000;

std::string EncodeMetricEvent(std::string_view id, std::string_view node, std::string_view metric,
                              std::string_view device, const std::vector<double>& t, const std::vector<double>& v);
// The series of a "metric" event of `node` (its gaps left out); InvalidArgument naming
// what is wrong.
Status DecodeMetricEvent(const nlohmann::json& j, std::string_view node, Series* out);

// The bundle file of a metric's series: metrics/NAME.json.
std::string MetricFileOf(std::string_view metric);

}  // namespace aegis::wire
