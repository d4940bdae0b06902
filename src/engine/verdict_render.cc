#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "common/text.h"
#include "engine/verdict.h"

namespace aegis {

std::string VerdictToJson(const Verdict& v) {
  using json = nlohmann::ordered_json;  // fields in the order of docs/formats.md
  json j;
  j["format"] = 1;
  j["job"] = v.job;
  j["kind"] = ToString(v.kind);
  j["action"] = ToString(v.action);
  j["cause"] = ToString(v.cause);
  j["stage"] = ToString(v.stage);
  j["isolate"] = json::array();
  for (const auto& e : v.isolate) {
    json o = {{"host", e.host}, {"component", ToString(e.component)}};
    o["device"] = e.device.empty() ? json(nullptr) : json(e.device);
    j["isolate"].push_back(o);
  }
  j["repair"] = json::array();
  for (const auto& r : v.repair) {
    json o = {{"host", r.host}, {"component", ToString(r.component)}};
    if (!r.key.empty()) o["key"] = r.key;
    if (!r.device.empty()) o["device"] = r.device;
    if (!r.switch_name.empty()) o["switch"] = r.switch_name;
    if (!r.value.empty()) o["value"] = r.value;
    if (!r.expected.empty()) o["expected"] = r.expected;
    j["repair"].push_back(o);
  }
  j["offline"] = v.offline;
  auto evidence = [](const std::vector<Evidence>& list) {
    json a = json::array();
    for (const auto& e : list) {
      json o = {{"host", e.host}, {"file", e.file}, {"line", e.line}, {"rule", e.rule}, {"text", SanitizeForOutput(e.text)}};
      if (e.count > 1) {  // a repeated line: how often, and its last record
        o["count"] = e.count;
        o["latest_line"] = e.latest_line;
        o["latest_ts"] = std::isnan(e.latest_ts) ? json(nullptr) : json(e.latest_ts);
      }
      a.push_back(std::move(o));
    }
    return a;
  };
  j["evidence"] = evidence(v.evidence);
  j["missing"] = v.missing;
  if (!v.unreadable.empty()) {
    j["unreadable"] = json::array();
    for (const auto& u : v.unreadable) j["unreadable"].push_back({{"file", u.file}, {"reason", u.reason}});
  }
  j["confidence"] = {{"level", ToString(v.confidence.level)},
                     {"score", std::round(v.confidence.score * 100) / 100},
                     {"basis", v.confidence.basis}};
  if (!v.history.empty()) j["history"] = evidence(v.history);
  j["summary"] = v.summary;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

namespace {

// 812345 -> "812,345".
std::string Grouped(unsigned long long n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// "  (x812,345, last at line 913,402)" for a repeated line; "" for a single one.
std::string Repeats(const Evidence& e) {
  if (e.count <= 1) return {};
  return fmt::format("  (x{}, last at line {})", Grouped(e.count),
                     Grouped(static_cast<unsigned long long>(std::max(0LL, e.latest_line))));
}

}  // namespace

std::string VerdictToText(const Verdict& v) {
  std::string out;
  const char* verb = v.action == Action::kIsolate  ? "ISOLATE"
                     : v.action == Action::kRepair ? "REPAIR"
                     : v.action == Action::kNone   ? "NOTHING TO ISOLATE"
                                                   : "OFFLINE DIAGNOSIS";
  out += fmt::format("{}: {}\n", verb, v.summary);
  out += fmt::format("  job {} ({}), cause: {}, decided by: {}, confidence: {} ({})\n", v.job.empty() ? "?" : v.job,
                     ToString(v.kind), ToString(v.cause), ToString(v.stage), ToString(v.confidence.level),
                     v.confidence.basis);
  for (const auto& e : v.isolate)
    out += fmt::format("  isolate {}  {}{}\n", e.host, ToString(e.component), e.device.empty() ? "" : " " + e.device);
  for (const auto& r : v.repair) {
    out += fmt::format("  repair  {}  {}", r.host, ToString(r.component));
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
      out += fmt::format("  {}  [{}]{}\n      {}\n", where, e.rule, Repeats(e), SanitizeForOutput(e.text, 300));
    }
  }
  if (!v.history.empty()) {
    out += "\nHistory (outside the job's time window; not a cause, check these hosts before reuse):\n";
    for (const auto& e : v.history)
      out += fmt::format("  {}:{}  [{}]{}\n      {}\n", e.file, e.line, e.rule, Repeats(e), SanitizeForOutput(e.text, 300));
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
