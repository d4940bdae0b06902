#include "controller/status_document.h"

#include <cmath>
#include <map>

#include "controller/iso_time.h"

namespace aegis::controller {

namespace {

ordered_json Time(double t) { return std::isfinite(t) ? ordered_json(FormatIsoTime(t)) : ordered_json(nullptr); }
ordered_json TextOrNull(const std::string& s) { return s.empty() ? ordered_json(nullptr) : ordered_json(s); }

}  // namespace

ordered_json HostJson(const store::HostRecord& h) {
  ordered_json j;
  j["host"] = h.host;
  j["state"] = std::string(store::ToString(h.state));
  j["since"] = Time(h.since);
  j["incident"] = TextOrNull(h.incident);
  j["reason"] = TextOrNull(h.reason);
  return j;
}

ordered_json ActionJson(const store::ActionRecord& a) {
  ordered_json j;
  j["host"] = a.host;
  j["do"] = store::ToString(a.op);
  j["backend"] = store::ToString(a.backend);
  j["dry_run"] = a.dry_run;
  j["at"] = Time(a.at);
  j["result"] = store::ToString(a.result);
  return j;
}

ordered_json IncidentJson(const store::IncidentRecord& inc, bool detail) {
  ordered_json j;
  j["id"] = inc.id;
  j["job"] = inc.job;
  j["opened_at"] = Time(inc.opened_at);
  j["decided_at"] = Time(inc.decided_at);
  ordered_json verdict = nullptr;
  if (!inc.verdict.empty()) {
    verdict = ordered_json::parse(inc.verdict, nullptr, false);
    if (verdict.is_discarded()) verdict = nullptr;
  }
  j["verdict"] = std::move(verdict);
  j["actions"] = ordered_json::array();
  for (const store::ActionRecord& a : inc.actions) {
    ordered_json aj = ActionJson(a);
    if (detail) {
      aj["key"] = a.key;
      aj["detail"] = a.detail;
    }
    j["actions"].push_back(std::move(aj));
  }
  if (detail) {
    j["trigger"] = std::string(store::ToString(inc.trigger));
    j["decided_by"] = TextOrNull(inc.decided_by);
  }
  return j;
}

Status HostsDocument(store::Store& store, ordered_json* out) {
  std::vector<store::HostRecord> hosts;
  if (Status s = store.ListHosts(&hosts); !s.ok()) return s;
  *out = ordered_json::array();
  for (const auto& h : hosts) out->push_back(HostJson(h));
  return Status::Ok();
}

Status HostDocument(store::Store& store, const std::string& host, ordered_json* out) {
  store::HostRecord h;
  if (Status s = store.GetHost(host, &h); !s.ok()) return s;
  std::vector<store::HistoryEntry> history;
  if (Status s = store.HostHistory(host, 100, &history); !s.ok()) return s;
  *out = HostJson(h);
  (*out)["history"] = ordered_json::array();
  for (const auto& e : history) {
    ordered_json j;
    j["at"] = Time(e.at);
    j["from"] = std::string(store::ToString(e.from));
    j["to"] = std::string(store::ToString(e.to));
    j["incident"] = TextOrNull(e.incident);
    j["reason"] = e.reason;
    j["by"] = std::string(store::ToString(e.by));
    j["actor"] = e.actor;
    (*out)["history"].push_back(std::move(j));
  }
  return Status::Ok();
}

Status IncidentsDocument(store::Store& store, const store::IncidentFilter& filter, ordered_json* out) {
  std::vector<store::IncidentRecord> incidents;
  if (Status s = store.ListIncidents(filter, &incidents); !s.ok()) return s;
  *out = ordered_json::array();
  for (const auto& inc : incidents) out->push_back(IncidentJson(inc, false));
  return Status::Ok();
}

Status AgentsDocument(store::Store& store, double now, ordered_json* out) {
  std::vector<store::HostRecord> hosts;
  if (Status s = store.ListHosts(&hosts); !s.ok()) return s;
  store::EventRange range;
  range.types = {wire::EventType::kHeartbeat};
  range.from = now - 600;
  std::vector<store::Event> beats;
  if (Status s = store.EventsInRange(range, &beats); !s.ok()) return s;
  struct Newest {
    double received_at = -INFINITY;
    const store::Event* event = nullptr;
  };
  std::map<std::string, Newest> newest;
  for (const store::Event& e : beats) {
    Newest& n = newest[e.node];
    if (e.received_at > n.received_at) n = {e.received_at, &e};
  }
  *out = ordered_json::array();
  for (const store::HostRecord& h : hosts) {
    ordered_json j;
    j["node"] = h.host;
    auto it = newest.find(h.host);
    const Newest* n = it == newest.end() ? nullptr : &it->second;
    j["heard_at"] = n ? Time(n->received_at) : ordered_json(nullptr);
    ordered_json lag = nullptr, queued = nullptr;
    if (n) {
      const auto body = nlohmann::json::parse(n->event->body, nullptr, false);
      const auto agent = body.is_object() ? body.find("agent") : body.end();
      if (agent != body.end() && agent->is_object()) {
        if (auto l = agent->find("lag_s"); l != agent->end() && l->is_number()) lag = l->get<double>();
        if (auto q = agent->find("queue_events"); q != agent->end() && q->is_number_unsigned()) queued = q->get<uint64_t>();
      }
    }
    j["lag_s"] = std::move(lag);
    j["queue_events"] = std::move(queued);
    j["silent"] = !n || n->received_at < now - kSilentAfterS;
    out->push_back(std::move(j));
  }
  return Status::Ok();
}

Status StatusDocument(store::Store& store, size_t max_incidents, ordered_json* out) {
  ordered_json doc;
  if (Status s = HostsDocument(store, &doc["hosts"]); !s.ok()) return s;
  store::IncidentFilter filter;
  filter.limit = max_incidents;
  if (Status s = IncidentsDocument(store, filter, &doc["incidents"]); !s.ok()) return s;
  *out = std::move(doc);
  return Status::Ok();
}

}  // namespace aegis::controller
