#include "wire/metric_event.h"

#include <cmath>

#include "common/json_check.h"

namespace aegis::wire {

using nlohmann::json;

std::string EncodeMetricEvent(std::string_view id, std::string_view node, std::string_view metric,
                              std::string_view device, const std::vector<double>& t, const std::vector<double>& v) {
  json ev;
  ev["id"] = id;
  ev["type"] = "metric";
  ev["node"] = node;
  ev["metric"] = metric;
  ev["device"] = device;
  ev["t"] = t;
  json values = json::array();
  for (double x : v) values.push_back(std::isfinite(x) ? json(x) : json(nullptr));  // JSON has no NaN
  ev["v"] = std::move(values);
  return ev.dump(-1, ' ', false, json::error_handler_t::replace);
}

Status DecodeMetricEvent(const json& j, std::string_view node, Series* out) {
  Status s = CheckString(j, "metric", "metric event", true);
  if (s.ok()) s = CheckString(j, "device", "metric event");
  if (!s.ok()) return s;
  Series series;
  series.metric = j["metric"].get<std::string>();
  if (!IsSafeName(series.metric)) return Status::InvalidArgument("metric event: metric must be a plain name");
  if (j.contains("device") && j["device"].is_string()) series.device = j["device"].get<std::string>();
  series.host = std::string(node);
  series.file = MetricFileOf(series.metric);
  auto t = j.find("t"), v = j.find("v");
  if (t == j.end() || !t->is_array()) return Status::InvalidArgument("metric event: t must be an array of times");
  if (v == j.end() || !v->is_array()) return Status::InvalidArgument("metric event: v must be an array of numbers");
  if (t->size() != v->size()) return Status::InvalidArgument("metric event: t and v differ in length");
  if (t->empty()) return Status::InvalidArgument("metric event: no samples");
  if (t->size() > kMaxSeriesSamples) return Status::InvalidArgument("metric event: too many samples");
  for (size_t i = 0; i < t->size(); ++i) {
    const json& ti = (*t)[i];
    const json& vi = (*v)[i];
    if (!ti.is_number() || !std::isfinite(ti.get<double>()))
      return Status::InvalidArgument("metric event: t[" + std::to_string(i) + "] must be a finite number");
    if (!vi.is_number() && !vi.is_null())
      return Status::InvalidArgument("metric event: v[" + std::to_string(i) + "] must be a number or null");
    if (vi.is_null() || !std::isfinite(vi.get<double>())) continue;  // a gap, as Prometheus's NaN
    if (!series.t.empty() && ti.get<double>() <= series.t.back())
      return Status::InvalidArgument("metric event: t must increase");
    series.t.push_back(ti.get<double>());
    series.v.push_back(vi.get<double>());
  }
  *out = std::move(series);
  return Status::Ok();
}

std::string MetricFileOf(std::string_view metric) { return "metrics/" + std::string(metric) + ".json"; }

}  // namespace aegis::wire
