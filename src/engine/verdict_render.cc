#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "common/text.h"
#include "engine/verdict.h"

namespace aegis {

std::string VerdictToJson(const Verdict& v) {
  using json = nlohmann::ordered_json;  // fields in the order of spec/verdict.md
  json j;
  j["format"] = 1;
  j["job"] = v.job;
  j["kind"] = v.kind;
  j["action"] = v.action;
  j["cause"] = v.cause;
  j["stage"] = v.stage;
  j["isolate"] = json::array();
  for (const auto& e : v.isolate) {
    json o = {{"host", e.host}, {"component", e.component}};
    o["device"] = e.device.empty() ? json(nullptr) : json(e.device);
    j["isolate"].push_back(o);
  }
  j["repair"] = json::array();
  for (const auto& r : v.repair) {
    json o = {{"host", r.host}, {"component", r.component}};
    if (!r.key.empty()) o["key"] = r.key;
    if (!r.device.empty()) o["device"] = r.device;
    if (!r.switch_name.empty()) o["switch"] = r.switch_name;
    if (!r.value.empty()) o["value"] = r.value;
    if (!r.expected.empty()) o["expected"] = r.expected;
    j["repair"].push_back(o);
  }
  j["offline"] = v.offline;
  j["evidence"] = json::array();
  for (const auto& e : v.evidence)
    j["evidence"].push_back(
        {{"host", e.host}, {"file", e.file}, {"line", e.line}, {"rule", e.rule}, {"text", SanitizeForOutput(e.text)}});
  j["missing"] = v.missing;
  if (!v.unreadable.empty()) {
    j["unreadable"] = json::array();
    for (const auto& u : v.unreadable) j["unreadable"].push_back({{"file", u.file}, {"reason", u.reason}});
  }
  j["summary"] = v.summary;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string VerdictToText(const Verdict& v) {
  std::string out;
  const char* verb = v.action == "isolate"   ? "ISOLATE"
                     : v.action == "repair"  ? "REPAIR"
                     : v.action == "none"    ? "NOTHING TO ISOLATE"
                                             : "OFFLINE DIAGNOSIS";
  out += fmt::format("{}: {}\n", verb, v.summary);
  out += fmt::format("  job {} ({}), cause: {}, decided by: {}\n", v.job.empty() ? "?" : v.job, v.kind, v.cause, v.stage);
  for (const auto& e : v.isolate)
    out += fmt::format("  isolate {}  {}{}\n", e.host, e.component, e.device.empty() ? "" : " " + e.device);
  for (const auto& r : v.repair) {
    out += fmt::format("  repair  {}  {}", r.host, r.component);
    if (!r.key.empty()) out += " " + r.key;
    if (!r.device.empty()) out += " " + r.device;
    if (!r.switch_name.empty()) out += " on " + r.switch_name;
    if (!r.value.empty() || !r.expected.empty())
      out += fmt::format(" (has {}, expected {})", r.value.empty() ? "nothing" : r.value, r.expected);
    out += "\n";
  }
  if (!v.offline.empty()) {
    out += fmt::format("  offline ({} hosts):", v.offline.size());
    for (size_t i = 0; i < v.offline.size() && i < 16; ++i) out += " " + v.offline[i];
    if (v.offline.size() > 16) out += " ...";
    out += "\n";
  }
  if (!v.evidence.empty()) {
    out += "\nEvidence:\n";
    for (const auto& e : v.evidence) {
      std::string where = e.line > 0 ? fmt::format("{}:{}", e.file, e.line) : e.file;
      out += fmt::format("  {}  [{}]\n      {}\n", where, e.rule, SanitizeForOutput(e.text, 300));
    }
  }
  if (!v.missing.empty()) {
    out += fmt::format("\nMissing ({}):", v.missing.size());
    for (size_t i = 0; i < v.missing.size() && i < 12; ++i) out += " " + v.missing[i];
    if (v.missing.size() > 12) out += " ...";
    out += "\n";
  }
  for (const auto& u : v.unreadable) out += fmt::format("Unreadable: {}: {}\n", u.file, u.reason);
  return out;
}

}  // namespace aegis
