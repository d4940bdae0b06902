// Stage 3: distributed errors. Each line that names a remote endpoint is an edge between
// the host that printed it and the peer it names. Errors between exactly two hosts
// isolate both; with more, RootDiag looks for the endpoint common to the edges (a bad GPU
// or NIC breaks the connections from it and to it first), earliest edges first. The
// root may be a host whose own logs are missing: its peers name it. Timeouts and "remote
// exited" lines (cascade rules) name nobody and are never edges.
// Support is counted, not assumed: in a system-wide failure every rank times out and a
// few incidental connection errors may happen to share a healthy host, so a common
// endpoint is only strong with several independent reporters (hosts that printed an edge
// touching it) and a clear share of the host pairs.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "engine/stages.h"

namespace aegis {

namespace {

constexpr double kRootShare = 0.6;          // the root is on at least this share of the pairs
constexpr double kEarlyWindowSeconds = 10;  // "first" edges: within this of the first one
constexpr double kNicShare = 0.75;          // a NIC is named when this share of root edges use it
constexpr size_t kStrongReporters = 4;      // independent reporters that make a common endpoint strong
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

// An RDMA completion with status 5 (IBV_WC_WR_FLUSH_ERR) is a request flushed from a queue
// pair that had already failed: the failure that broke it is reported by another
// completion, so such a line is an echo, not an edge of its own.
bool FlushedRequest(const LocatedEvent& e) { return e.ev.Field("status") == "5"; }

std::vector<Edge> Edges(const Incident& inc) {
  std::vector<Edge> edges;
  bool primary = false;  // an edge that is not a flushed request
  for (const auto& e : inc.events) {
    if (e.ev.line_class != LineClass::kDist || e.ev.cascade || e.source == SourceKind::kSwitch) continue;
    if (!inc.MayCause(e) || e.node < 0 || !e.peer.ok() || e.peer.node == e.node) continue;
    edges.push_back({e.node, e.nic, e.peer.node, e.peer.nic, &e});
    primary |= !FlushedRequest(e);
  }
  // Flushed requests count only when nothing else names an endpoint.
  if (primary) std::erase_if(edges, [](const Edge& x) { return FlushedRequest(*x.e); });
  std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) { return EarlierEvent(*x.e, *y.e); });
  return edges;
}

bool Touches(const Edge& e, const std::vector<int>& nodes) {
  return std::find(nodes.begin(), nodes.end(), e.a) != nodes.end() ||
         std::find(nodes.begin(), nodes.end(), e.b) != nodes.end();
}

}  // namespace

std::optional<DistCandidate> FindDistCandidate(const Incident& inc) {
  const std::vector<Edge> edges = Edges(inc);
  if (edges.empty()) return std::nullopt;
  std::set<int> involved;
  std::set<Pair> pairs;
  for (const auto& e : edges) {
    involved.insert(e.a);
    involved.insert(e.b);
    pairs.insert(Key(e));
  }
  DistCandidate c;
  c.pairs = pairs.size();
  if (involved.size() == 2) {
    c.stage = Stage::kDistPair;
    c.located.assign(involved.begin(), involved.end());
  } else {
    int root = CommonEndpoint(edges, kRootShare);
    if (root < 0 && !std::isnan(edges.front().e->ev.ts)) {
      std::vector<Edge> early;
      for (const auto& e : edges)
        if (!std::isnan(e.e->ev.ts) && e.e->ev.ts <= edges.front().e->ev.ts + kEarlyWindowSeconds) early.push_back(e);
      root = CommonEndpoint(early, 1.0);
      c.early_only = root >= 0;
    }
    if (root < 0) return std::nullopt;
    c.stage = Stage::kRootDiag;
    c.located.push_back(root);
  }
  std::set<int> reporters;
  std::set<Pair> touching;
  for (const auto& e : edges)
    if (Touches(e, c.located)) {
      reporters.insert(e.a);
      touching.insert(Key(e));
    }
  c.reporters = reporters.size();
  c.pairs_located = touching.size();
  const double share = static_cast<double>(c.pairs_located) / static_cast<double>(c.pairs);
  if (c.stage == Stage::kDistPair) {
    // Two hosts that report each other are a pair with support from both ends; one
    // host's lines alone are weak.
    uint64_t lines = 0;
    for (const auto& e : edges) lines += e.e->ev.count;
    c.confidence = Support(c.reporters >= 2 ? 0.6 : 0.35,
                           fmt::format("{} edge line(s) between two hosts, reported by {} of them", lines, c.reporters));
  } else {
    double score = share * std::min(1.0, static_cast<double>(c.reporters) / kStrongReporters);
    if (c.early_only) score = std::min(score, 0.5);
    if (c.reporters < kStrongReporters) score = std::min(score, 0.7);
    c.confidence = Support(score, fmt::format("{} independent reporter(s); {} of {} host pairs ({:.0f}%){}", c.reporters,
                                              c.pairs_located, c.pairs, 100 * share,
                                              c.early_only ? "; common only among the earliest edges" : ""));
  }
  return c;
}

bool DistStage(const Incident& inc, const DistCandidate& c, const std::vector<ConfigFinding>& config,
               const std::vector<NetFinding>& net, Verdict* v) {
  const std::vector<Edge> edges = Edges(inc);
  const std::vector<int>& located = c.located;
  // Evidence: the earliest edges touching the located hosts.
  auto add_edge_evidence = [&] {
    size_t k = 0;
    for (const auto& e : edges) {
      if (k >= kMaxEvidence) break;
      if (!Touches(e, located)) continue;
      v->evidence.push_back(EvidenceOf(*e.e));
      ++k;
    }
  };

  // A configuration finding or a network finding on a located host explains the errors
  // better than the host itself: repair instead of isolate.
  std::vector<ConfigFinding> config_here;
  std::vector<NetFinding> net_here;
  std::vector<std::string> names;
  for (int n : located) {
    names.push_back(HostOf(inc, n));
    for (const auto& f : config)
      if (f.host == names.back()) config_here.push_back(f);
    for (const auto& f : net)
      if (f.node == n) net_here.push_back(f);
  }
  if (!config_here.empty()) {
    AddRepairs(config_here, v);
    add_edge_evidence();
    Decide(v, Action::kRepair, Cause::kConfig, Stage::kConfigCheck,
           fmt::format("distributed errors point at {}, whose configuration differs ({}); repair and restart.",
                       fmt::join(names, " and "), config_here.front().key),
           Support(std::max(c.confidence.score, 0.8), c.confidence.basis + "; its configuration differs"));
    return true;
  }
  if (!net_here.empty()) {
    AddNetRepairs(inc, net_here, v);
    add_edge_evidence();
    Decide(v, Action::kRepair, Cause::kNetwork, Stage::kNetDiag,
           fmt::format("distributed errors point at {}; the network shows {}; repair it and restart.",
                       fmt::join(names, " and "), net_here.front().what),
           Support(std::max(c.confidence.score, net_here.front().support),
                   c.confidence.basis + "; the network confirms it"));
    return true;
  }

  for (int n : located) {
    IsolateEntry entry;
    entry.host = HostOf(inc, n);
    // Name the NIC when the edges at this host agree on one (a line repeated votes as
    // often as it was printed).
    std::map<int, uint64_t> nic_votes;
    uint64_t known = 0;
    for (const auto& e : edges) {
      const int nic = e.a == n ? e.a_nic : e.b == n ? e.b_nic : -2;
      if (nic >= 0) {
        nic_votes[nic] += e.e->ev.count;
        known += e.e->ev.count;
      }
    }
    entry.component = Component::kHost;
    if (known >= 2)
      if (auto nic = ClearLeader(nic_votes, kNicShare, static_cast<double>(known))) {
        entry.component = Component::kNic;
        entry.device = NicDevice(inc, n, *nic);
      }
    v->isolate.push_back(entry);
  }
  add_edge_evidence();
  if (c.stage == Stage::kDistPair) {
    Decide(v, Action::kIsolate, Cause::kNetwork, c.stage,
           fmt::format("distributed errors between exactly two hosts, {}; isolate both and restart.",
                       fmt::join(names, " and ")),
           c.confidence);
  } else {
    Decide(v, Action::kIsolate, Cause::kHardware, c.stage,
           fmt::format("RootDiag: {}{} is the common endpoint of the failed connections ({} of {} host pairs, {} "
                       "independent reporters); isolate it and restart.",
                       names.front(), v->isolate.front().device.empty() ? "" : " (" + v->isolate.front().device + ")",
                       c.pairs_located, c.pairs, c.reporters),
           c.confidence);
  }
  return true;
}

}  // namespace aegis
