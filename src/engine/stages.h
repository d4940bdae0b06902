// The stages of the algorithm (docs/algorithm.md), each a small function over an
// Incident. A stage that decides fills the Verdict (action, cause, stage, what to isolate
// or repair, evidence and how strong it is) and returns true; the order in which
// engine.cc calls them is the algorithm.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/incident.h"
#include "engine/verdict.h"
#include "metrics/outliers.h"
#include "rules/catalog.h"

namespace aegis {

// ConfigCheck over facts.json: the odd host out of "agree" keys, and unexpected values.
struct ConfigFinding {
  std::string host;
  std::string key;
  std::string value;
  std::string expected;
  std::string check;
  std::string reason;
  size_t hosts_compared = 0;  // hosts that report the key
  size_t hosts_differing = 0; // hosts this finding's check marks for the key
};
std::vector<ConfigFinding> RunConfigCheck(const Incident& inc, const Catalog& catalog);

// NetDiag: switch-port events and probe results mapped to host NICs.
struct NetFinding {
  int node = -1;
  int nic = -1;
  Component component = Component::kLink;  // switch_port (down, flap) or link (CRC, optics, loss, latency)
  std::string port;       // switch port, when known
  std::string switch_name;
  std::string what;       // one line for the summary
  double support = 0;     // in [0, 1]: 0.9 for the switch's own port events, the path share for probes
  std::vector<Evidence> evidence;
};
std::vector<NetFinding> RunNetDiag(const Incident& inc);

// 1. Any job host with a critical line on the job's time window: isolate it. A link
//    fault (a NIC that lost its link while NetDiag saw its switch port go down) is a
//    repair of the port.
bool CriticalStage(const Incident& inc, const std::vector<NetFinding>& net, Verdict* v);

// 2. The earliest fatal lines are configuration errors (repair what they mean, with
//    ConfigCheck's `findings`) or the job's own (user-error gate: action none) rather than
//    distributed errors that follow them. Lines a catch-all classified (Rule::fallback: an
//    "out of memory" or "permission denied" in a program no rule knows) take no part, as
//    they are words, not messages anyone has read: with `catch_alls` the stage runs on
//    them alone, as the last stage before offline diagnosis.
bool EarlyFatalStage(const Incident& inc, const std::vector<ConfigFinding>& findings, Verdict* v,
                     bool catch_alls = false);
// The configuration error lines that came first (earliest first): a finding that explains
// them repairs the odd host with its key; lines about a host's own configuration repair
// it; lines that only say processes disagree name a key and no host, or, without a key,
// are the job's own mismatch of collectives. `timing` says how they stand against the
// distributed errors, for the confidence's basis.
bool ConfigErrorsStage(const Incident& inc, const std::vector<const LocatedEvent*>& lines,
                       const std::vector<ConfigFinding>& findings, const std::string& timing, Verdict* v);

// 2b. Process-aware diagnosis from CCL counters (hangs and failures): a compute fault
//    (the rank behind in launches with nothing in flight) or a communication fault (the
//    endpoint common to posted-but-uncompleted requests).
bool CclHangStage(const Incident& inc, const std::vector<NetFinding>& net, Verdict* v);

// Degradation from CCL counters (slow jobs): the TD rule (a compute straggler arrives
// late, so it waits least) and the throughput rule (flows below mean / beta).
bool CclDegradationStage(const Incident& inc, Verdict* v);

// Correlation diagnosis of degradation over metrics (the outlier analyzer).
bool MetricStage(const Incident& inc, const Catalog& catalog, const OutlierOptions& options, Verdict* v);
// A slow job where no host stood out, or where there was nothing to compare: action none
// (a slow job is never sent to offline diagnosis whole).
bool NothingStandsOutStage(const Incident& inc, Verdict* v);

// 3. DistErrors: each line that names a remote endpoint is an edge. Two hosts -> both;
//    more -> RootDiag's common endpoint. The candidate says how strong its support is
//    (independent reporters, share of the host pairs): only strong support may outrank
//    the specific findings of ConfigCheck and NetDiag elsewhere in the job.
struct DistCandidate {
  Stage stage = Stage::kRootDiag;  // dist_pair or root_diag
  std::vector<int> located;        // topology nodes
  size_t reporters = 0;            // distinct hosts that printed an edge touching the located host(s)
  size_t pairs = 0, pairs_located = 0;  // distinct host pairs, and those touching the located host(s)
  bool early_only = false;         // found only among the earliest edges
  Confidence confidence;
};
std::optional<DistCandidate> FindDistCandidate(const Incident& inc);
// Applies it: a ConfigCheck or NetDiag finding on a located host turns isolation into repair.
bool DistStage(const Incident& inc, const DistCandidate& candidate, const std::vector<ConfigFinding>& config,
               const std::vector<NetFinding>& net, Verdict* v);

// 4. No pattern: ConfigCheck, then NetDiag.
bool ConfigCheckStage(const Incident& inc, const std::vector<ConfigFinding>& config, Verdict* v);
bool NetDiagStage(const Incident& inc, const std::vector<NetFinding>& net, Verdict* v);

// 5. Nothing decided: all the job's hosts go offline.
void OfflineStage(const Incident& inc, Verdict* v);

// Shared helpers.
// Sets what a stage decided; its isolate / repair entries and evidence it adds itself.
void Decide(Verdict* v, Action action, Cause cause, Stage stage, std::string summary, Confidence confidence);
// A confidence whose level follows from the score: high from 0.75, medium from 0.45.
Confidence Support(double score, std::string basis);
// The endpoint common to flows between CCL records (a record and its peer's, null when
// the peer left none): the host on at least `share` of them, as a NIC when all its flows
// ride one GPU's rail. nullopt when no host is common or it is not in the topology.
// *votes_share (optional) receives the share of flows touching it.
std::optional<IsolateEntry> CommonFlowEndpoint(const Incident& inc,
                                               const std::vector<std::pair<const CclRecord*, const CclRecord*>>& flows,
                                               double share, double* votes_share = nullptr);
// Evidence that is a CCL counter: the snapshot line it was read from.
Evidence RecordEvidence(const CclRecord& r, std::string text, const char* rule);
// The NIC of `node` on the rail of GPU `gpu` (rail-optimised fabrics: rail = GPU index),
// or -1.
int NicOfRail(const Incident& inc, int node, int gpu);

// The key with the most votes when it holds at least `share` of `total` and strictly
// more than any other key (a common endpoint); nullopt otherwise.
template <typename Key, typename Count>
std::optional<Key> ClearLeader(const std::map<Key, Count>& votes, double share, double total) {
  const Key* best = nullptr;
  Count best_n = 0, second_n = 0;
  for (const auto& [key, n] : votes) {
    if (n > best_n) {
      second_n = best_n;
      best_n = n;
      best = &key;
    } else if (n > second_n) {
      second_n = n;
    }
  }
  if (!best || best_n < share * total || best_n <= second_n) return std::nullopt;
  return *best;
}

Evidence EvidenceOf(const LocatedEvent& e);
// The log records the events stand for (an event may stand for repeats: LogEvent::count).
uint64_t Records(const std::vector<const LocatedEvent*>& events);
// The one way a device is named in verdicts: "gpu3" for GPU 3 ("" for -1), a NIC by its
// topology name ("mlx5_2"), a switch port as the switch prints it.
std::string GpuDevice(int gpu);
std::string NicDevice(const Incident& inc, int node, int nic);
std::string HostOf(const Incident& inc, int node);
// Earliest first; events without a time keep their file order after timed ones.
bool EarlierEvent(const LocatedEvent& a, const LocatedEvent& b);
void AddRepairs(const std::vector<ConfigFinding>& findings, Verdict* v);
void AddNetRepairs(const Incident& inc, const std::vector<NetFinding>& findings, Verdict* v);

}  // namespace aegis
