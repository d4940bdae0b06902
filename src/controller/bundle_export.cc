#include "controller/bundle_export.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <functional>
#include <tuple>
#include <fstream>
#include <map>
#include <set>

#include "bundle/bundle_reader.h"
#include "controller/iso_time.h"
#include "common/json_check.h"
#include "controller/redaction.h"
#include "controller/status_document.h"
#include "wire/event.h"

namespace aegis::controller {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

constexpr size_t kPage = 50000;
constexpr uint64_t kMaxLines = 5'000'000;  // a line number beyond this is not padded to

// "[2026-11-30T10:12:04.123456+00:00]" (zoned) or "[2026-11-30 10:12:04.123456]" (local
// time, as the original line had it). In brackets, so that what follows is never taken
// for a syslog host and tag.
std::string Stamp(double ts, bool zoned) {
  const double whole = std::floor(ts);
  const time_t s = static_cast<time_t>(whole);
  struct tm tm;
  gmtime_r(&s, &tm);
  char buf[40];
  strftime(buf, sizeof buf, zoned ? "%Y-%m-%dT%H:%M:%S" : "%Y-%m-%d %H:%M:%S", &tm);
  const long micros = std::lround((ts - whole) * 1e6) % 1000000;
  return fmt::format("[{}.{:06d}{}]", buf, micros, zoned ? "+00:00" : "");
}

struct LogLine {
  std::string text;
  bool header = false;  // a traceback header, yields to a real event at the same line
};

// One log file rebuilt from its events.
struct LogFileOut {
  std::map<uint64_t, LogLine> lines;
};

// The prefix of a record of `w` written at time `ts` (NaN: no stamp, the line inherits the
// time of the one before it, as the agent read it).
std::string LinePrefix(const wire::WireLogEvent& w, double ts) {
  const LogEvent& e = w.event;
  std::string p;
  if (e.ts_exact && std::isfinite(ts)) p = Stamp(ts, e.ts_zoned) + " ";
  if (w.source == SourceKind::kTrain && e.rank >= 0) p += "[rank" + std::to_string(e.rank) + "]: ";
  return p;
}

// Puts one record at `line` unless a real record is there already (a traceback header
// yields).
void PutRecord(LogFileOut& f, uint64_t line, std::string text) {
  LogLine& slot = f.lines[line];
  if (slot.text.empty() || slot.header) slot = LogLine{std::move(text), false};
}

std::string RenderLog(const LogFileOut& f) {
  std::string out;
  uint64_t next = 1;
  for (const auto& [line, l] : f.lines) {
    if (line > kMaxLines) break;
    for (; next < line; ++next) out += '\n';
    out += l.text;
    out += '\n';
    next = line + 1;
  }
  return out;
}

// Reads a store range page by page (ordered by time, then seq).
Status ForEachEvent(store::Store& store, store::EventRange range, const std::function<void(const store::Event&)>& fn) {
  range.limit = kPage;
  for (;;) {
    std::vector<store::Event> events;
    if (Status s = store.EventsInRange(range, &events); !s.ok()) return s;
    for (const auto& e : events) fn(e);
    if (events.size() < range.limit) return Status::Ok();
    range.after_time = store::RangeTime(events.back());  // the next page
    range.after_seq = events.back().seq;
  }
}

}  // namespace

Status ExportBundle(store::Store& store, const Rules& rules, const std::string& id, const ExportOptions& options,
                    ordered_json* out) {
  store::IncidentRecord inc;
  if (Status s = store.GetIncident(id, &inc); !s.ok()) return s;
  store::JobRecord job;
  if (Status s = store.GetJob(inc.job, &job); !s.ok()) return s;
  std::string topology_text;
  double topology_at = NAN;
  Status ts = store.GetTopology(&topology_text, &topology_at);
  if (!ts.ok() && !ts.IsNotFound()) return ts;
  if (ts.IsNotFound()) topology_text = "{\"nodes\": []}";

  std::map<std::string, std::string> files;
  files["topology.json"] = topology_text;

  // job.json as the decision saw it.
  json job_json = json::parse(job.body, nullptr, false);
  if (!job_json.is_object()) job_json = json::object();
  Job model;
  (void)ParseJob(job.body, &model, nullptr);
  const bool running_trigger = inc.trigger == store::Trigger::kCclStall || inc.trigger == store::Trigger::kCriticalError ||
                               (inc.trigger == store::Trigger::kSlow && job.state != store::JobState::kSlow);
  switch (inc.trigger) {
    case store::Trigger::kJobFailed:
    case store::Trigger::kCriticalError: job_json["state"] = "failed"; break;
    case store::Trigger::kJobHung:
    case store::Trigger::kCclStall: job_json["state"] = "hung"; break;
    case store::Trigger::kSlow: job_json["state"] = "slow"; break;
    case store::Trigger::kManual: break;
  }
  if (running_trigger) job_json.erase("ended_at");
  else if (!job_json.contains("ended_at")) job_json["ended_at"] = FormatIsoTime(inc.opened_at);

  // The job's window as the decision loop places events in it (LiveJob::InScope).
  Job window = model;
  window.id = inc.job;
  if (std::isnan(window.started_at)) window.started_at = job.started_at;
  window.ended_at = job.state == store::JobState::kRunning ? NAN
                    : std::isnan(job.ended_at)             ? job.updated_at
                                                           : job.ended_at;
  if (!std::isnan(window.started_at)) {
    std::vector<store::HistoryEntry> history;
    if (Status s = store.HistorySince(window.started_at, 100000, &history); !s.ok()) return s;
    window.not_before = ReturnsDuring(window, history);
  }
  if (!window.not_before.empty()) {
    json nb = json::object();
    for (const auto& [host, at] : window.not_before) nb[host] = at;
    job_json["not_before"] = std::move(nb);
  } else {
    job_json.erase("not_before");
  }
  files["job.json"] = job_json.dump(2);

  // Redaction: the names of topology.json and job.json first, so that host-001 is the
  // topology's first host; everything written later goes through the same names.
  Pseudonymizer names;
  LineRedactor redactor(rules.catalog, names);
  if (options.redact) {
    names.AddTopology(topology_text);
    names.AddJob(job_json);
  }

  std::vector<std::string> hosts = model.hosts;
  Topology topology;
  if (ParseTopology(topology_text, &topology, nullptr).ok())
    for (const auto& sw : topology.switches)
      if (!sw.name.empty()) hosts.push_back(sw.name);
  const double cutoff = inc.decided() ? inc.decided_at : INFINITY;
  const double from = std::isnan(model.started_at) ? -INFINITY : model.started_at - options.lookback_s;

  std::map<std::string, LogFileOut> logs;
  std::map<std::string, std::vector<std::pair<double, std::string>>> ccl;  // file -> (ts, line)
  std::map<std::string, std::map<std::tuple<std::string, std::string>, std::map<double, double>>> metrics;
  std::map<std::string, std::pair<double, json>> facts;  // host -> (received, facts)
  json probes = json::array();

  auto take = [&](const store::Event& e) {
    if (e.received_at > cutoff) return;
    json j = json::parse(e.body, nullptr, false);
    wire::DecodedEvent d;
    if (j.is_discarded() || !wire::DecodeEvent(j, e.node, &d).ok()) return;
    if (!InJobScope(d, e.received_at, window, options.scope)) return;
    switch (d.type) {
      case wire::EventType::kLog: {
        LogFileOut& f = logs[d.log.file];
        const LogEvent& ev = d.log.event;
        auto record_text = [&](const std::string& raw, double ts) {
          std::string text = options.redact ? redactor.Line(ev.rule_id, raw) : raw;
          return text.empty() ? text : LinePrefix(d.log, ts) + text;
        };
        PutRecord(f, ev.line, record_text(ev.text, ev.ts));
        // A storm the agent shipped as one event with a count: its last record is written
        // too, so that the rebuilt log spans the same lines and times (the job's window
        // reads an event's first and last records). The records between them are not
        // written: their times are not known, and a record without its time would be other
        // evidence (an inherited time) when the bundle is read; the count is in the
        // incident's verdict.
        if (ev.count > 1 && ev.latest_line > ev.line)
          PutRecord(f, ev.latest_line, record_text(ev.text, ev.latest_ts));
        if (const uint64_t tb = ev.traceback_line; tb > 0 && tb < ev.line && !f.lines.count(tb))
          f.lines[tb] = LogLine{LinePrefix(d.log, NAN) + "Traceback (most recent call last):", true};  // rank tag only
        break;
      }
      case wire::EventType::kCcl: {
        json record = j["record"];
        if (options.redact) names.Json(record);  // its host (or container) and pid
        ccl[d.ccl.file].emplace_back(d.ccl.ts, record.dump());
        break;
      }
      case wire::EventType::kFacts:
        if (!facts.count(d.node) || facts[d.node].first <= e.received_at) facts[d.node] = {e.received_at, j["facts"]};
        break;
      case wire::EventType::kMetric: {
        auto& samples = metrics[d.series.metric][{d.node, d.series.device}];
        for (size_t i = 0; i < d.series.t.size(); ++i) samples.emplace(d.series.t[i], d.series.v[i]);
        break;
      }
      case wire::EventType::kProbe: {
        json p = {{"src", d.probe.src}, {"dst", d.probe.dst}, {"size", d.probe.size}, {"sent", d.probe.sent},
                  {"lost", d.probe.lost}};
        if (std::isfinite(d.probe.rtt_p50)) p["rtt_us_p50"] = d.probe.rtt_p50;
        if (std::isfinite(d.probe.rtt_p99)) p["rtt_us_p99"] = d.probe.rtt_p99;
        probes.push_back(std::move(p));
        break;
      }
      case wire::EventType::kHeartbeat: break;
    }
  };
  store::EventRange range;
  range.hosts = model.hosts;
  range.types = {wire::EventType::kFacts};
  if (Status s = ForEachEvent(store, range, take); !s.ok()) return s;
  range.hosts = hosts;
  range.types = {wire::EventType::kLog, wire::EventType::kCcl, wire::EventType::kMetric};
  range.from = from;
  if (Status s = ForEachEvent(store, range, take); !s.ok()) return s;
  range.hosts.clear();
  range.types = {wire::EventType::kProbe};
  if (Status s = ForEachEvent(store, range, take); !s.ok()) return s;

  for (const auto& [file, f] : logs) files[file] = RenderLog(f);
  for (auto& [file, lines] : ccl) {
    // In the order the decision loop numbers them (LiveJob): by time, then arrival.
    std::stable_sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string text;
    for (const auto& [t, line] : lines) text += line + "\n";
    files[file] = std::move(text);
  }
  for (const auto& [host, f] : facts) files["nodes/" + host + "/facts.json"] = f.second.dump(2);
  for (const auto& [name, series] : metrics) {
    json result = json::array();
    for (const auto& [key, samples] : series) {
      json metric = {{"__name__", name}, {"host", std::get<0>(key)}};
      if (!std::get<1>(key).empty()) metric["device"] = std::get<1>(key);
      json values = json::array();
      for (const auto& [t, v] : samples) values.push_back({t, fmt::format("{}", v)});
      result.push_back({{"metric", std::move(metric)}, {"values", std::move(values)}});
    }
    json body = {{"status", "success"}, {"data", {{"resultType", "matrix"}, {"result", std::move(result)}}}};
    files[wire::MetricFileOf(name)] = body.dump();
  }
  if (!probes.empty()) files["probes.json"] = probes.dump(2);
  ordered_json incident = IncidentJson(inc, true);
  std::string job_name = inc.job;
  if (options.redact) {
    // Log records and CCL snapshots were redacted as they were read; the JSON files and
    // every file's path are redacted here, with the same names.
    std::map<std::string, std::string> redacted;
    for (auto& [path, text] : files) {
      const bool whole_json = path == "topology.json" || path == "job.json" || path == "probes.json" ||
                              path.rfind("metrics/", 0) == 0 ||
                              (path.size() > 11 && path.compare(path.size() - 11, 11, "/facts.json") == 0);
      if (whole_json) {
        ordered_json j = ordered_json::parse(text, nullptr, false);
        if (j.is_discarded()) text = names.Text(text);
        else {
          names.Json(j);
          text = path.rfind("metrics/", 0) == 0 ? j.dump() : j.dump(2);
        }
      }
      redacted[names.FilePath(path)] = std::move(text);
    }
    files = std::move(redacted);
    RedactIncident(incident, redactor, names);
    job_name = names.Name(Pseudonymizer::Kind::kJob, inc.job);
  }
  files["incident.json"] = incident.dump(2);

  ordered_json doc;
  doc["format"] = 1;
  doc["incident"] = inc.id;
  doc["job"] = job_name;
  doc["redacted"] = options.redact;
  doc["files"] = ordered_json::object();
  for (auto& [path, text] : files) doc["files"][path] = std::move(text);
  *out = std::move(doc);
  return Status::Ok();
}

Status WriteBundle(const json& document, const std::string& dir) {
  namespace fs = std::filesystem;
  if (!document.is_object() || !document.contains("files") || !document["files"].is_object())
    return Status::InvalidArgument("the bundle document has no \"files\" object");
  const json& files = document["files"];
  for (auto it = files.begin(); it != files.end(); ++it) {
    if (!IsSafeRelativePath(it.key())) return Status::InvalidArgument("the bundle names an unsafe path: " + it.key());
    if (!it->is_string()) return Status::InvalidArgument("the bundle's file " + it.key() + " is not text");
  }
  std::error_code ec;
  // A mistyped path is not made silently, and one incident is not written over another's
  // files: the directory is new, or empty, under a parent that exists.
  const fs::path parent = fs::absolute(fs::path(dir), ec).parent_path();
  if (!fs::is_directory(parent, ec)) return Status::NotFound(dir + ": " + parent.string() + " is not a directory");
  if (fs::exists(dir, ec) && (!fs::is_directory(dir, ec) || !fs::is_empty(dir, ec)))
    return Status::AlreadyExists(dir + ": exists and is not an empty directory");
  fs::create_directory(dir, ec);
  if (ec) return Status::IOError(dir + ": " + ec.message());
  for (auto it = files.begin(); it != files.end(); ++it) {
    const fs::path path = fs::path(dir) / it.key();
    fs::create_directories(path.parent_path(), ec);
    if (ec) return Status::IOError(path.parent_path().string() + ": " + ec.message());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    const std::string& text = it->get_ref<const std::string&>();
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) return Status::IOError(path.string() + ": cannot write");
  }
  return Status::Ok();
}

}  // namespace aegis::controller
