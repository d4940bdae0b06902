// Stage 3: distributed errors. Each line that names a remote endpoint is an edge between
// the host that printed it and the peer it names. Errors between exactly two hosts
// isolate both; with more, RootDiag looks for the endpoint common to the edges (a bad GPU
// or NIC breaks the connections from it and to it first), earliest edges first. The
// root may be a host whose own logs are missing: its peers name it. Timeouts and "remote
// exited" lines (cascade rules) name nobody and are never edges.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "engine/stages.h"

namespace aegis {

namespace {

constexpr double kRootShare = 0.6;        // the root is on at least this share of the pairs
constexpr double kEarlyWindowSeconds = 10;  // "first" edges: within this of the first one
constexpr double kNicShare = 0.75;        // a NIC is named when this share of root edges use it
constexpr size_t kMaxEvidence = 8;

struct Edge {
  int a = -1, a_nic = -1;  // the host that printed the line
  int b = -1, b_nic = -1;  // the peer it names
  const LocatedEvent* e = nullptr;
};

using Pair = std::pair<int, int>;
Pair Key(const Edge& e) { return {std::min(e.a, e.b), std::max(e.a, e.b)}; }

// The node on all (or kRootShare of) the distinct pairs, strictly ahead of any other.
int CommonEndpoint(const std::vector<Edge>& edges, double share) {
  std::set<Pair> pairs;
  for (const auto& e : edges) pairs.insert(Key(e));
  if (pairs.size() < 2) return -1;
  std::map<int, int> degree;
  for (const auto& [x, y] : pairs) {
    ++degree[x];
    ++degree[y];
  }
  return ClearLeader(degree, share, static_cast<double>(pairs.size())).value_or(-1);
}

}  // namespace

bool DistStage(const Incident& inc, const std::vector<ConfigFinding>& config, const std::vector<NetFinding>& net,
               Verdict* v) {
  std::vector<Edge> edges;
  for (const auto& e : inc.events) {
    if (e.ev.line_class != LineClass::kDist || e.ev.cascade || e.source == SourceKind::kSwitch) continue;
    if (e.node < 0 || !e.peer.ok() || e.peer.node == e.node) continue;
    edges.push_back({e.node, e.nic, e.peer.node, e.peer.nic, &e});
  }
  if (edges.empty()) return false;
  std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) { return EarlierEvent(*x.e, *y.e); });
  std::set<int> involved;
  for (const auto& e : edges) {
    involved.insert(e.a);
    involved.insert(e.b);
  }

  std::vector<int> located;
  std::string stage;
  if (involved.size() == 2) {
    located.assign(involved.begin(), involved.end());
    stage = "dist_pair";
  } else {
    int root = CommonEndpoint(edges, kRootShare);
    if (root < 0 && !std::isnan(edges.front().e->ev.ts)) {
      std::vector<Edge> early;
      for (const auto& e : edges)
        if (!std::isnan(e.e->ev.ts) && e.e->ev.ts <= edges.front().e->ev.ts + kEarlyWindowSeconds) early.push_back(e);
      root = CommonEndpoint(early, 1.0);
    }
    if (root < 0) return false;
    located.push_back(root);
    stage = "root_diag";
  }

  // Evidence: the earliest edges touching the located hosts.
  auto add_edge_evidence = [&] {
    size_t k = 0;
    for (const auto& e : edges) {
      if (k >= kMaxEvidence) break;
      if (std::find(located.begin(), located.end(), e.a) == located.end() &&
          std::find(located.begin(), located.end(), e.b) == located.end())
        continue;
      v->evidence.push_back(EvidenceOf(*e.e));
      ++k;
    }
  };

  // A configuration finding or a network finding on a located host explains the errors
  // better than the host itself: repair instead of isolate.
  std::vector<ConfigFinding> config_here;
  for (int n : located)
    for (const auto& f : config)
      if (f.host == HostOf(inc, n)) config_here.push_back(f);
  std::vector<NetFinding> net_here;
  for (int n : located)
    for (const auto& f : net)
      if (f.node == n) net_here.push_back(f);
  std::vector<std::string> names;
  for (int n : located) names.push_back(HostOf(inc, n));

  if (!config_here.empty()) {
    AddRepairs(config_here, v);
    add_edge_evidence();
    Decide(v, "repair", "config", "config_check", fmt::format("distributed errors point at {}, whose configuration differs ({}); repair and restart.",
                             fmt::join(names, " and "), config_here.front().key));
    return true;
  }
  if (!net_here.empty()) {
    AddNetRepairs(inc, net_here, v);
    add_edge_evidence();
    Decide(v, "repair", "network", "net_diag", fmt::format("distributed errors point at {}; the network shows {}; repair it and restart.",
                             fmt::join(names, " and "), net_here.front().what));
    return true;
  }

  for (int n : located) {
    IsolateEntry entry;
    entry.host = HostOf(inc, n);
    // Name the NIC when the edges at this host agree on one.
    std::map<int, int> nic_votes;
    int known = 0;
    for (const auto& e : edges) {
      int nic = e.a == n ? e.a_nic : e.b == n ? e.b_nic : -2;
      if (nic == -2) continue;
      if (nic >= 0) {
        ++nic_votes[nic];
        ++known;
      }
    }
    entry.component = "host";
    if (known >= 2)
      if (auto nic = ClearLeader(nic_votes, kNicShare, known)) {
        entry.component = "nic";
        entry.device = inc.topology.nodes[static_cast<size_t>(n)].nics[static_cast<size_t>(*nic)].name;
      }
    v->isolate.push_back(entry);
  }
  add_edge_evidence();
  if (stage == "dist_pair") {
    Decide(v, "isolate", "network", stage,
           fmt::format("distributed errors between exactly two hosts, {}; isolate both and restart.",
                       fmt::join(names, " and ")));
  } else {
    std::set<Pair> pairs;
    for (const auto& e : edges) pairs.insert(Key(e));
    Decide(v, "isolate", "hardware", stage,
           fmt::format("RootDiag: {}{} is the common endpoint of the failed connections ({} of {} host pairs); "
                       "isolate it and restart.",
                       names.front(), v->isolate.front().device.empty() ? "" : " (" + v->isolate.front().device + ")",
                       std::count_if(pairs.begin(), pairs.end(),
                                     [&](const Pair& p) { return p.first == located[0] || p.second == located[0]; }),
                       pairs.size()));
  }
  return true;
}

}  // namespace aegis
