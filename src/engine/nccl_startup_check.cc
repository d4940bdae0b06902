#include "engine/nccl_startup_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "common/text.h"

namespace aegis {

namespace {

// Where a finding comes from, for the operator: "nodes/h/train.log:12: <line>".
std::string Where(const LocatedEvent& e) {
  return fmt::format("{}:{}: {}", e.file, e.ev.line, e.ev.text.substr(0, 200));
}

std::string Lower(std::string_view s) { return ToLower(std::string(s)); }

// Events that can speak for a job host's configuration: its own logs, on the job's window.
std::vector<const LocatedEvent*> StartupEvents(const Incident& inc) {
  std::vector<const LocatedEvent*> out;
  for (const auto& e : inc.events)
    if (e.source != SourceKind::kSwitch && !e.history && e.node >= 0 && inc.InScope(e.node)) out.push_back(&e);
  return out;
}

// NIC names the host's facts list (nic.<name>.<attribute>; "nic.count" is no NIC).
std::set<std::string> NicNames(const Facts& facts) {
  std::set<std::string> names;
  for (const auto& [key, value] : facts) {
    auto parts = Split(key, '.');
    if (parts.size() >= 3 && parts[0] == "nic") names.insert(std::string(parts[1]));
  }
  return names;
}

// The host's RDMA NICs run RoCE (Ethernet link layer): there, GIDs must route.
bool HasRoce(const Facts& facts) {
  for (const auto& [key, value] : facts) {
    auto parts = Split(key, '.');
    if (parts.size() == 3 && parts[0] == "nic" && parts[2] == "link_layer") {
      const std::string v = Lower(Trim(value));
      if (v == "ethernet" || v == "roce") return true;
    }
  }
  return false;
}

std::string FactOr(const Facts* facts, const std::string& key, std::string fallback) {
  if (facts)
    if (auto it = facts->find(key); it != facts->end()) return it->second;
  return fallback;
}

// An interface other hosts cannot reach: loopback, a container bridge, a virtual one.
bool LocalOnlyInterface(std::string_view name) {
  const std::string n = Lower(name);
  return n == "lo" || StartsWith(n, "docker") || StartsWith(n, "virbr") || StartsWith(n, "br-") ||
         StartsWith(n, "cni") || StartsWith(n, "veth");
}

// What kind of address other hosts cannot reach, or "" when it is routable.
std::string LocalOnlyAddress(std::string_view addr) {
  const std::string a = Lower(addr);
  if (StartsWith(a, "127.")) return "loopback";
  if (StartsWith(a, "172.17.")) return "the docker default bridge";
  if (StartsWith(a, "169.254.") || StartsWith(a, "fe80:")) return "link-local";
  return "";
}

// NCCL_IB_HCA entries ("mlx5_0:1", "=mlx5_0", "^mlx5_3" excludes) that match no NIC of
// the host: without '=' an entry is a prefix of device names. Empty for an exclusion list.
std::vector<std::string> MissingHcas(std::string_view value, const std::set<std::string>& nics) {
  std::string v(Trim(value));
  if (v.empty() || v[0] == '^') return {};
  bool exact = false;
  if (v[0] == '=') {
    exact = true;
    v.erase(0, 1);
  }
  std::vector<std::string> missing;
  for (auto entry : Split(v, ',')) {
    std::string name(Trim(entry.substr(0, entry.find(':'))));
    if (name.empty()) continue;
    const bool found = std::any_of(nics.begin(), nics.end(), [&](const std::string& nic) {
      return exact ? nic == name : StartsWith(nic, name);
    });
    if (!found) missing.push_back(name);
  }
  return missing;
}

void Add(std::vector<ConfigFinding>& out, std::set<std::pair<std::string, std::string>>& seen, ConfigFinding f) {
  if (seen.insert({f.host, f.key}).second) out.push_back(std::move(f));
}

}  // namespace

std::vector<ConfigFinding> RunNcclStartupCheck(const Incident& inc) {
  std::vector<ConfigFinding> out;
  std::set<std::pair<std::string, std::string>> seen;  // (host, key): one finding each
  const auto events = StartupEvents(inc);
  const size_t job_hosts = std::max<size_t>(inc.job.hosts.size(), inc.job_nodes.size());
  auto facts_of = [&](const std::string& host) -> const Facts* {
    auto it = inc.facts.find(host);
    return it == inc.facts.end() ? nullptr : &it->second;
  };

  // Interfaces other hosts cannot reach, in a job of several hosts.
  if (job_hosts > 1) {
    for (const LocatedEvent* e : events) {
      std::string what;
      if (auto addr = e->ev.Field("socket_addr"); !addr.empty()) {
        if (std::string kind = LocalOnlyAddress(addr); !kind.empty())
          what = fmt::format("{} ({}, {})", e->ev.Field("socket_if"), addr, kind);
      } else if (e->ev.Field("env") == "NCCL_SOCKET_IFNAME") {
        const std::string value(Trim(e->ev.Field("value")));
        if (!value.empty() && value[0] != '^') {
          auto names = Split(value[0] == '=' ? std::string_view(value).substr(1) : std::string_view(value), ',');
          if (!names.empty() && std::all_of(names.begin(), names.end(), [](auto n) { return LocalOnlyInterface(Trim(n)); }))
            what = value;
        }
      }
      if (what.empty()) continue;
      Add(out, seen,
          {e->host, "env.NCCL_SOCKET_IFNAME", FactOr(facts_of(e->host), "env.NCCL_SOCKET_IFNAME", what),
           "an interface the other hosts reach", "nccl-socket-interface",
           fmt::format("NCCL uses {}, which the other {} host(s) of the job cannot reach ({})", what, job_hosts - 1,
                       Where(*e)),
           job_hosts, 0});
    }
  }

  // RDMA: a fall-back to sockets, NCCL_IB_HCA naming devices the host lacks, link-local GIDs.
  std::map<std::string, std::string> hca_value;  // host -> NCCL_IB_HCA from its log
  std::map<std::string, const LocatedEvent*> hca_event;
  for (const LocatedEvent* e : events)
    if (e->ev.Field("env") == "NCCL_IB_HCA" && !hca_value.count(e->host)) {
      hca_value[e->host] = std::string(e->ev.Field("value"));
      hca_event[e->host] = e;
    }
  for (const auto& host : inc.job.hosts) {
    const Facts* facts = facts_of(host);
    if (!facts) continue;
    const auto nics = NicNames(*facts);
    if (nics.empty()) continue;
    const bool from_log = hca_value.count(host) > 0;
    const std::string hca = from_log ? hca_value[host] : FactOr(facts, "env.NCCL_IB_HCA", "");
    if (auto missing = MissingHcas(hca, nics); !missing.empty())
      Add(out, seen,
          {host, "env.NCCL_IB_HCA", hca, fmt::format("devices of this host ({})", fmt::join(nics, ", ")),
           "nccl-ib-hca",
           fmt::format("NCCL_IB_HCA names {} that this host lacks{}", fmt::join(missing, ", "),
                       from_log ? " (" + Where(*hca_event[host]) + ")" : ""),
           job_hosts, 0});
  }
  for (const LocatedEvent* e : events) {
    const Facts* facts = facts_of(e->host);
    if (!facts) continue;
    if (!e->ev.Field("ib_fallback").empty()) {
      const auto nics = NicNames(*facts);
      const std::string disable(Trim(FactOr(facts, "env.NCCL_IB_DISABLE", "")));
      if (nics.empty() || disable == "1") continue;  // no RDMA NIC, or IB off on purpose
      Add(out, seen,
          {e->host, "env.NCCL_IB_HCA", FactOr(facts, "env.NCCL_IB_HCA", ""),
           fmt::format("RDMA devices NCCL can open ({})", fmt::join(nics, ", ")), "nccl-ib-fallback",
           fmt::format("NCCL found no RDMA device and fell back to sockets on a host with {} RDMA NIC(s) ({})",
                       nics.size(), Where(*e)),
           job_hosts, 0});
    }
    if (auto gid = e->ev.Field("local_gid"); !gid.empty() && StartsWith(Lower(gid), "fe80:") && HasRoce(*facts))
      Add(out, seen,
          {e->host, "env.NCCL_IB_GID_INDEX", FactOr(facts, "env.NCCL_IB_GID_INDEX", ""),
           "the index of a routable GID (RoCE v2 with the host's IP address)", "nccl-roce-gid",
           fmt::format("NCCL's RoCE GID {} is link-local and does not route between subnets ({})", gid, Where(*e)),
           job_hosts, 0});
  }

  // NCCL versions: the odd host out of those that print one.
  std::map<std::string, std::map<std::string, uint64_t>> versions;  // host -> version -> lines
  std::map<std::string, const LocatedEvent*> version_event;
  for (const LocatedEvent* e : events)
    if (auto v = e->ev.Field("nccl_version"); !v.empty()) {
      versions[e->host][std::string(v)] += e->ev.count;
      version_event.emplace(e->host, e);
    }
  if (versions.size() > 1) {
    std::map<std::string, std::vector<std::string>> hosts_by_version;
    for (const auto& [host, counts] : versions) {
      auto top = std::max_element(counts.begin(), counts.end(), [](auto& a, auto& b) { return a.second < b.second; });
      hosts_by_version[top->first].push_back(host);
    }
    if (hosts_by_version.size() > 1) {
      auto majority = std::max_element(hosts_by_version.begin(), hosts_by_version.end(),
                                       [](auto& a, auto& b) { return a.second.size() < b.second.size(); });
      const bool clear = majority->second.size() * 2 > versions.size();
      const size_t differing = clear ? versions.size() - majority->second.size() : versions.size();
      for (const auto& [version, hosts] : hosts_by_version) {
        if (clear && version == majority->first) continue;
        for (const auto& host : hosts)
          Add(out, seen,
              {host, "nccl.version", version, clear ? majority->first : "the same version on every host",
               "nccl-version",
               fmt::format("NCCL {} here, the job's other hosts differ ({})", version, Where(*version_event[host])),
               versions.size(), differing});
      }
    }
  }

  // Per-host findings: how many of the job's hosts each check marked.
  std::map<std::string, size_t> marked;
  for (const auto& f : out) ++marked[f.check];
  for (auto& f : out)
    if (f.hosts_differing == 0) f.hosts_differing = marked[f.check];
  return out;
}

}  // namespace aegis
