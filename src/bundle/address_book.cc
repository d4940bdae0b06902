#include "bundle/address_book.h"

#include <algorithm>

#include "common/text.h"

namespace aegis {

namespace {
std::string ShortName(std::string_view host) {
  std::string h = ToLower(host);
  if (size_t dot = h.find('.'); dot != std::string::npos && !(h[0] >= '0' && h[0] <= '9')) h.resize(dot);
  return h;
}

struct PciParts {
  std::string domain, bus, dev, fn;  // lower-case hex; empty when absent
};

std::optional<PciParts> SplitPci(std::string_view s) {
  std::string t = ToLower(Trim(s));
  if (StartsWith(t, "pci:")) t = t.substr(4);
  PciParts p;
  if (size_t dot = t.rfind('.'); dot != std::string::npos) {
    p.fn = t.substr(dot + 1);
    t.resize(dot);
  }
  auto parts = Split(t, ':');
  if (parts.size() == 3) {
    p.domain = std::string(parts[0]);
    p.bus = std::string(parts[1]);
    p.dev = std::string(parts[2]);
  } else if (parts.size() == 2) {
    p.bus = std::string(parts[0]);
    p.dev = std::string(parts[1]);
  } else {
    return std::nullopt;
  }
  auto strip = [](std::string& x) {
    while (x.size() > 1 && x[0] == '0') x.erase(0, 1);
  };
  strip(p.domain);
  strip(p.bus);
  strip(p.dev);
  strip(p.fn);
  if (p.bus.empty() || p.dev.empty()) return std::nullopt;
  return p;
}
}  // namespace

AddressBook::AddressBook(const Topology& topology, const Job& job) : topo_(topology), job_(job) {
  for (size_t i = 0; i < topo_.nodes.size(); ++i) {
    const NodeInfo& n = topo_.nodes[i];
    const int ni = static_cast<int>(i);
    by_name_.emplace(ToLower(n.host), ni);
    by_name_.emplace(ShortName(n.host), ni);
    if (!n.mgmt_ip.empty()) by_ip_.emplace(n.mgmt_ip, Place{ni, -1, -1});
    for (size_t k = 0; k < n.nics.size(); ++k)
      if (!n.nics[k].ip.empty()) by_ip_[n.nics[k].ip] = Place{ni, static_cast<int>(k), -1};
  }
  for (const RankInfo& r : job_.ranks) explicit_ranks_[r.rank] = Place{topo_.FindNode(r.host), -1, r.gpu};
  // Default layout: ranks fill the job's hosts in order, G per host (G: its GPU count, 8
  // when the topology does not say).
  first_rank_.push_back(0);
  for (const std::string& h : job_.hosts) {
    const int node = topo_.FindNode(h);
    int g = node >= 0 ? static_cast<int>(topo_.nodes[static_cast<size_t>(node)].gpus.size()) : 0;
    if (g <= 0) g = 8;
    rank_node_.push_back(node);
    first_rank_.push_back(first_rank_.back() + g);
  }
}

std::string AddressBook::CleanEndpoint(std::string_view text) {
  std::string_view s = Trim(text);
  // Markdown link pasted from an issue: "[10.1.3.201](http://10.1.3.201/)".
  if (!s.empty() && s[0] == '[') {
    size_t close = s.find(']');
    if (close != std::string_view::npos) s = s.substr(1, close - 1);
  }
  if (size_t lt = s.find('<'); lt != std::string_view::npos) s = s.substr(0, lt);  // "ip<port>"
  while (!s.empty() && (s.back() == ',' || s.back() == ']' || s.back() == ')' || s.back() == '.')) s.remove_suffix(1);
  if (!s.empty() && s.front() == '[') s.remove_prefix(1);
  std::string out(s);
  // RoCE GIDs carry the IPv4 address: "::ffff:10.206.1.11".
  if (IStartsWith(out, "::ffff:")) out = out.substr(7);
  // "[ip]:port" / "host:port" with one colon: drop the port.
  if (std::count(out.begin(), out.end(), ':') == 1) out.resize(out.find(':'));
  return out;
}

Place AddressBook::ResolvePeer(std::string_view text) const {
  std::string e = CleanEndpoint(text);
  if (e.empty()) return {};
  if (auto it = by_ip_.find(e); it != by_ip_.end()) return it->second;
  if (int n = NodeByName(e); n >= 0) return Place{n, -1, -1};
  return {};
}

int AddressBook::NodeByName(std::string_view host) const {
  if (int exact = topo_.FindNode(std::string(host)); exact >= 0) return exact;  // before any case folding
  if (auto it = by_name_.find(ToLower(host)); it != by_name_.end()) return it->second;
  if (auto it = by_name_.find(ShortName(host)); it != by_name_.end()) return it->second;
  return -1;
}

int AddressBook::GpuByPci(int node, std::string_view pci) const {
  if (node < 0 || pci.empty()) return -1;
  auto want = SplitPci(pci);
  if (!want) return -1;
  for (const GpuInfo& g : topo_.nodes[static_cast<size_t>(node)].gpus) {
    auto have = SplitPci(g.pci);
    if (!have || have->bus != want->bus || have->dev != want->dev) continue;
    if (!have->domain.empty() && !want->domain.empty() && have->domain != want->domain) continue;
    if (!have->fn.empty() && !want->fn.empty() && have->fn != want->fn) continue;
    return g.index;
  }
  return -1;
}

int AddressBook::NicByName(int node, std::string_view name) const {
  if (node < 0 || name.empty()) return -1;
  const auto& nics = topo_.nodes[static_cast<size_t>(node)].nics;
  for (size_t k = 0; k < nics.size(); ++k)
    if (nics[k].name == name) return static_cast<int>(k);
  return -1;
}

Place AddressBook::ResolveRank(int rank) const {
  if (rank < 0) return {};
  if (!explicit_ranks_.empty()) {
    auto it = explicit_ranks_.find(rank);
    return it == explicit_ranks_.end() ? Place{} : it->second;
  }
  auto it = std::upper_bound(first_rank_.begin(), first_rank_.end(), rank);
  if (it == first_rank_.begin() || it == first_rank_.end()) return {};
  const size_t host = static_cast<size_t>(it - first_rank_.begin()) - 1;
  return Place{rank_node_[host], -1, rank - first_rank_[host]};
}

}  // namespace aegis
