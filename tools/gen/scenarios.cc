#include "gen/scenarios.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "gen/bundle_writer.h"
#include "gen/families.h"

namespace aegis::gen {

using nlohmann::json;

namespace {

constexpr ScenarioKind kFailure = ScenarioKind::kFailure;
constexpr ScenarioKind kHang = ScenarioKind::kHang;
constexpr ScenarioKind kDegradation = ScenarioKind::kDegradation;

const std::vector<ScenarioSpec> kScenarios = {
    {"xid79", kFailure, "a GPU falls off the bus (Xid 79); its peers lose its process and time out", InjectXid79,
     {"isolate", "hardware", "critical_error"}},
    {"dbe", kFailure, "a GPU's memory has an uncorrectable error (Xid 48 or 95)", InjectDbe,
     {"isolate", "hardware", "critical_error"}},
    {"nvlink", kFailure, "a fatal NVLink error on one GPU (Xid 74 or 145)", InjectNvlink,
     {"isolate", "hardware", "critical_error"}},
    {"pcie_fatal", kFailure, "an uncorrected fatal PCIe AER on a GPU, which then falls off the bus", InjectPcieFatal,
     {"isolate", "hardware", "critical_error"}},
    {"nic_down", kFailure, "a NIC loses its link; peers on its rail get completion errors naming it", InjectNicDown,
     {"isolate", "hardware", "critical_error"}},
    {"user_exception", kFailure, "a Python exception in the job's code; peers report connection errors naming its host",
     InjectUserException, {"none", "user", "user_error"}},
    {"oom", kFailure, "CUDA out of memory in the job; peers lose its process", InjectOom, {"none", "user", "user_error"}},
    {"app_xid", kFailure, "the job's kernel makes an illegal memory access (application Xid 31)", InjectAppXid,
     {"none", "user", "user_error"}},
    {"pair", kFailure, "two hosts' NICs on one rail report each other, nothing else does", InjectPair,
     {"isolate", "network", "dist_pair"}},
    {"rootdiag", kFailure, "one NIC breaks: every connection to it fails, plus later noise edges", InjectRootDiag,
     {"isolate", "hardware", "root_diag"}},
    {"rootdiag_missing", kFailure, "rootdiag where the root host's folder is missing from the bundle",
     InjectRootDiagMissing, {"isolate", "hardware", "root_diag"}},
    {"config_mismatch", kFailure, "one host's NCCL version, GID index or MTU differs; connections to it fail",
     InjectConfigMismatch, {"repair", "config", "config_check"}},
    {"config_symmetric", kFailure,
     "one host's NCCL version, GID index, MTU, /dev/shm or driver differs; OTHER hosts print collective mismatches "
     "and completion errors between healthy pairs",
     InjectConfigSymmetric, {"repair", "config", "config_check"}},
    {"collective_mismatch", kFailure,
     "hosts configured alike; several ranks report a mismatch of collectives (the job's own code), then time out",
     InjectCollectiveMismatch, {"none", "user", "user_error"}},
    {"switch_flap", kFailure, "a switch port flaps three times; its host's NIC goes down and up", InjectSwitchFlap,
     {"repair", "network", "net_diag"}},
    {"large_packet_loss", kFailure, "probes through one link lose only packets above 1500 bytes", InjectLargePacketLoss,
     {"repair", "network", "net_diag"}},
    {"incidental_edges", kFailure,
     "a config drift, port flap or large-packet loss stops the job; 2-3 incidental connection errors share one "
     "healthy host",
     InjectIncidentalEdges, {"repair", nullptr, nullptr}},
    {"history_before_job", kFailure,
     "the real fault (GPU, user or config) plus a healthy host's kernel log holding an Xid from 1-7 days before the "
     "job",
     InjectHistoryBeforeJob, {}},
    {"untimed_after_stale", kFailure,
     "a user exception; every other rank's untimed NCCL WARN (srun labels) follows a progress line 22 min older",
     InjectUntimedAfterStale, {"none", "user", "user_error"}},
    {"no_signal", kHang, "every rank times out and nothing else is known", InjectNoSignal,
     {"offline", "unknown", "offline"}},
    {"compute_hang", kHang, "a GPU stalls in compute: the probe shows it never launched its next TP collective",
     InjectComputeHang, {"isolate", "hardware", "ccl_compute"}},
    {"comm_hang", kHang, "a NIC drops traffic: its rail's requests to and from it never complete", InjectCommHang,
     {"isolate", "hardware", "ccl_comm"}},
    {"compute_straggler", kDegradation, "a GPU computes 30% slower: its TP collectives are the shortest",
     InjectComputeStraggler, {"isolate", "hardware", "ccl_degradation"}},
    {"noisy_straggler", kDegradation,
     "compute_straggler whose GPU also sits in a healthy DP ring at ~1.01 x its mean (noise, not waiting)",
     InjectNoisyStraggler, {"isolate", "hardware", "ccl_degradation"}},
    {"degraded_nic", kDegradation, "a NIC delivers a third of its bandwidth on its rail's flows", InjectDegradedNic,
     {"isolate", "hardware", "ccl_degradation"}},
    {"ecn_surge", kDegradation, "one NIC's ECN marks and CNPs jump to 10-30K/s", InjectEcnSurge,
     {"isolate", "hardware", "metric_outlier"}},
    {"thermal_throttling", kDegradation, "one GPU runs at 88+ C and its SM clock drops", InjectThermalThrottling,
     {"isolate", "hardware", "metric_outlier"}},
    {"global_slowdown", kDegradation, "every GPU's tensor activity drops together: nobody to blame",
     InjectGlobalSlowdown, {"none", "unknown", "metric_outlier"}},
    {"transient_spike", kDegradation, "a one-minute ECN burst on one NIC: a spike, not a fault", InjectTransientSpike,
     {"none", "unknown", "metric_outlier"}},
};

const char* StateOf(ScenarioKind kind) {
  switch (kind) {
    case ScenarioKind::kHang: return "hung";
    case ScenarioKind::kDegradation: return "slow";
    default: return "failed";
  }
}

// FNV-1a: the scenario's random stream must not depend on the standard library's hash.
uint64_t NameHash(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

}  // namespace

const char* KindName(ScenarioKind kind) {
  switch (kind) {
    case ScenarioKind::kHang: return "hang";
    case ScenarioKind::kDegradation: return "degradation";
    default: return "failure";
  }
}

const std::vector<ScenarioSpec>& Scenarios() { return kScenarios; }

const ScenarioSpec* FindScenario(std::string_view name) {
  for (const auto& s : kScenarios)
    if (name == s.name) return &s;
  return nullptr;
}

const std::vector<std::string>& ScenarioNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& s : kScenarios) out.push_back(s.name);
    return out;
  }();
  return names;
}

Bundle BuildBundle(const GenOptions& o) {
  const ScenarioSpec* spec = FindScenario(o.scenario);
  if (!spec) throw std::invalid_argument("unknown scenario " + o.scenario);
  if (o.hosts < 2 || o.gpus < 1) throw std::invalid_argument("a job needs at least 2 hosts and 1 GPU per host");
  Bundle b;
  b.c = MakeCluster(o.hosts, o.gpus, o.seed);
  if (o.timeline) Retime(b.c, o.timeline->start, o.timeline->fail, o.timeline->end, o.timeline->history);
  b.state = StateOf(spec->kind);
  b.nodes.resize(static_cast<size_t>(o.hosts));
  for (auto& n : b.nodes) n.facts = HealthyFacts(o.gpus);

  Scene s(b, o.seed, o.seed * 0x9E3779B97F4A7C15ull + NameHash(o.scenario));
  spec->inject(s);

  // Hosts the scenario did not touch lose a few files, as real collection does.
  std::set<std::string> touched;
  for (const auto& i : b.expected["isolate"]) touched.insert(i["host"].get<std::string>());
  for (const auto& r : b.expected["repair"]) touched.insert(r["host"].get<std::string>());
  for (int k : s.keep) touched.insert(b.N(k).host);
  if (o.drop_files && o.hosts > 4)
    for (int k = 0; k < std::max(1, o.hosts / 16); ++k) {
      const int n = s.Rand(o.hosts);
      if (touched.count(b.N(n).host)) continue;
      switch (s.Rand(3)) {
        case 0: b.Node(n).has_kernel = false; break;
        case 1: b.Node(n).has_train = false; break;
        default: b.Node(n).has_facts = false;
      }
    }

  // Noise, from each host's own stream: the same whatever the scenario drew.
  for (int i = 0; i < o.hosts; ++i) {
    NodeData& nd = b.Node(i);
    if (!nd.has_folder) continue;
    std::mt19937_64 rng(o.seed * 1000003 + static_cast<uint64_t>(i));
    const bool hints = rng() % 3 == 0;
    KernelNoise(b.c, i, rng, nd.kernel, o.kernel_bytes, hints);
    TrainNoise(b.c, i, rng, nd.train, o.train_bytes, nd.timed_noise_until);
  }

  b.expected["scenario"] = o.scenario;
  b.expected["kind"] = KindName(spec->kind);
  b.expected["seed"] = o.seed;
  b.expected["hosts"] = o.hosts;
  return b;
}

size_t GenerateBundle(const GenOptions& o, const std::string& dir) {
  Bundle b = BuildBundle(o);
  return BundleWriter(dir).Write(b);
}

}  // namespace aegis::gen
