// Stage 1: a critical line proves its node bad on its own. The cheapest and most often
// right path (docs/algorithm.md, step 1), so it runs first and nothing else can outvote it.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "engine/stages.h"

namespace aegis {

namespace {

constexpr size_t kEvidencePerHost = 4;
constexpr uint64_t kUserExplainsLines = 10;  // NCCL prints the wrapped CUDA error right after

std::string Describe(const LocatedEvent& e) {
  if (e.ev.xid >= 0 && e.ev.rule_id.rfind("xid-", 0) == 0) return fmt::format("Xid {}", e.ev.xid);
  return e.ev.rule_id;
}

std::string DeviceName(const Incident& inc, int node, const LocatedEvent& e) {
  const Component c = e.ev.component;
  const bool gpu_side = c == Component::kGpu || c == Component::kNvlink;
  if (e.gpu >= 0 && (gpu_side || c == Component::kPcie)) return GpuDevice(e.gpu);
  if (gpu_side) return {};
  if (e.nic >= 0) return NicDevice(inc, node, e.nic);
  if (auto nic = e.ev.Field("nic"); !nic.empty()) return std::string(nic);
  if (auto pci = e.ev.Field("pci"); !pci.empty() && c == Component::kPcie) return std::string(pci);
  return {};
}

// A NIC that lost its link while the switch saw its port go down or flap: the link
// (cable, optic, switch port) is the likelier fault, and it is repaired, not the host.
bool ExplainedByLink(const std::vector<const LocatedEvent*>& list, const NetFinding* link) {
  if (!link) return false;
  for (auto* e : list)
    if (e->ev.component != Component::kNic && e->ev.component != Component::kLink) return false;
  return true;
}

}  // namespace

bool CriticalStage(const Incident& inc, const std::vector<NetFinding>& net, Verdict* v) {
  // Job and configuration errors by file, for the critical wrappers they explain (an
  // "unhandled cuda error" beside the job's out-of-memory, or beside NVLS set-up refused
  // by a Fabric Manager that is not running: the wrapped error is that one's).
  std::map<std::string, std::vector<uint64_t>> user_lines;
  for (const auto& e : inc.events)
    if (e.ev.line_class == LineClass::kUser || e.ev.line_class == LineClass::kConfig)
      user_lines[e.file].push_back(e.ev.line);
  auto explained = [&](const LocatedEvent& e) {
    if (!e.ev.yields_to_user) return false;
    auto it = user_lines.find(e.file);
    if (it == user_lines.end()) return false;
    return std::any_of(it->second.begin(), it->second.end(), [&](uint64_t l) {
      return (l > e.ev.line ? l - e.ev.line : e.ev.line - l) <= kUserExplainsLines;
    });
  };
  // Per host, its critical events from host logs, earliest first.
  std::map<int, std::vector<const LocatedEvent*>> by_node;
  for (const auto& e : inc.events) {
    if (e.ev.line_class != LineClass::kCritical || e.source == SourceKind::kSwitch) continue;
    if (e.history || !inc.InScope(e.node) || explained(e)) continue;
    by_node[e.node].push_back(&e);
  }
  if (by_node.empty()) return false;

  bool any_hardware = false;
  std::map<int, const NetFinding*> link_of;
  for (auto& [node, list] : by_node) {
    // Lines with their own time first: a time inherited from a neighbour is only a lower
    // bound (an untimed CUDA error may well follow the kernel's Xid).
    std::sort(list.begin(), list.end(), [](auto* a, auto* b) {
      if (a->ev.ts_exact != b->ev.ts_exact) return a->ev.ts_exact;
      return EarlierEvent(*a, *b);
    });
    for (const auto& f : net)
      if (f.node == node && !f.port.empty()) link_of[node] = &f;
    const bool link = ExplainedByLink(list, link_of.count(node) ? link_of[node] : nullptr);
    for (auto* e : list) any_hardware |= IsHostHardware(e->ev.component) && !link;
    if (!link) link_of.erase(node);
  }
  std::vector<std::string> parts;
  for (auto& [node, list] : by_node) {
    // The earliest hardware event names the component; later ones are usually its echo
    // (an Xid 79 is followed by CUDA errors of every process on that GPU).
    const LocatedEvent* primary = nullptr;
    const bool link = link_of.count(node) > 0;
    for (auto* e : list)
      if ((IsHostHardware(e->ev.component) && !link) == any_hardware) {
        primary = e;
        break;
      }
    if (!primary) continue;
    const std::string host = HostOf(inc, node);
    if (any_hardware) {
      IsolateEntry entry;
      entry.host = host;
      entry.component = primary->ev.component;
      // The device: a GPU named by any line of that component (a PCIe fatal error is first
      // reported by the upstream port, then by the GPU behind it), else the first name.
      for (auto* e : list)
        if (e->ev.component == entry.component && e->gpu >= 0 && entry.component != Component::kNic) {
          entry.device = DeviceName(inc, node, *e);
          break;
        }
      for (auto* e : list)
        if (entry.device.empty() && e->ev.component == entry.component) entry.device = DeviceName(inc, node, *e);
      v->isolate.push_back(entry);
      parts.push_back(fmt::format("{} of {} ({})", entry.device.empty() ? ToString(entry.component) : entry.device,
                                  host, Describe(*primary)));
    } else {
      if (link) {
        const NetFinding& f = *link_of[node];
        AddNetRepairs(inc, {f}, v);
        parts.push_back(fmt::format("{} ({} on the host)", f.what, Describe(*primary)));
        for (size_t k = 0; k < list.size() && k < kEvidencePerHost; ++k) v->evidence.push_back(EvidenceOf(*list[k]));
        continue;
      }
      RepairEntry r;
      r.host = host;
      r.component = Component::kLink;
      const NodeInfo& n = inc.topology.nodes[static_cast<size_t>(node)];
      if (primary->nic >= 0) {
        const NicInfo& nic = n.nics[static_cast<size_t>(primary->nic)];
        r.device = nic.ports.empty() ? nic.name : nic.ports[0];
        if (!nic.switches.empty()) r.switch_name = nic.switches[0];
      }
      v->repair.push_back(r);
      parts.push_back(fmt::format("the link of {} ({})", host, Describe(*primary)));
    }
    size_t k = 0;
    for (auto* e : list) {
      if (k++ >= kEvidencePerHost) break;
      v->evidence.push_back(EvidenceOf(*e));
    }
  }
  // A critical line proves its own host bad. Critical lines on many hosts at once are
  // still each a fault, but a shared cause (power, a driver or firmware push) is then as
  // likely as many failed devices: said in the confidence.
  uint64_t lines = 0;
  for (const auto& [node, list] : by_node) lines += Records(list);
  const size_t hosts_hit = by_node.size();
  double score = hosts_hit <= 2 ? 0.95 : hosts_hit <= 4 ? 0.7 : 0.5;
  // Without the job's start, a line from days before (kernel logs keep history since
  // boot) cannot be told from this job's: said, and not trusted as much.
  const bool windowed = !std::isnan(inc.job.started_at);
  if (!windowed) score = std::min(score, 0.6);
  Confidence c = Support(
      score, fmt::format("{} critical line(s) on {} host(s) {}{}", lines, hosts_hit,
                         windowed ? "within the job's time window"
                                  : "of any date: the job has no start time, so there is no time window and history "
                                    "cannot be told from this job's lines",
                         hosts_hit > 2 ? "; several hosts at once: a shared cause is possible" : ""));
  if (any_hardware) {
    std::string hosts;
    for (const auto& i : v->isolate) hosts += (hosts.empty() ? "" : ", ") + i.host;
    Decide(v, Action::kIsolate, Cause::kHardware, Stage::kCriticalError,
           fmt::format("critical error on {}; isolate {} and restart.", fmt::join(parts, "; "), hosts), std::move(c));
  } else {
    // When the switch's view decided it is the link, NetDiag made the decision.
    Decide(v, Action::kRepair, Cause::kNetwork, link_of.empty() ? Stage::kCriticalError : Stage::kNetDiag,
           fmt::format("link failure: {}; repair it and restart.", fmt::join(parts, "; ")), std::move(c));
  }
  return true;
}

}  // namespace aegis
