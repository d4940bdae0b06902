#include "controller/api_bodies.h"

#include <cmath>
#include <set>

#include "bundle/bundle_reader.h"
#include "common/json_check.h"
#include "common/text.h"
#include "common/vocabulary.h"
#include "controller/event_classes.h"
#include "controller/iso_time.h"

namespace aegis::controller {

using nlohmann::json;

namespace {

// A Reporter that keeps the first problem a lenient reader reports.
class FirstProblem : public Reporter {
 public:
  void Report(std::string_view where, const Status& status) override {
    if (first.ok() && !status.ok()) first = Status::InvalidArgument(std::string(where) + ": " + status.message());
  }
  Status first;
};

Status CheckJobFields(const json& j) {
  Status s = CheckString(j, "id", "job", true);
  if (s.ok()) s = CheckString(j, "state", "job");
  if (s.ok()) s = CheckTime(j, "started_at", "job");
  if (s.ok()) s = CheckTime(j, "ended_at", "job");
  if (s.ok()) s = CheckStringArray(j, "hosts", "job", true);
  if (!s.ok()) return s;
  if (auto r = j.find("ranks"); r != j.end() && !r->is_null()) {
    if (!r->is_array()) return Status::InvalidArgument("job.ranks must be an array");
    for (size_t i = 0; i < r->size(); ++i) {
      const std::string path = "job.ranks[" + std::to_string(i) + "]";
      const json& rank = (*r)[i];
      if (!rank.is_object()) return Status::InvalidArgument(path + " must be an object");
      s = CheckInteger(rank, "rank", path, true);
      if (s.ok()) s = CheckString(rank, "host", path);
      if (s.ok()) s = CheckInteger(rank, "gpu", path);
      if (!s.ok()) return s;
    }
  }
  if (auto it = j.find("iteration_seconds"); it != j.end() && !it->is_null()) {
    if (!it->is_array()) return Status::InvalidArgument("job.iteration_seconds must be an array of numbers");
    for (size_t i = 0; i < it->size(); ++i)
      if (!(*it)[i].is_number())
        return Status::InvalidArgument("job.iteration_seconds[" + std::to_string(i) + "] must be a number");
  }
  return Status::Ok();
}

Status CheckTopologyFields(const json& j) {
  auto nodes = j.find("nodes");
  if (nodes == j.end() || !nodes->is_array()) return Status::InvalidArgument("topology.nodes must be an array");
  Status s;
  for (size_t i = 0; i < nodes->size(); ++i) {
    const std::string path = "topology.nodes[" + std::to_string(i) + "]";
    const json& n = (*nodes)[i];
    if (!n.is_object()) return Status::InvalidArgument(path + " must be an object");
    s = CheckString(n, "host", path, true);
    if (s.ok()) s = CheckString(n, "pod", path);
    if (s.ok()) s = CheckString(n, "mgmt_ip", path);
    if (!s.ok()) return s;
    for (const char* list : {"gpus", "nics"}) {
      auto it = n.find(list);
      if (it == n.end() || it->is_null()) continue;
      if (!it->is_array()) return Status::InvalidArgument(path + "." + list + " must be an array");
      for (size_t k = 0; k < it->size(); ++k) {
        const std::string p = path + "." + list + "[" + std::to_string(k) + "]";
        const json& e = (*it)[k];
        if (!e.is_object()) return Status::InvalidArgument(p + " must be an object");
        if (std::string_view(list) == "gpus") {
          s = CheckInteger(e, "index", p);
          if (s.ok()) s = CheckString(e, "pci", p);
          if (s.ok()) s = CheckString(e, "uuid", p);
        } else {
          s = CheckString(e, "name", p);
          if (s.ok()) s = CheckString(e, "ip", p);
          if (s.ok()) s = CheckInteger(e, "rail", p);
          if (s.ok()) s = CheckStringOrStrings(e, "switch", p);
          if (s.ok()) s = CheckStringOrStrings(e, "port", p);
        }
        if (!s.ok()) return s;
      }
    }
  }
  if (auto sw = j.find("switches"); sw != j.end() && !sw->is_null()) {
    if (!sw->is_array()) return Status::InvalidArgument("topology.switches must be an array");
    for (size_t i = 0; i < sw->size(); ++i) {
      const std::string path = "topology.switches[" + std::to_string(i) + "]";
      const json& e = (*sw)[i];
      if (!e.is_object()) return Status::InvalidArgument(path + " must be an object");
      s = CheckString(e, "name", path, true);
      if (s.ok()) s = CheckInteger(e, "tier", path);
      if (s.ok()) s = CheckString(e, "pod", path);
      if (s.ok()) s = CheckStringOrStrings(e, "uplinks", path);
      if (!s.ok()) return s;
    }
  }
  return Status::Ok();
}

// Why an event is not the caller's to send (policy.node), or "" when it is.
std::string ForeignReason(const wire::DecodedEvent& d, const std::string& node) {
  const std::string mine = "this token speaks for node " + node + " only";
  if (d.node != node) return "the event is about node " + SanitizeForOutput(d.node, 64) + ": " + mine;
  if (d.type == wire::EventType::kLog) {
    if (d.log.source == SourceKind::kSwitch) return "a switch log is not a node's: " + mine;
    if (d.log.file != "nodes/" + node + "/kernel.log" && d.log.file != "nodes/" + node + "/train.log")
      return "file \"" + SanitizeForOutput(d.log.file, 128) + "\" is not this node's kernel.log or train.log: " + mine;
  }
  if (d.type == wire::EventType::kProbe && d.probe.src != node)
    return "a probe sent from " + SanitizeForOutput(d.probe.src, 64) + ": " + mine;
  return "";
}

}  // namespace

Status ParseEventBatch(std::string_view body, const EventPolicy& policy, EventBatch* out) {
  *out = EventBatch();
  json j;
  if (Status s = ParseJsonObject(body, "events", &j); !s.ok()) return s;
  Status s = CheckString(j, "node", "batch", true);
  if (s.ok()) s = CheckString(j, "agent", "batch", true);
  if (!s.ok()) return s;
  out->node = j["node"].get<std::string>();
  out->agent = j["agent"].get<std::string>();
  if (!IsSafeName(out->node)) return Status::InvalidArgument("batch.node must be a host name");
  if (!policy.node.empty() && out->node != policy.node)
    return Status::PermissionDenied("this token is node " + policy.node + "'s agent's: it may not post a batch from " +
                                    SanitizeForOutput(out->node, 64));
  if (out->agent.empty() || out->agent.size() > 200 || !IsValidUtf8(out->agent))
    return Status::InvalidArgument("batch.agent must be a non-empty identifier");
  auto events = j.find("events");
  if (events == j.end() || !events->is_array()) return Status::InvalidArgument("batch.events must be an array");
  for (size_t i = 0; i < events->size(); ++i) {
    json& ev = (*events)[i];
    auto decoded = std::make_shared<wire::DecodedEvent>();
    wire::DecodedEvent& d = *decoded;
    ++out->decodes;
    if (Status st = wire::DecodeEvent(ev, out->node, &d); !st.ok()) {
      std::string id;
      if (ev.is_object() && ev.contains("id") && ev["id"].is_string()) id = SanitizeForOutput(ev["id"].get<std::string>(), 200);
      out->rejected.push_back({i, id, st.message()});
      continue;
    }
    if (!policy.node.empty()) {
      if (std::string why = ForeignReason(d, policy.node); !why.empty()) {
        ++out->foreign;
        out->rejected.push_back({i, d.id, why});
        continue;
      }
    }
    if (d.type == wire::EventType::kLog && policy.catalog) {
      LogEvent& le = d.log.event;
      const LineClass sent = le.line_class;
      switch (ApplyCatalogClass(*policy.catalog, &le)) {
        case ClassCheck::kUnknownRule:
          ++out->unknown_rules;
          out->rejected.push_back({i, d.id, "rule \"" + SanitizeForOutput(le.rule_id, 128) +
                                                "\" is not in this controller's catalogue (give it the agent's --rules)"});
          continue;
        case ClassCheck::kCorrected:
          ++out->corrected;
          if (le.line_class != sent) ev["agent_class"] = ToString(sent);
          break;
        case ClassCheck::kAgreed: break;
      }
      // What is stored is what was decided: a reader of the event later sees the catalogue's class.
      ev["class"] = ToString(le.line_class);
      ev["component"] = ToString(le.component);
      ev["cascade"] = le.cascade;
      ev["yields_to_user"] = le.yields_to_user;
      if (le.fallback) ev["fallback"] = true;
      else ev.erase("fallback");
      ev["key"] = le.config_key;
    }
    if (!ev.contains("node")) ev["node"] = d.node;
    store::Event e;
    e.id = d.id;
    e.node = d.node;
    e.type = d.type;
    e.at = std::isfinite(d.at) ? d.at : NAN;
    e.body = ev.dump(-1, ' ', false, json::error_handler_t::replace);
    out->events.push_back(std::move(e));
    out->decoded.push_back(std::move(decoded));
    out->event_index.push_back(i);
  }
  return Status::Ok();
}

Status ParseJobStart(std::string_view body, double now, JobStart* out) {
  json j;
  if (Status s = ParseJsonObject(body, "job", &j); !s.ok()) return s;
  if (Status s = CheckJobFields(j); !s.ok()) return s;
  if (!IsSafeName(j["id"].get<std::string>()))
    return Status::InvalidArgument("job.id must be 1 to 200 letters, digits or . _ - : @ + =");
  if (j.contains("state") && j["state"].is_string()) {
    const std::string state = j["state"].get<std::string>();
    auto parsed = ParseJobState(state);
    if (!parsed) return Status::InvalidArgument("job.state \"" + SanitizeForOutput(state, 64) + "\" is not one of running, failed, hung, slow, done");
    if (*parsed != JobState::kRunning)
      return Status::InvalidArgument("job.state must be \"running\" when a job starts (end it with POST /api/v1/jobs/{id}/end)");
  }
  if (j["hosts"].empty()) return Status::InvalidArgument("job.hosts must list at least one host");
  std::set<std::string> hosts;
  for (const auto& h : j["hosts"]) {
    if (!IsSafeName(h.get<std::string>())) return Status::InvalidArgument("job.hosts: \"" + SanitizeForOutput(h.get<std::string>(), 64) + "\" is not a host name");
    if (!hosts.insert(h.get<std::string>()).second) return Status::InvalidArgument("job.hosts: " + h.get<std::string>() + " is listed twice");
  }
  j["state"] = "running";
  if (!j.contains("started_at") || j["started_at"].is_null()) j["started_at"] = FormatIsoTime(now);
  j.erase("ended_at");
  out->body = j.dump(-1, ' ', false, json::error_handler_t::replace);
  FirstProblem problems;
  if (Status s = ParseJob(out->body, &out->job, &problems); !s.ok()) return s;
  if (!problems.first.ok()) return problems.first;
  return Status::Ok();
}

Status ParseJobEnd(std::string_view body, JobEnd* out) {
  json j;
  if (Status s = ParseJsonObject(body, "job end", &j); !s.ok()) return s;
  Status s = CheckString(j, "state", "end", true);
  if (s.ok()) s = CheckTime(j, "ended_at", "end");
  if (!s.ok()) return s;
  const std::string state = j["state"].get<std::string>();
  auto parsed = ParseJobState(state);
  if (!parsed || *parsed == JobState::kRunning)
    return Status::InvalidArgument("end.state \"" + SanitizeForOutput(state, 64) + "\" is not one of failed, hung, slow, done");
  out->state = *parsed;
  out->ended_at = TimeValue(j, "ended_at");
  return Status::Ok();
}

Status ParseHostStateRequest(std::string_view body, HostStateRequest* out) {
  json j;
  if (Status s = ParseJsonObject(body, "host state", &j); !s.ok()) return s;
  Status s = CheckString(j, "state", "host", true);
  if (s.ok()) s = CheckString(j, "reason", "host");
  if (s.ok()) s = CheckString(j, "incident", "host");
  if (!s.ok()) return s;
  const std::string state = j["state"].get<std::string>();
  auto parsed = store::ParseHostState(state);
  if (!parsed)
    return Status::InvalidArgument("host.state \"" + SanitizeForOutput(state, 64) +
                                   "\" is not one of in_service, isolated, repair, offline, held");
  out->state = *parsed;
  out->reason = j.contains("reason") && j["reason"].is_string() ? j["reason"].get<std::string>() : "";
  out->incident = j.contains("incident") && j["incident"].is_string() ? j["incident"].get<std::string>() : "";
  if (out->reason.size() > 4096) return Status::InvalidArgument("host.reason is longer than 4096 bytes");
  if (!out->incident.empty() && !IsSafeName(out->incident)) return Status::InvalidArgument("host.incident is not an incident id");
  return Status::Ok();
}

Status ParseTopologyBody(std::string_view body, Topology* out) {
  json j;
  if (Status s = ParseJsonObject(body, "topology", &j); !s.ok()) return s;
  if (Status s = CheckTopologyFields(j); !s.ok()) return s;
  std::set<std::string> hosts;
  for (const auto& n : j["nodes"]) {
    const std::string host = n["host"].get<std::string>();
    if (!IsSafeName(host)) return Status::InvalidArgument("topology: \"" + SanitizeForOutput(host, 64) + "\" is not a host name");
    if (!hosts.insert(host).second) return Status::InvalidArgument("topology: host " + host + " is listed twice");
  }
  FirstProblem problems;
  if (Status s = ParseTopology(body, out, &problems); !s.ok()) return s;
  if (!problems.first.ok()) return problems.first;
  return Status::Ok();
}

}  // namespace aegis::controller
