// Stage 1: a critical line proves its node bad on its own. The cheapest and most often
// right path (AEGIS.md, section 1), so it runs first and nothing else can outvote it.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "diagnose/stages.h"

namespace aegis {

namespace {

constexpr size_t kEvidencePerHost = 4;

bool IsHardware(const std::string& component) {
  return component != "link" && component != "switch_port" && component != "config" && component != "job";
}

std::string Describe(const LocatedEvent& e) {
  if (e.ev.xid >= 0 && e.ev.rule_id.rfind("xid-", 0) == 0) return fmt::format("Xid {}", e.ev.xid);
  return e.ev.rule_id;
}

}  // namespace

bool CriticalStage(const Incident& inc, Verdict* v) {
  // Per host, its critical events from host logs, earliest first.
  std::map<int, std::vector<const LocatedEvent*>> by_node;
  for (const auto& e : inc.events) {
    if (e.ev.line_class != LineClass::kCritical || e.source == SourceKind::kSwitch) continue;
    if (e.node < 0 || (!inc.job_nodes.empty() && !inc.IsJobNode(e.node))) continue;
    by_node[e.node].push_back(&e);
  }
  if (by_node.empty()) return false;

  bool any_hardware = false;
  for (auto& [node, list] : by_node) {
    std::sort(list.begin(), list.end(), [](auto* a, auto* b) { return EarlierEvent(*a, *b); });
    for (auto* e : list) any_hardware |= IsHardware(e->ev.component);
  }
  std::vector<std::string> parts;
  for (auto& [node, list] : by_node) {
    // The earliest hardware event names the component; later ones are usually its echo
    // (an Xid 79 is followed by CUDA errors of every process on that GPU).
    const LocatedEvent* primary = nullptr;
    for (auto* e : list)
      if (IsHardware(e->ev.component) == any_hardware) {
        primary = e;
        break;
      }
    if (!primary) continue;
    const std::string host = HostOf(inc, node);
    if (any_hardware) {
      IsolateEntry entry;
      entry.host = host;
      entry.component = primary->ev.component;
      if (primary->gpu >= 0 && (entry.component == "gpu" || entry.component == "nvlink" || entry.component == "pcie"))
        entry.device = GpuDevice(primary->gpu);
      else if (primary->nic >= 0)
        entry.device = inc.topology.nodes[static_cast<size_t>(node)].nics[static_cast<size_t>(primary->nic)].name;
      else if (auto nic = primary->ev.Field("nic"); !nic.empty())
        entry.device = std::string(nic);
      else if (auto pci = primary->ev.Field("pci"); !pci.empty() && entry.component == "pcie")
        entry.device = std::string(pci);
      v->isolate.push_back(entry);
      parts.push_back(fmt::format("{} of {} ({})", entry.device.empty() ? entry.component : entry.device, host,
                                  Describe(*primary)));
    } else {
      RepairEntry r;
      r.host = host;
      r.component = "link";
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
  v->stage = "critical_error";
  if (any_hardware) {
    v->action = "isolate";
    v->cause = "hardware";
    std::string hosts;
    for (const auto& i : v->isolate) hosts += (hosts.empty() ? "" : ", ") + i.host;
    v->summary = fmt::format("critical error on {}; isolate {} and restart.", fmt::join(parts, "; "), hosts);
  } else {
    v->action = "repair";
    v->cause = "network";
    v->summary = fmt::format("link failure at {}; repair it and restart.", fmt::join(parts, "; "));
  }
  return true;
}

}  // namespace aegis
