#include "gen/storm.h"

#include <fmt/format.h>

#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "gen/faults.h"

namespace aegis::gen {

namespace {

constexpr char kHintMessage[] = "NCCL INFO NCCL_IB_TIMEOUT set by environment to 22.";
constexpr double kXidDaysBefore = 2;  // beyond any clock and time-zone slack of the job's window
constexpr double kXidSpanSeconds = 3600;
constexpr int kJournalFormat = 3;     // journalctl short-iso: a time with its zone on every line

double Uniform(std::mt19937_64& rng) { return static_cast<double>(rng() % 1000000) / 1e6; }

// The hosts whose file of that kind the bundle writes.
std::vector<int> HostsWith(const Bundle& b, bool kernel) {
  std::vector<int> out;
  for (int i = 0; i < b.Hosts(); ++i) {
    const NodeData& nd = b.nodes[static_cast<size_t>(i)];
    if (nd.has_folder && (kernel ? nd.has_kernel : nd.has_train)) out.push_back(i);
  }
  return out;
}

void HintStorm(Bundle& b, size_t lines, std::mt19937_64& rng) {
  const std::vector<int> hosts = HostsWith(b, false);
  if (hosts.empty()) throw std::invalid_argument("no training log to write the hint storm into");
  const Cluster& c = b.c;
  for (size_t i = 0; i < lines; ++i) {
    const int node = hosts[i % hosts.size()];
    const int gpu = static_cast<int>(rng() % static_cast<uint64_t>(c.gpus));
    const double t = c.start + (c.fail - 1 - c.start) * Uniform(rng);
    b.Node(node).train.Add(t, TrainLine(b.N(node), c.Rank(node, gpu), t, NcclHeader(b.N(node), gpu, kPidBase + gpu) + kHintMessage));
  }
}

// One healthy host's GPU repeats Xid 95 in the hour two days before the job: history, so
// the scenario's verdict stands, and the same work for a scanner as a storm in the job.
int XidStorm(Bundle& b, size_t lines, std::mt19937_64& rng) {
  std::set<std::string> in_verdict;
  for (const char* list : {"isolate", "repair"})
    if (b.expected.contains(list))
      for (const auto& e : b.expected[list])
        if (e.contains("host") && e["host"].is_string()) in_verdict.insert(e["host"].get<std::string>());
  std::vector<int> healthy;
  for (int i : HostsWith(b, true))
    if (!in_verdict.count(b.N(i).host)) healthy.push_back(i);
  if (healthy.empty()) throw std::invalid_argument("no healthy host's kernel log to write the Xid storm into");
  const int h = healthy[rng() % healthy.size()];
  const GenNode& n = b.N(h);
  const int gpu = static_cast<int>(rng() % static_cast<uint64_t>(b.c.gpus));
  const std::string msg = CriticalXidLine(n, gpu, 95, 2214 + static_cast<int>(rng() % 30000));
  const double from = b.c.start - kXidDaysBefore * 86400;
  for (size_t i = 0; i < lines; ++i) {
    const double t = from + kXidSpanSeconds * static_cast<double>(i) / static_cast<double>(lines);
    b.Node(h).kernel.Add(t, KernelLine(n, t, msg, kJournalFormat));
  }
  return h;
}

}  // namespace

void AddStorms(Bundle& b, const StormOptions& o, uint64_t seed) {
  if (o.hint_lines == 0 && o.xid_lines == 0) return;
  std::mt19937_64 rng(seed * 0x2545F4914F6CDD1Dull + 17);
  nlohmann::json storm = nlohmann::json::object();
  if (o.hint_lines) {
    HintStorm(b, o.hint_lines, rng);
    storm["hint_lines"] = o.hint_lines;
    storm["hint_message"] = kHintMessage;
  }
  if (o.xid_lines) {
    const int h = XidStorm(b, o.xid_lines, rng);
    storm["xid_lines"] = o.xid_lines;
    storm["xid_host"] = b.N(h).host;
  }
  b.expected["storm"] = std::move(storm);
}

}  // namespace aegis::gen
