#include "wire/log_event.h"

#include <cmath>

#include "logs/event_aggregate.h"

namespace aegis {

std::string_view ToString(SourceKind k) {
  switch (k) {
    case SourceKind::kKernel: return "kernel";
    case SourceKind::kTrain: return "train";
    case SourceKind::kSwitch: return "switch";
  }
  return "kernel";
}

std::optional<SourceKind> ParseSourceKind(std::string_view s) {
  if (s == "kernel") return SourceKind::kKernel;
  if (s == "train") return SourceKind::kTrain;
  if (s == "switch") return SourceKind::kSwitch;
  return std::nullopt;
}

}  // namespace aegis

namespace aegis::wire {

using nlohmann::json;

json LogEventToWire(const WireLogEvent& w) {
  const LogEvent& e = w.event;
  json j;
  j["type"] = "log";
  j["node"] = w.node;
  j["source"] = ToString(w.source);
  j["file"] = w.file;
  j["line"] = e.line;
  j["first_line"] = e.first_line;
  j["last_line"] = e.last_line;
  j["ts"] = std::isnan(e.ts) ? json(nullptr) : json(e.ts);
  j["ts_exact"] = e.ts_exact;
  j["ts_zoned"] = e.ts_zoned;
  j["rule"] = e.rule_id;
  j["class"] = ToString(e.line_class);
  j["component"] = ToString(e.component);
  j["xid"] = e.xid >= 0 ? json(e.xid) : json(nullptr);
  j["rank"] = e.rank >= 0 ? json(e.rank) : json(nullptr);
  j["nccl_device"] = e.nccl_device >= 0 ? json(e.nccl_device) : json(nullptr);
  j["cascade"] = e.cascade;
  j["yields_to_user"] = e.yields_to_user;
  if (e.fallback) j["fallback"] = true;  // optional: absent means false
  j["key"] = e.config_key;
  j["traceback_line"] = e.traceback_line;
  json fields = json::object();
  for (const auto& [k, v] : e.fields) fields[k] = v;
  j["fields"] = std::move(fields);
  j["text"] = e.text;
  if (e.count > 1) {  // repeats of this evidence shipped as a count (logs/event_aggregate.h)
    j["count"] = e.count;
    j["latest_line"] = e.LatestLine();
    j["latest_ts"] = std::isnan(e.LatestTs()) ? json(nullptr) : json(e.LatestTs());
    json samples = json::array();
    for (const auto& s : e.samples) samples.push_back({{"line", s.line}, {"text", s.text}});
    j["samples"] = std::move(samples);
  }
  return j;
}

namespace {

// Reads an optional member of the given JSON kind; a member of another kind is an error.
template <typename T>
Status Get(const json& j, const char* key, T* out, bool required = false) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    return required ? Status::InvalidArgument(std::string("log event: \"") + key + "\" is missing") : Status::Ok();
  }
  try {
    if constexpr (std::is_same_v<T, std::string>) {
      if (!it->is_string()) throw json::type_error::create(302, "not a string", nullptr);
    } else if constexpr (std::is_same_v<T, bool>) {
      if (!it->is_boolean()) throw json::type_error::create(302, "not a boolean", nullptr);
    } else {
      if (!it->is_number()) throw json::type_error::create(302, "not a number", nullptr);
      if constexpr (std::is_integral_v<T>)
        if (!it->is_number_integer() || (std::is_unsigned_v<T> && it->get<long long>() < 0))
          throw json::type_error::create(302, "not a whole number", nullptr);
    }
    *out = it->get<T>();
  } catch (const json::exception&) {
    return Status::InvalidArgument(std::string("log event: \"") + key + "\" has the wrong type");
  }
  return Status::Ok();
}

// "count", "latest_line", "latest_ts" and "samples": the records after the first that
// the event stands for. Absent: one record.
Status RepeatsFromWire(const json& j, LogEvent* e) {
  Status s;
  auto step = [&](Status st) {
    if (s.ok() && !st.ok()) s = st;
  };
  uint64_t latest_line = 0;
  double latest_ts = NAN;
  step(Get(j, "count", &e->count));
  step(Get(j, "latest_line", &latest_line));
  step(Get(j, "latest_ts", &latest_ts));
  if (!s.ok()) return s;
  if (e->count == 0) return Status::InvalidArgument("log event: count must be at least 1");
  auto samples = j.find("samples");
  const bool has_samples = samples != j.end() && !samples->is_null();
  if (e->count == 1) {
    if ((latest_line != 0 && latest_line != e->line) || (has_samples && !samples->empty()))
      return Status::InvalidArgument("log event: latest_line and samples need a count above 1");
    return Status::Ok();
  }
  if (latest_line == 0) latest_line = e->line;
  if (latest_line < e->line) return Status::InvalidArgument("log event: latest_line before line");
  e->latest_line = latest_line;
  e->latest_ts = latest_ts;
  if (!has_samples) return Status::Ok();
  if (!samples->is_array()) return Status::InvalidArgument("log event: \"samples\" is not an array");
  if (samples->size() > kMaxEventSamples || samples->size() >= e->count)
    return Status::InvalidArgument("log event: more samples than the count allows");
  uint64_t after = e->line;
  for (const auto& sample : *samples) {
    EventSample out;
    if (!sample.is_object()) return Status::InvalidArgument("log event: a sample is not an object");
    step(Get(sample, "line", &out.line, true));
    step(Get(sample, "text", &out.text, true));
    if (!s.ok()) return Status::InvalidArgument("log event: a sample needs a whole \"line\" and a \"text\"");
    if (out.line <= after || out.line > latest_line)
      return Status::InvalidArgument("log event: sample lines must increase, after line and up to latest_line");
    after = out.line;
    e->samples.push_back(std::move(out));
  }
  return Status::Ok();
}

}  // namespace

Status LogEventFromWire(const json& j, WireLogEvent* out) {
  if (!j.is_object()) return Status::InvalidArgument("log event: not a JSON object");
  WireLogEvent w;
  LogEvent& e = w.event;
  std::string type, source, cls, component;
  Status s;
  auto step = [&](Status st) {
    if (s.ok() && !st.ok()) s = st;
  };
  step(Get(j, "type", &type, true));
  step(Get(j, "node", &w.node, true));
  step(Get(j, "source", &source, true));
  step(Get(j, "file", &w.file, true));
  step(Get(j, "line", &e.line, true));
  step(Get(j, "first_line", &e.first_line));
  step(Get(j, "last_line", &e.last_line));
  double ts = NAN;
  step(Get(j, "ts", &ts));
  e.ts = ts;
  step(Get(j, "ts_exact", &e.ts_exact));
  step(Get(j, "ts_zoned", &e.ts_zoned));
  step(Get(j, "rule", &e.rule_id, true));
  step(Get(j, "class", &cls, true));
  step(Get(j, "component", &component, true));
  step(Get(j, "xid", &e.xid));
  step(Get(j, "rank", &e.rank));
  step(Get(j, "nccl_device", &e.nccl_device));
  step(Get(j, "cascade", &e.cascade));
  step(Get(j, "yields_to_user", &e.yields_to_user));
  step(Get(j, "fallback", &e.fallback));
  step(Get(j, "key", &e.config_key));
  step(Get(j, "traceback_line", &e.traceback_line));
  step(Get(j, "text", &e.text));
  if (!s.ok()) return s;
  if (type != "log") return Status::InvalidArgument("log event: type \"" + type + "\" is not \"log\"");
  if (w.node.empty()) return Status::InvalidArgument("log event: empty node");
  if (e.line == 0) return Status::InvalidArgument("log event: line must be at least 1");
  if (e.first_line == 0) e.first_line = e.line;
  if (e.last_line == 0) e.last_line = e.line;
  if (e.first_line > e.line || e.last_line < e.line)
    return Status::InvalidArgument("log event: line outside [first_line, last_line]");
  auto src = ParseSourceKind(source);
  if (!src) return Status::InvalidArgument("log event: unknown source \"" + source + "\"");
  w.source = *src;
  try {
    e.line_class = LineClassFromString(cls);
  } catch (const std::invalid_argument&) {
    return Status::InvalidArgument("log event: unknown class \"" + cls + "\"");
  }
  auto comp = ParseComponent(component);
  if (!comp) return Status::InvalidArgument("log event: unknown component \"" + component + "\"");
  e.component = *comp;
  if (Status r = RepeatsFromWire(j, &e); !r.ok()) return r;
  if (auto f = j.find("fields"); f != j.end() && !f->is_null()) {
    if (!f->is_object()) return Status::InvalidArgument("log event: \"fields\" is not an object");
    for (auto it = f->begin(); it != f->end(); ++it) {
      if (!it->is_string()) return Status::InvalidArgument("log event: field \"" + it.key() + "\" is not a string");
      e.fields.emplace_back(it.key(), it->get<std::string>());
    }
  }
  *out = std::move(w);
  return Status::Ok();
}

std::string EncodeLogEvent(std::string_view id, const WireLogEvent& e) {
  json j = LogEventToWire(e);
  j["id"] = id;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace aegis::wire
