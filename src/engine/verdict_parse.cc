// VerdictFromJson: the reader of what VerdictToJson writes (verdict_render.cc).
#include <nlohmann/json.hpp>

#include "common/json_check.h"
#include "engine/verdict.h"

namespace aegis {

namespace {

using nlohmann::json;

std::string Str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A vocabulary field: required, and one of its words.
template <typename T, typename Parse>
Status Word(const json& j, const char* key, std::string_view path, Parse parse, T* out) {
  if (Status s = CheckString(j, key, path, true); !s.ok()) return s;
  auto v = parse(j[key].get<std::string>());
  if (!v) return Status::InvalidArgument(std::string(path) + "." + key + ": \"" + j[key].get<std::string>() + "\" is not known");
  *out = *v;
  return Status::Ok();
}

Status EvidenceList(const json& j, const char* key, std::vector<Evidence>* out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status::Ok();
  if (!it->is_array()) return Status::InvalidArgument(std::string("verdict.") + key + " must be an array");
  for (const json& e : *it) {
    const std::string path = std::string("verdict.") + key + "[]";
    if (!e.is_object()) return Status::InvalidArgument(path + " must be an object");
    Status s = CheckString(e, "host", path);
    if (s.ok()) s = CheckString(e, "file", path);
    if (s.ok()) s = CheckInteger(e, "line", path);
    if (s.ok()) s = CheckInteger(e, "count", path);
    if (s.ok()) s = CheckInteger(e, "latest_line", path);
    if (s.ok()) s = CheckNumber(e, "latest_ts", path);
    if (!s.ok()) return s;
    Evidence ev;
    ev.host = Str(e, "host");
    ev.file = Str(e, "file");
    ev.rule = Str(e, "rule");
    ev.text = Str(e, "text");
    if (e.contains("line") && e["line"].is_number()) ev.line = e["line"].get<long long>();
    if (e.contains("count") && e["count"].is_number()) ev.count = e["count"].get<unsigned long long>();
    if (e.contains("latest_line") && e["latest_line"].is_number()) ev.latest_line = e["latest_line"].get<long long>();
    if (e.contains("latest_ts") && e["latest_ts"].is_number()) ev.latest_ts = e["latest_ts"].get<double>();
    out->push_back(std::move(ev));
  }
  return Status::Ok();
}

Status Strings(const json& j, const char* key, std::vector<std::string>* out) {
  if (Status s = CheckStringArray(j, key, "verdict"); !s.ok()) return s;
  if (auto it = j.find(key); it != j.end() && it->is_array())
    for (const json& v : *it) out->push_back(v.get<std::string>());
  return Status::Ok();
}

}  // namespace

Status VerdictFromJson(std::string_view text, Verdict* out) {
  json j;
  if (Status s = ParseJsonObject(text, "verdict", &j); !s.ok()) return s;
  Verdict v;
  Status s = CheckString(j, "job", "verdict");
  if (s.ok()) s = Word(j, "kind", "verdict", ParseKind, &v.kind);
  if (s.ok()) s = Word(j, "action", "verdict", ParseAction, &v.action);
  if (s.ok()) s = Word(j, "cause", "verdict", ParseCause, &v.cause);
  if (s.ok()) s = Word(j, "stage", "verdict", ParseStage, &v.stage);
  if (s.ok()) s = CheckString(j, "summary", "verdict");
  if (!s.ok()) return s;
  v.job = Str(j, "job");
  v.summary = Str(j, "summary");
  for (const char* list : {"isolate", "repair"}) {
    auto it = j.find(list);
    if (it == j.end() || it->is_null()) continue;
    if (!it->is_array()) return Status::InvalidArgument(std::string("verdict.") + list + " must be an array");
    for (const json& e : *it) {
      const std::string path = std::string("verdict.") + list + "[]";
      if (!e.is_object()) return Status::InvalidArgument(path + " must be an object");
      Component component = Component::kHost;
      s = CheckString(e, "host", path, true);
      if (s.ok()) s = Word(e, "component", path, ParseComponent, &component);
      for (const char* k : {"device", "key", "switch", "value", "expected"})
        if (s.ok()) s = CheckString(e, k, path);
      if (!s.ok()) return s;
      if (std::string_view(list) == "isolate") {
        v.isolate.push_back({Str(e, "host"), component, Str(e, "device")});
      } else {
        RepairEntry r;
        r.host = Str(e, "host");
        r.component = component;
        r.key = Str(e, "key");
        r.device = Str(e, "device");
        r.value = Str(e, "value");
        r.expected = Str(e, "expected");
        r.switch_name = Str(e, "switch");
        v.repair.push_back(std::move(r));
      }
    }
  }
  if (s = Strings(j, "offline", &v.offline); !s.ok()) return s;
  if (s = Strings(j, "missing", &v.missing); !s.ok()) return s;
  if (s = EvidenceList(j, "evidence", &v.evidence); !s.ok()) return s;
  if (s = EvidenceList(j, "history", &v.history); !s.ok()) return s;
  if (auto u = j.find("unreadable"); u != j.end() && !u->is_null()) {
    if (!u->is_array()) return Status::InvalidArgument("verdict.unreadable must be an array");
    for (const json& e : *u) {
      if (!e.is_object()) return Status::InvalidArgument("verdict.unreadable[] must be an object");
      v.unreadable.push_back({Str(e, "file"), Str(e, "reason")});
    }
  }
  if (auto c = j.find("confidence"); c != j.end() && !c->is_null()) {
    if (!c->is_object()) return Status::InvalidArgument("verdict.confidence must be an object");
    s = Word(*c, "level", "verdict.confidence", ParseStrength, &v.confidence.level);
    if (s.ok()) s = CheckNumber(*c, "score", "verdict.confidence");
    if (s.ok()) s = CheckString(*c, "basis", "verdict.confidence");
    if (!s.ok()) return s;
    if (c->contains("score") && (*c)["score"].is_number()) v.confidence.score = (*c)["score"].get<double>();
    v.confidence.basis = Str(*c, "basis");
  }
  *out = std::move(v);
  return Status::Ok();
}

}  // namespace aegis
