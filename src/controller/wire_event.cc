#include "controller/wire_event.h"

#include <array>
#include <cmath>
#include <map>

#include "bundle/bundle_reader.h"
#include "ccl/reader.h"
#include "common/text.h"
#include "common/json_check.h"

namespace aegis::controller {

using nlohmann::json;

namespace {

constexpr std::array<std::pair<EventType, std::string_view>, 6> kTypes{{{EventType::kLog, "log"},
                                                                        {EventType::kCcl, "ccl"},
                                                                        {EventType::kFacts, "facts"},
                                                                        {EventType::kMetric, "metric"},
                                                                        {EventType::kHeartbeat, "heartbeat"},
                                                                        {EventType::kProbe, "probe"}}};

Status DecodeLog(const json& j, DecodedEvent* e) {
  if (Status s = LogEventFromWire(j, &e->log); !s.ok()) return s;
  if (e->log.node != e->node) return Status::InvalidArgument("log event: node differs from the event's node");
  if (!IsSafeRelativePath(e->log.file))
    return Status::InvalidArgument("log event: file must be a relative path of plain names (nodes/HOST/kernel.log)");
  e->at = e->log.event.ts;
  return Status::Ok();
}

Status DecodeCcl(const json& j, DecodedEvent* e) {
  Status s = CheckString(j, "file", "ccl event");
  if (s.ok()) s = CheckObject(j, "record", "ccl event", true);
  if (!s.ok()) return s;
  const std::string file = j.contains("file") && j["file"].is_string() ? j["file"].get<std::string>() : "probe.jsonl";
  const std::string rel = CclFileOf(e->node, file);
  if (!IsSafeRelativePath(rel)) return Status::InvalidArgument("ccl event: file must be a plain file name");
  std::map<std::pair<std::string, int>, CclRecord> newest;
  CclFileStats stats = ReadCclText(j["record"].dump(), rel, e->node, &newest);
  if (stats.bad_lines != 0 || newest.size() != 1)
    return Status::InvalidArgument("ccl event: record is not a CCL snapshot (needs comm, rank and ts)");
  e->ccl = std::move(newest.begin()->second);
  e->ccl.line = 0;
  e->at = e->ccl.ts;
  return Status::Ok();
}

Status DecodeFacts(const json& j, DecodedEvent* e) {
  if (Status s = CheckObject(j, "facts", "facts event", true); !s.ok()) return s;
  if (Status s = ParseFacts(j["facts"].dump(), &e->facts); !s.ok())
    return Status::InvalidArgument("facts event: " + s.message());
  return Status::Ok();
}

Status DecodeMetric(const json& j, DecodedEvent* e) {
  Status s = CheckString(j, "metric", "metric event", true);
  if (s.ok()) s = CheckString(j, "device", "metric event");
  if (!s.ok()) return s;
  Series& series = e->series;
  series.metric = j["metric"].get<std::string>();
  if (!IsSafeName(series.metric)) return Status::InvalidArgument("metric event: metric must be a plain name");
  if (j.contains("device") && j["device"].is_string()) series.device = j["device"].get<std::string>();
  series.host = e->node;
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
  if (!series.t.empty()) e->at = series.t.back();
  return Status::Ok();
}

Status DecodeHeartbeat(const json& j, DecodedEvent* e) {
  Status s = CheckTime(j, "at", "heartbeat event", true);
  if (s.ok()) s = CheckObject(j, "agent", "heartbeat event");
  if (!s.ok()) return s;
  e->at = TimeValue(j, "at");
  return Status::Ok();
}

Status DecodeProbe(const json& j, DecodedEvent* e) {
  Status s = CheckString(j, "src", "probe event", true);
  if (s.ok()) s = CheckString(j, "dst", "probe event", true);
  for (const char* k : {"size", "sent", "lost"})
    if (s.ok()) s = CheckInteger(j, k, "probe event", true);
  for (const char* k : {"rtt_us_p50", "rtt_us_p99"})
    if (s.ok()) s = CheckNumber(j, k, "probe event");
  if (s.ok()) s = CheckTime(j, "at", "probe event");
  if (!s.ok()) return s;
  ProbeResult& p = e->probe;
  p.src = j["src"].get<std::string>();
  p.dst = j["dst"].get<std::string>();
  p.size = static_cast<int>(j["size"].get<double>());
  p.sent = static_cast<long long>(j["sent"].get<double>());
  p.lost = static_cast<long long>(j["lost"].get<double>());
  p.rtt_p50 = j.contains("rtt_us_p50") && j["rtt_us_p50"].is_number() ? j["rtt_us_p50"].get<double>() : NAN;
  p.rtt_p99 = j.contains("rtt_us_p99") && j["rtt_us_p99"].is_number() ? j["rtt_us_p99"].get<double>() : NAN;
  if (p.sent <= 0 || p.lost < 0 || p.lost > p.sent || p.size < 0)
    return Status::InvalidArgument("probe event: needs sent > 0 and 0 <= lost <= sent");
  e->at = TimeValue(j, "at");
  return Status::Ok();
}

}  // namespace

std::string_view ToString(EventType t) {
  for (const auto& [k, name] : kTypes)
    if (k == t) return name;
  return "log";
}

std::optional<EventType> ParseEventType(std::string_view s) {
  for (const auto& [k, name] : kTypes)
    if (name == s) return k;
  return std::nullopt;
}

Status DecodeEvent(const json& j, std::string_view default_node, DecodedEvent* out) {
  if (!j.is_object()) return Status::InvalidArgument("event: not a JSON object");
  Status s = CheckString(j, "id", "event", true);
  if (s.ok()) s = CheckString(j, "type", "event", true);
  if (s.ok()) s = CheckString(j, "node", "event");
  if (s.ok()) s = CheckNumber(j, "read_at", "event");
  if (s.ok()) s = CheckString(j, "job", "event");
  if (!s.ok()) return s;
  DecodedEvent e;
  if (auto r = j.find("read_at"); r != j.end() && r->is_number()) {
    e.read_at = r->get<double>();
    if (!std::isfinite(e.read_at)) return Status::InvalidArgument("event.read_at must be a finite number");
  }
  if (auto g = j.find("job"); g != j.end() && g->is_string()) {
    e.job = g->get<std::string>();
    if (!e.job.empty() && !IsSafeName(e.job)) return Status::InvalidArgument("event.job must be a job id");
  }
  e.id = j["id"].get<std::string>();
  if (!IsSafeName(e.id))
    return Status::InvalidArgument("event: id must be 1 to 200 letters, digits or . _ - : @ + =");
  const std::string type = j["type"].get<std::string>();
  auto t = ParseEventType(type);
  if (!t) return Status::InvalidArgument("event: unknown type \"" + SanitizeForOutput(type, 64) + "\"");
  e.type = *t;
  e.node = j.contains("node") && j["node"].is_string() ? j["node"].get<std::string>() : std::string(default_node);
  if (!IsSafeName(e.node)) return Status::InvalidArgument("event: node must be a host name");
  switch (e.type) {
    case EventType::kLog:
      if (!j.contains("node")) {
        json copy = j;
        copy["node"] = e.node;
        s = DecodeLog(copy, &e);
      } else {
        s = DecodeLog(j, &e);
      }
      break;
    case EventType::kCcl: s = DecodeCcl(j, &e); break;
    case EventType::kFacts: s = DecodeFacts(j, &e); break;
    case EventType::kMetric: s = DecodeMetric(j, &e); break;
    case EventType::kHeartbeat: s = DecodeHeartbeat(j, &e); break;
    case EventType::kProbe: s = DecodeProbe(j, &e); break;
  }
  if (!s.ok()) return s;
  *out = std::move(e);
  return Status::Ok();
}

std::string CclFileOf(std::string_view node, std::string_view file) {
  const size_t slash = file.rfind('/');
  std::string_view base = slash == std::string_view::npos ? file : file.substr(slash + 1);
  std::string out = "nodes/" + std::string(node) + "/ccl/" + std::string(base);
  if (base.find(".jsonl") == std::string_view::npos) out += ".jsonl";  // what a bundle reader looks for
  return out;
}

std::string MetricFileOf(std::string_view metric) { return "metrics/" + std::string(metric) + ".json"; }

}  // namespace aegis::controller
