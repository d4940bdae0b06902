// Process-aware degradation from the CCL probe's counters (docs/algorithm.md, "Slow jobs"), for a
// slow job. Collectives end together, so the GPU that arrives late waits least: its
// duration TD is below alpha (0.8) times the communicator's mean for that collective. A
// GPU is a compute straggler when that holds persistently (over most of the collectives
// both it and its peers recorded), and it is not itself waiting in another communicator
// (a GPU behind a straggler in TP arrives late in DP too, but it waited long in TP).
// Communication: a flow whose recent throughput (last 5 requests) is below the mean of
// its communicator divided by beta (1.5) is slow; the host and rail common to the slow
// flows are the degraded NIC or link.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "engine/stages.h"

namespace aegis {

namespace {

constexpr double kAlpha = 0.8;
constexpr double kBeta = 1.5;
constexpr size_t kMinCollectives = 3;   // a single noisy sample is no straggler
constexpr double kPersistent = 0.6;     // share of its collectives where it was early
constexpr double kEndpointShare = 0.6;
// Waiting means waiting clearly: a GPU whose durations in a healthy communicator sit at
// the mean plus noise (ratio 1.01) is not excused as "waiting there".
constexpr double kWaitMargin = 1.1;

std::string GpuKey(const CclRecord& r) {
  return r.host + "/" + std::to_string(r.pid) + "/" + (r.gpu >= 0 ? std::to_string(r.gpu) : r.comm + ":" + std::to_string(r.rank));
}

struct Ratio {
  size_t early = 0, total = 0;
  double sum = 0;  // of td / mean
  double Mean() const { return total ? sum / static_cast<double>(total) : 1.0; }
};

bool ComputeStraggler(const Incident& inc, const std::map<std::string, std::vector<const CclRecord*>>& by_comm,
                      Verdict* v) {
  // Per GPU and communicator: how its durations compare with its peers'.
  std::map<std::string, std::map<std::string, Ratio>> ratios;  // gpu -> comm -> ratio
  std::map<std::string, const CclRecord*> any_record;
  for (const auto& [comm, recs] : by_comm) {
    std::map<std::pair<std::string, uint64_t>, std::vector<std::pair<const CclRecord*, double>>> by_coll;
    for (auto* r : recs)
      for (const auto& c : r->recent)
        if (c.td_us > 0) by_coll[{c.func, c.seq}].push_back({r, c.td_us});
    for (const auto& [coll, tds] : by_coll) {
      if (tds.size() < 2 || tds.size() * 2 < recs.size()) continue;  // most ranks must have it
      double mean = 0;
      for (const auto& [r, td] : tds) mean += td;
      mean /= static_cast<double>(tds.size());
      if (mean <= 0) continue;
      for (const auto& [r, td] : tds) {
        Ratio& x = ratios[GpuKey(*r)][comm];
        ++x.total;
        x.sum += td / mean;
        x.early += td < kAlpha * mean;
        any_record[GpuKey(*r)] = r;
      }
    }
  }
  struct Candidate {
    std::string gpu, comm;
    double ratio;
    Ratio r;
  };
  std::vector<Candidate> found;
  for (const auto& [gpu, comms] : ratios) {
    bool waits_somewhere = false;
    const Candidate* best = nullptr;
    Candidate c;
    for (const auto& [comm, r] : comms) {
      if (r.total >= kMinCollectives && r.Mean() > kWaitMargin) waits_somewhere = true;
      if (r.total >= kMinCollectives && r.early >= kPersistent * static_cast<double>(r.total) &&
          (!best || r.Mean() < c.ratio)) {
        c = {gpu, comm, r.Mean(), r};
        best = &c;
      }
    }
    if (best && !waits_somewhere) found.push_back(c);
  }
  if (found.empty() || found.size() * 2 > ratios.size()) return false;
  std::sort(found.begin(), found.end(), [](const Candidate& a, const Candidate& b) { return a.ratio < b.ratio; });
  for (const auto& c : found) {
    const CclRecord& r = *any_record[c.gpu];
    if (inc.topology.FindNode(r.host) < 0) continue;
    v->isolate.push_back({r.host, Component::kGpu, GpuDevice(r.gpu)});
    v->evidence.push_back(RecordEvidence(
        r,
        fmt::format("{} rank {} in comm {}: shortest wait in {} of {} collectives, TD {:.2f} x the mean (alpha {})",
                    GpuDevice(r.gpu).empty() ? "pid " + std::to_string(r.pid) : GpuDevice(r.gpu), r.rank, c.comm,
                    c.r.early, c.r.total, c.ratio, kAlpha),
        "ccl-td-straggler"));
  }
  if (v->isolate.empty()) return false;
  const Candidate& best = found.front();
  const double persistence = static_cast<double>(best.r.early) / static_cast<double>(best.r.total);
  Decide(v, Action::kIsolate, Cause::kHardware, Stage::kCclDegradation,
         fmt::format("compute straggler: {} of {} arrives late at its collectives (TD {:.2f} x its peers'); "
                     "isolate it and restart.",
                     v->isolate.front().device, v->isolate.front().host, best.ratio),
         Support(persistence * (found.size() == 1 ? 1.0 : 0.7),
                 fmt::format("shortest wait in {} of {} collectives (TD {:.2f} x the mean, alpha {}); {} straggler(s) "
                             "among {} GPUs",
                             best.r.early, best.r.total, best.ratio, kAlpha, found.size(), ratios.size())));
  return true;
}

bool CommDegraded(const Incident& inc, const std::map<std::string, std::vector<const CclRecord*>>& by_comm,
                  Verdict* v) {
  struct Flow {
    const CclRecord* a;
    const CclRecord* b;
    double gbps, mean;
  };
  std::vector<Flow> slow;
  size_t flows = 0;
  for (const auto& [comm, recs] : by_comm) {
    std::map<int, const CclRecord*> by_rank;
    double sum = 0;
    size_t n = 0;
    for (auto* r : recs) {
      by_rank[r->rank] = r;
      for (const auto& f : r->net)
        if (f.send && f.recent_gbps > 0) {
          sum += f.recent_gbps;
          ++n;
        }
    }
    if (n < 3) continue;
    flows += n;
    const double mean = sum / static_cast<double>(n);
    for (auto* r : recs)
      for (const auto& f : r->net)
        if (f.send && f.recent_gbps > 0 && f.recent_gbps * kBeta < mean)
          slow.push_back({r, by_rank.count(f.peer) ? by_rank[f.peer] : nullptr, f.recent_gbps, mean});
  }
  if (slow.empty() || slow.size() * 2 > flows) return false;  // most flows slow: systemic
  std::vector<std::pair<const CclRecord*, const CclRecord*>> pairs;
  for (const auto& s : slow) pairs.push_back({s.a, s.b});
  double share = 0;
  auto common = CommonFlowEndpoint(inc, pairs, kEndpointShare, &share);
  if (!common) return false;
  const IsolateEntry entry = *common;
  const std::string& host = entry.host;
  v->isolate.push_back(entry);
  for (const auto& s : slow) {
    if (v->evidence.size() >= 8) break;
    if (s.a->host != host && !(s.b && s.b->host == host)) continue;
    v->evidence.push_back(RecordEvidence(*s.a,
                                         fmt::format("comm {} rank {} ({}) -> {}: {:.1f} Gb/s over the last 5 requests, "
                                                     "communicator mean {:.1f} (beta {})",
                                                     s.a->comm, s.a->rank, s.a->host, s.b ? s.b->host : "?", s.gbps,
                                                     s.mean, kBeta),
                                         "ccl-slow-flow"));
  }
  Decide(v, Action::kIsolate, Cause::kHardware, Stage::kCclDegradation,
         fmt::format("communication degraded: {}{} is the common endpoint of {} slow flow(s); isolate it and "
                     "restart.",
                     host, entry.device.empty() ? "" : " (" + entry.device + ")", slow.size()),
         Support(share, fmt::format("{} on {:.0f}% of {} slow flow(s) out of {}", host, 100 * share, slow.size(), flows)));
  return true;
}

}  // namespace

bool CclDegradationStage(const Incident& inc, Verdict* v) {
  if (inc.ccl.empty()) return false;
  std::map<std::string, std::vector<const CclRecord*>> by_comm;
  for (const auto& r : inc.ccl) by_comm[r.comm].push_back(&r);
  if (ComputeStraggler(inc, by_comm, v)) return true;
  return CommDegraded(inc, by_comm, v);
}

}  // namespace aegis
