#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "engine/stages.h"

namespace aegis {

Evidence EvidenceOf(const LocatedEvent& e) {
  Evidence ev;
  ev.host = e.host;
  ev.file = e.file;
  ev.line = static_cast<long long>(e.ev.line);
  ev.rule = e.ev.rule_id;
  ev.text = e.ev.text;
  if (e.ev.count > 1) {
    ev.count = e.ev.count;
    ev.latest_line = static_cast<long long>(e.ev.LatestLine());
    ev.latest_ts = e.ev.LatestTs();
  }
  return ev;
}

uint64_t Records(const std::vector<const LocatedEvent*>& events) {
  uint64_t n = 0;
  for (const LocatedEvent* e : events) n += e->ev.count;
  return n;
}

void Decide(Verdict* v, Action action, Cause cause, Stage stage, std::string summary, Confidence confidence) {
  v->action = action;
  v->cause = cause;
  v->stage = stage;
  v->summary = std::move(summary);
  v->confidence = std::move(confidence);
}

Confidence Support(double score, std::string basis) {
  Confidence c;
  c.score = std::clamp(score, 0.0, 1.0);
  c.level = c.score >= 0.75 ? Strength::kHigh : c.score >= 0.45 ? Strength::kMedium : Strength::kLow;
  c.basis = std::move(basis);
  return c;
}

Evidence RecordEvidence(const CclRecord& r, std::string text, const char* rule) {
  Evidence e;
  e.host = r.host;
  e.file = r.file;
  e.line = static_cast<long long>(r.line);
  e.rule = rule;
  e.text = std::move(text);
  return e;
}

int NicOfRail(const Incident& inc, int node, int gpu) {
  if (node < 0 || gpu < 0) return -1;
  const auto& nics = inc.topology.nodes[static_cast<size_t>(node)].nics;
  for (size_t k = 0; k < nics.size(); ++k)
    if (nics[k].rail == gpu) return static_cast<int>(k);
  // Without rails in the topology, NIC k serves GPU k.
  return gpu < static_cast<int>(nics.size()) && nics[static_cast<size_t>(gpu)].rail < 0 ? gpu : -1;
}

std::optional<IsolateEntry> CommonFlowEndpoint(const Incident& inc,
                                               const std::vector<std::pair<const CclRecord*, const CclRecord*>>& flows,
                                               double share, double* votes_share) {
  std::map<std::string, int> votes;
  std::map<std::string, std::map<int, int>> gpu_votes;
  for (const auto& [a, b] : flows) {
    ++votes[a->host];
    ++gpu_votes[a->host][a->gpu];
    if (b && b->host != a->host) {
      ++votes[b->host];
      ++gpu_votes[b->host][b->gpu];
    }
  }
  auto host = ClearLeader(votes, share, static_cast<double>(flows.size()));
  if (!host) return std::nullopt;
  const int node = inc.topology.FindNode(*host);
  if (node < 0) return std::nullopt;
  if (votes_share) *votes_share = static_cast<double>(votes[*host]) / static_cast<double>(flows.size());
  IsolateEntry entry{*host, Component::kHost, ""};
  if (gpu_votes[*host].size() == 1)
    if (const int nic = NicOfRail(inc, node, gpu_votes[*host].begin()->first); nic >= 0) {
      entry.component = Component::kNic;
      entry.device = NicDevice(inc, node, nic);
    }
  return entry;
}

std::string GpuDevice(int gpu) { return gpu >= 0 ? "gpu" + std::to_string(gpu) : std::string(); }

std::string NicDevice(const Incident& inc, int node, int nic) {
  if (node < 0 || nic < 0 || static_cast<size_t>(node) >= inc.topology.nodes.size()) return {};
  const auto& nics = inc.topology.nodes[static_cast<size_t>(node)].nics;
  return static_cast<size_t>(nic) < nics.size() ? nics[static_cast<size_t>(nic)].name : std::string();
}

std::string HostOf(const Incident& inc, int node) {
  return node >= 0 && static_cast<size_t>(node) < inc.topology.nodes.size()
             ? inc.topology.nodes[static_cast<size_t>(node)].host
             : std::string();
}

bool EarlierEvent(const LocatedEvent& a, const LocatedEvent& b) {
  const bool at = !std::isnan(a.ev.ts), bt = !std::isnan(b.ev.ts);
  if (at != bt) return at;
  if (at && a.ev.ts != b.ev.ts) return a.ev.ts < b.ev.ts;
  if (a.file != b.file) return a.file < b.file;
  return a.ev.line < b.ev.line;
}

void AddRepairs(const std::vector<ConfigFinding>& findings, Verdict* v) {
  for (const auto& f : findings) {
    RepairEntry r;
    r.host = f.host;
    r.component = Component::kConfig;
    r.key = f.key;
    r.value = f.value;
    r.expected = f.expected;
    v->repair.push_back(r);
    Evidence e;
    e.host = f.host;
    e.file = "nodes/" + f.host + "/facts.json";
    e.rule = "check-" + f.check;
    e.text = fmt::format("{} = {} (expected {}): {}", f.key, f.value.empty() ? "(absent)" : f.value, f.expected,
                         f.reason);
    v->evidence.push_back(e);
  }
}

void AddNetRepairs(const Incident& inc, const std::vector<NetFinding>& findings, Verdict* v) {
  for (const auto& f : findings) {
    RepairEntry r;
    r.host = HostOf(inc, f.node);
    r.component = f.component;
    r.device = !f.port.empty() ? f.port : NicDevice(inc, f.node, f.nic);
    r.switch_name = f.switch_name;
    v->repair.push_back(r);
    for (const auto& e : f.evidence) v->evidence.push_back(e);
  }
}

}  // namespace aegis
