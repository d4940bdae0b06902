// NetDiag (docs/algorithm.md, step 5): what the network itself says. Switch syslog
// events (port down / flap, CRC / FEC errors, optic alarms) on a port that topology.json
// cables to a host NIC, and probe results (probes.json) where the paths that lose packets,
// or only large ones, or show outlying latency, share one endpoint NIC.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <cctype>
#include <cstring>
#include <set>

#include "common/text.h"
#include "engine/stages.h"

namespace aegis {

namespace {

constexpr double kLossy = 0.02;         // loss rate that makes a path bad
constexpr double kClean = 0.005;        // loss rate a clean path stays under
constexpr double kLatencyFactor = 5.0;  // p99 this many times the median p99 of its size
constexpr double kLatencyFloorUs = 50.0;
constexpr double kEndpointShare = 0.6;

struct PortRef {
  int node = -1, nic = -1;
  std::string switch_name, port;
};

// "Ethernet1/8", "Eth1/8" and "et1/8" name one port.
std::string NormalizePort(std::string_view port) {
  std::string p = ToLower(port);
  for (const char* prefix : {"ethernet", "eth", "et"})
    if (StartsWith(p, prefix) && p.size() > strlen(prefix) && std::isdigit(static_cast<unsigned char>(p[strlen(prefix)])))
      return "eth" + p.substr(strlen(prefix));
  return p;
}

std::vector<PortRef> CabledTo(const Incident& inc, const std::string& sw, const std::string& port) {
  std::vector<PortRef> out;
  for (size_t n = 0; n < inc.topology.nodes.size(); ++n) {
    const auto& nics = inc.topology.nodes[n].nics;
    for (size_t k = 0; k < nics.size(); ++k)
      for (size_t s = 0; s < nics[k].switches.size(); ++s) {
        const std::string& p = s < nics[k].ports.size() ? nics[k].ports[s] : (nics[k].ports.empty() ? "" : nics[k].ports[0]);
        if (nics[k].switches[s] == sw && NormalizePort(p) == NormalizePort(port))
          out.push_back({static_cast<int>(n), static_cast<int>(k), sw, p});
      }
  }
  return out;
}

void SwitchFindings(const Incident& inc, std::vector<NetFinding>* out) {
  struct PortState {
    uint64_t downs = 0, ups = 0, errors = 0;  // lines, a repeated line as often as it was printed
    std::vector<const LocatedEvent*> events;
  };
  std::map<std::pair<std::string, std::string>, PortState> ports;
  for (const auto& e : inc.events) {
    if (e.source != SourceKind::kSwitch) continue;
    std::string port(e.ev.Field("port"));
    if (port.empty()) continue;
    PortState& st = ports[{e.host, port}];
    if (e.ev.rule_id == "switch-port-up") st.ups += e.ev.count;
    else if (e.ev.component == Component::kSwitchPort) st.downs += e.ev.count;
    else if (e.ev.line_class == LineClass::kCritical) st.errors += e.ev.count;
    else continue;
    st.events.push_back(&e);
  }
  for (const auto& [key, st] : ports) {
    if (st.downs == 0 && st.errors == 0) continue;
    for (const PortRef& ref : CabledTo(inc, key.first, key.second)) {
      if (!inc.InScope(ref.node)) continue;
      NetFinding f;
      f.node = ref.node;
      f.nic = ref.nic;
      f.port = ref.port;
      f.switch_name = ref.switch_name;
      f.component = st.downs > 0 ? Component::kSwitchPort : Component::kLink;
      f.support = 0.9;  // the switch's own record of the port
      const std::string nic = NicDevice(inc, ref.node, ref.nic);
      if (st.downs > 0 && st.ups > 0)
        f.what = fmt::format("port {} of {} flapping ({} down, {} up) on {}'s {}", ref.port, ref.switch_name, st.downs,
                             st.ups, HostOf(inc, ref.node), nic);
      else if (st.downs > 0)
        f.what = fmt::format("port {} of {} down on {}'s {}", ref.port, ref.switch_name, HostOf(inc, ref.node), nic);
      else
        f.what = fmt::format("link errors on port {} of {} ({}'s {})", ref.port, ref.switch_name, HostOf(inc, ref.node),
                             nic);
      for (size_t i = 0; i < st.events.size() && i < 6; ++i) f.evidence.push_back(EvidenceOf(*st.events[i]));
      out->push_back(std::move(f));
    }
  }
}

struct Endpoint {
  int node = -1, nic = -1;
  bool operator<(const Endpoint& o) const { return std::tie(node, nic) < std::tie(o.node, o.nic); }
};

void ProbeFindings(const Incident& inc, std::vector<NetFinding>* out) {
  if (inc.probes.empty()) return;
  const AddressBook& book = *inc.book;
  // Median p99 per probe size, for latency outliers.
  std::map<int, std::vector<double>> p99_by_size;
  for (const auto& p : inc.probes)
    if (!std::isnan(p.rtt_p99)) p99_by_size[p.size].push_back(p.rtt_p99);
  std::map<int, double> median_p99;
  for (auto& [size, v] : p99_by_size) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    median_p99[size] = v[v.size() / 2];
  }
  struct PathState {
    std::map<int, double> loss_by_size;  // worst loss rate seen at each probe size
    bool slow = false;
    std::vector<const ProbeResult*> probes;
  };
  std::map<std::pair<std::string, std::string>, PathState> paths;
  for (const auto& p : inc.probes) {
    PathState& st = paths[{p.src, p.dst}];
    const double loss = static_cast<double>(p.lost) / static_cast<double>(p.sent);
    double& worst = st.loss_by_size[p.size];
    worst = std::max(worst, loss);
    const double med = median_p99.count(p.size) ? median_p99[p.size] : NAN;
    if (!std::isnan(p.rtt_p99) && !std::isnan(med) && p99_by_size[p.size].size() >= 4 &&
        p.rtt_p99 > kLatencyFactor * med && p.rtt_p99 > med + kLatencyFloorUs)
      st.slow = true;
    st.probes.push_back(&p);
  }
  struct Bad {
    std::string kind;  // "large-packet loss", "packet loss", "latency"
    Endpoint src, dst;
    const PathState* st;
    std::string src_ip, dst_ip;
  };
  std::vector<Bad> bad;
  for (const auto& [key, st] : paths) {
    // Sizes in order: a path that loses its largest packets while its smallest get
    // through drops on size (MTU mismatch, a bad optic corrupting long frames).
    std::string kind;
    const double smallest = st.loss_by_size.begin()->second, largest = st.loss_by_size.rbegin()->second;
    double worst = 0;
    for (const auto& [size, loss] : st.loss_by_size) worst = std::max(worst, loss);
    if (st.loss_by_size.size() >= 2 && largest >= kLossy && smallest <= kClean) kind = "large-packet loss";
    else if (worst >= kLossy) kind = "packet loss";
    else if (st.slow) kind = "latency";
    if (kind.empty()) continue;
    Place s = book.ResolvePeer(key.first), d = book.ResolvePeer(key.second);
    bad.push_back({kind, {s.node, s.nic}, {d.node, d.nic}, &st, key.first, key.second});
  }
  if (bad.empty()) return;
  std::map<Endpoint, int> count;
  for (const auto& b : bad) {
    if (b.src.node >= 0) ++count[b.src];
    if (b.dst.node >= 0 && !(b.dst.node == b.src.node && b.dst.nic == b.src.nic)) ++count[b.dst];
  }
  std::vector<Endpoint> culprits;
  if (bad.size() == 1) {
    // One bad path: either end may be at fault.
    if (bad[0].src.node >= 0) culprits.push_back(bad[0].src);
    if (bad[0].dst.node >= 0) culprits.push_back(bad[0].dst);
  } else {
    if (auto best = ClearLeader(count, kEndpointShare, static_cast<double>(bad.size()))) culprits.push_back(*best);
  }
  for (const Endpoint& ep : culprits) {
    if (!inc.InScope(ep.node)) continue;
    NetFinding f;
    f.node = ep.node;
    f.nic = ep.nic;
    f.component = Component::kLink;
    const NodeInfo& node = inc.topology.nodes[static_cast<size_t>(ep.node)];
    std::string nic_name = NicDevice(inc, ep.node, ep.nic);
    if (ep.nic >= 0) {
      const NicInfo& nic = node.nics[static_cast<size_t>(ep.nic)];
      if (!nic.ports.empty()) f.port = nic.ports[0];
      if (!nic.switches.empty()) f.switch_name = nic.switches[0];
    }
    std::string kind;
    int paths_here = 0;
    for (const auto& b : bad) {
      if (!((b.src.node == ep.node && b.src.nic == ep.nic) || (b.dst.node == ep.node && b.dst.nic == ep.nic))) continue;
      kind = b.kind;
      ++paths_here;
      if (f.evidence.size() >= 6) continue;
      for (const ProbeResult* p : b.st->probes) {
        Evidence e;
        e.host = node.host;
        e.file = "probes.json";
        e.line = 0;
        e.rule = "probe-" + std::string(b.kind == "large-packet loss" ? "large-packet-loss"
                                        : b.kind == "packet loss"     ? "packet-loss"
                                                                      : "latency");
        e.text = fmt::format("entry {}: {} -> {} size {}: {}/{} lost, rtt p50 {} us, p99 {} us", p->index, p->src, p->dst,
                             p->size, p->lost, p->sent, p->rtt_p50, p->rtt_p99);
        f.evidence.push_back(e);
      }
    }
    f.what = fmt::format("{} on {} path(s) through {}{}", kind, paths_here, node.host,
                         nic_name.empty() ? "" : " " + nic_name);
    f.support = bad.size() == 1 ? 0.5 : static_cast<double>(paths_here) / static_cast<double>(bad.size());
    out->push_back(std::move(f));
  }
}

}  // namespace

std::vector<NetFinding> RunNetDiag(const Incident& inc) {
  std::vector<NetFinding> out;
  SwitchFindings(inc, &out);
  ProbeFindings(inc, &out);
  return out;
}

bool NetDiagStage(const Incident& inc, const std::vector<NetFinding>& net, Verdict* v) {
  if (net.empty()) return false;
  AddNetRepairs(inc, net, v);
  std::vector<std::string> what;
  for (const auto& f : net)
    if (what.size() < 3) what.push_back(f.what);
  double support = 0;
  for (const auto& f : net) support = std::max(support, f.support);
  Decide(v, Action::kRepair, Cause::kNetwork, Stage::kNetDiag,
         fmt::format("NetDiag: {}; repair and restart.", fmt::join(what, "; ")),
         Support(support, fmt::format("{} network finding(s): {}", net.size(), what.front())));
  return true;
}

}  // namespace aegis
