// Process-aware diagnosis from the CCL probe's counters (docs/algorithm.md, step 3).
// Compute fault: a GPU that stalls in compute never launches the next collective, so its
// launch count (CL) is behind the rest of its communicator while it has nothing in
// flight. With several communicators (TP in a node, DP/PP across nodes) other ranks lag
// too, but they lag because they wait inside a collective of another communicator: they
// have a collective in flight. The root is the lagging rank with none in flight.
// Communication fault: every rank launched the collective (CL equal) but requests were
// posted and never completed (WR > WC); the host (and rail) common to those (rank, peer)
// pairs is the culprit; with no common endpoint, NetDiag on the pairs decides.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "engine/stages.h"

namespace aegis {

namespace {

constexpr double kEndpointShare = 0.6;
constexpr size_t kMaxEvidence = 8;

// One GPU's process: (host, pid, GPU). A process may drive several GPUs (one rank each);
// without a GPU index a record cannot be linked to the same GPU's other communicators.
using ProcKey = std::string;

ProcKey KeyOf(const CclRecord& r) {
  return r.host + "/" + std::to_string(r.pid) + "/" +
         (r.gpu >= 0 ? "gpu" + std::to_string(r.gpu) : r.comm + ":" + std::to_string(r.rank));
}

bool InFlight(const CclRecord& r) {
  for (const auto& [f, lc] : r.coll)
    if (lc.first > lc.second) return true;
  return false;
}

std::string Counts(const CclRecord& r) {
  std::string s;
  for (const auto& [f, lc] : r.coll) s += fmt::format("{}{} {}/{}", s.empty() ? "" : ", ", f, lc.first, lc.second);
  return s;
}

bool ComputeFault(const Incident& inc, const std::map<std::string, std::vector<const CclRecord*>>& by_comm, Verdict* v) {
  std::map<ProcKey, std::vector<const CclRecord*>> by_proc;
  for (const auto& r : inc.ccl) by_proc[KeyOf(r)].push_back(&r);
  // Lagging processes, with what they lag in.
  std::map<ProcKey, std::string> lag;
  std::map<ProcKey, const CclRecord*> lag_record;
  for (const auto& [comm, recs] : by_comm) {
    std::map<std::string, uint64_t> most;
    for (auto* r : recs)
      for (const auto& [f, lc] : r->coll) most[f] = std::max(most[f], lc.first);
    for (auto* r : recs)
      for (const auto& [f, top] : most) {
        auto it = r->coll.find(f);
        const uint64_t mine = it == r->coll.end() ? 0 : it->second.first;
        if (mine < top && !lag.count(KeyOf(*r))) {
          // NCCL before 2.27 does not tell the probe a communicator's size (nranks 0):
          // count the ranks that reported instead.
          const std::string size = r->nranks > 0 ? fmt::format("{} ranks", r->nranks)
                                                 : fmt::format("{} ranks reporting", recs.size());
          lag[KeyOf(*r)] = fmt::format("{} {} launched {} while its communicator {} ({}, {}) reached {}", r->host,
                                       r->gpu >= 0 ? GpuDevice(r->gpu) : "pid " + std::to_string(r->pid), mine, comm,
                                       r->comm_name.empty() ? f : r->comm_name + " " + f, size, top);
          lag_record[KeyOf(*r)] = r;
        }
      }
  }
  if (lag.empty()) return false;
  std::vector<ProcKey> roots;
  for (const auto& [p, why] : lag) {
    bool busy = false;
    for (auto* r : by_proc[p]) busy |= InFlight(*r);
    if (!busy) roots.push_back(p);
  }
  if (roots.empty() || roots.size() * 2 > by_proc.size()) return false;  // no root, or not a straggler pattern
  std::set<std::string> hosts;
  for (const auto& p : roots) {
    const CclRecord& r = *lag_record[p];
    const int node = inc.topology.FindNode(r.host);
    if (node < 0) continue;
    if (std::none_of(v->isolate.begin(), v->isolate.end(), [&](const IsolateEntry& e) {
          return e.host == r.host && e.device == GpuDevice(r.gpu);
        }))
      v->isolate.push_back({r.host, Component::kGpu, GpuDevice(r.gpu)});
    hosts.insert(r.host);
    for (auto* rec : by_proc[p])
      if (v->evidence.size() < kMaxEvidence)
        v->evidence.push_back(RecordEvidence(*rec, fmt::format("comm {} rank {}: {} (launched/completed); nothing in flight",
                                                                 rec->comm, rec->rank, Counts(*rec)),
                                              "ccl-compute-lag"));
  }
  if (v->isolate.empty()) return false;
  // One rank that waits, for contrast.
  for (const auto& [p, why] : lag)
    if (std::find(roots.begin(), roots.end(), p) == roots.end() && v->evidence.size() < kMaxEvidence) {
      const CclRecord& r = *lag_record[p];
      v->evidence.push_back(RecordEvidence(
          r, fmt::format("comm {} rank {}: {}: behind, but waiting inside another collective", r.comm, r.rank, Counts(r)),
          "ccl-waiting"));
      break;
    }
  const CclRecord& first = *lag_record[roots.front()];
  // One root among many waiting ranks is the clearest picture; every extra root halves it.
  const size_t waiting = lag.size() - roots.size();
  Decide(v, Action::kIsolate, Cause::kHardware, Stage::kCclCompute,
         fmt::format("compute fault: {} stopped launching collectives ({}); isolate {} and restart.",
                     first.gpu >= 0 ? GpuDevice(first.gpu) + " of " + first.host : first.host, lag[roots.front()],
                     fmt::join(hosts, ", ")),
         Support(0.95 / static_cast<double>(roots.size()),
                 fmt::format("{} rank(s) behind with nothing in flight, {} behind but waiting in another collective, {} "
                             "processes in all",
                             roots.size(), waiting, by_proc.size())));
  return true;
}

bool CommFault(const Incident& inc, const std::map<std::string, std::vector<const CclRecord*>>& by_comm,
               const std::vector<NetFinding>& net, Verdict* v) {
  struct Stuck {
    const CclRecord* a;
    const CclRecord* b;  // the peer's record, when present
    const CclNet* n;
  };
  std::vector<Stuck> stuck;
  for (const auto& [comm, recs] : by_comm) {
    std::map<int, const CclRecord*> by_rank;
    for (auto* r : recs) by_rank[r->rank] = r;
    for (auto* r : recs)
      for (const auto& n : r->net)
        if (n.posted > n.completed) stuck.push_back({r, by_rank.count(n.peer) ? by_rank[n.peer] : nullptr, &n});
  }
  if (stuck.empty()) return false;
  std::vector<std::pair<const CclRecord*, const CclRecord*>> pairs;
  for (const auto& s : stuck) pairs.push_back({s.a, s.b});
  double share = 0;
  const auto common = CommonFlowEndpoint(inc, pairs, kEndpointShare, &share);
  auto describe = [](const Stuck& s) {
    return fmt::format("comm {} rank {} ({}) {} peer rank {}{}: posted {}, completed {}", s.a->comm, s.a->rank, s.a->host,
                       s.n->send ? "send to" : "recv from", s.n->peer, s.b ? " (" + s.b->host + ")" : "", s.n->posted,
                       s.n->completed);
  };
  if (!common) {
    // No common endpoint: ask the network about the hosts involved.
    std::set<std::string> involved;
    for (const auto& s : stuck) {
      involved.insert(s.a->host);
      if (s.b) involved.insert(s.b->host);
    }
    std::vector<NetFinding> here;
    for (const auto& f : net)
      if (involved.count(HostOf(inc, f.node))) here.push_back(f);
    if (here.empty()) return false;
    AddNetRepairs(inc, here, v);
    for (size_t i = 0; i < stuck.size() && i < 4; ++i)
      v->evidence.push_back(RecordEvidence(*stuck[i].a, describe(stuck[i]), "ccl-stuck-requests"));
    Decide(v, Action::kRepair, Cause::kNetwork, Stage::kNetDiag,
           fmt::format("communication fault with no common endpoint; the network shows {}; repair and restart.",
                       here.front().what),
           Support(here.front().support, fmt::format("{} stuck request pair(s) with no common endpoint; {}",
                                                     stuck.size(), here.front().what)));
    return true;
  }
  const IsolateEntry& entry = *common;
  const std::string& leader = entry.host;
  const int node = inc.topology.FindNode(entry.host);
  // A network finding on that host's link explains it better: repair the link.
  std::vector<NetFinding> here;
  for (const auto& f : net)
    if (f.node == node) here.push_back(f);
  for (const auto& s : stuck)
    if ((s.a->host == leader || (s.b && s.b->host == leader)) && v->evidence.size() < kMaxEvidence)
      v->evidence.push_back(RecordEvidence(*s.a, describe(s), "ccl-stuck-requests"));
  if (!here.empty()) {
    AddNetRepairs(inc, here, v);
    Decide(v, Action::kRepair, Cause::kNetwork, Stage::kNetDiag,
           fmt::format("communication fault at {}: requests posted and never completed; the network shows {}; "
                       "repair and restart.",
                       leader, here.front().what),
           Support(std::max(share, here.front().support),
                   fmt::format("{} on {:.0f}% of {} stuck request pair(s); the network confirms it", leader, 100 * share,
                               stuck.size())));
    return true;
  }
  v->isolate.push_back(entry);
  Decide(v, Action::kIsolate, Cause::kHardware, Stage::kCclComm,
         fmt::format("communication fault: {}{} is the common endpoint of {} stuck request pair(s) (posted, never "
                     "completed); isolate it and restart.",
                     leader, entry.device.empty() ? "" : " (" + entry.device + ")", stuck.size()),
         Support(share, fmt::format("{} on {:.0f}% of {} stuck request pair(s)", leader, 100 * share, stuck.size())));
  return true;
}

}  // namespace

bool CclHangStage(const Incident& inc, const std::vector<NetFinding>& net, Verdict* v) {
  if (inc.ccl.empty()) return false;
  std::map<std::string, std::vector<const CclRecord*>> by_comm;
  for (const auto& r : inc.ccl) by_comm[r.comm].push_back(&r);
  // Compute first: a stalled GPU also leaves its peers' requests hanging, so stuck
  // requests only mean a communication fault when every rank launched the collective.
  if (ComputeFault(inc, by_comm, v)) return true;
  return CommFault(inc, by_comm, net, v);
}

}  // namespace aegis
