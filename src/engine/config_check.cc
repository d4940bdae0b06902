// ConfigCheck (docs/algorithm.md, step 5): the checklist of rules/checks/*.yaml over
// the facts.json of the job's hosts. An "agree" key whose value differs on a minority of
// hosts marks those hosts (the majority is what the job expects); an "expect" key marks
// every host outside the allowed values.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string_view>

#include "common/text.h"
#include "engine/nccl_startup_check.h"
#include "engine/stages.h"

namespace aegis {

namespace {

// Whether dotted `key` matches `pattern`, where '*' stands for one whole segment. No
// allocation: it runs for every fact of every host on each decision of a live incident.
bool KeyMatches(std::string_view key, std::string_view pattern) {
  while (true) {
    const size_t kdot = key.find('.'), pdot = pattern.find('.');
    const std::string_view kseg = key.substr(0, kdot), pseg = pattern.substr(0, pdot);
    if (pseg != "*" && pseg != kseg) return false;
    if (kdot == std::string_view::npos || pdot == std::string_view::npos) return kdot == pdot;
    key.remove_prefix(kdot + 1);
    pattern.remove_prefix(pdot + 1);
  }
}

bool Allowed(const ConfigCheck& c, const std::string& value) {
  if (!c.one_of.empty()) {
    std::string v = ToLower(Trim(value));
    bool hit = std::any_of(c.one_of.begin(), c.one_of.end(), [&](const std::string& a) { return ToLower(a) == v; });
    if (!hit) return false;
  }
  if (!std::isnan(c.min)) {
    auto d = ParseDouble(value);
    if (!d || *d < c.min) return false;
  }
  return true;
}

std::string ExpectedText(const ConfigCheck& c) {
  if (!c.one_of.empty()) return c.one_of.size() == 1 ? c.one_of[0] : fmt::format("one of {}", fmt::join(c.one_of, ", "));
  return fmt::format(">= {}", c.min);
}

}  // namespace

// A job host that has facts. The checklist runs on every decision of a live incident of
// thousands of hosts: hosts and keys are looked up once, values compared as views.
struct HostFacts {
  const std::string* host;
  const Facts* facts;
};

static std::vector<ConfigFinding> RunChecklist(const Incident& inc, const Catalog& catalog) {
  std::vector<ConfigFinding> out;
  // An expectation no host meets is a property of the whole cluster (a site that runs
  // without persistence mode, say), not what broke this job: it is reported only when
  // nothing more specific is found.
  std::vector<ConfigFinding> everywhere;
  std::vector<HostFacts> hosts;
  std::set<std::string_view> all_keys;  // every key any job host reports
  for (const auto& h : inc.job.hosts)
    if (auto it = inc.facts.find(h); it != inc.facts.end()) {
      hosts.push_back({&h, &it->second});
      for (const auto& kv : it->second) all_keys.insert(kv.first);
    }
  if (hosts.empty()) return out;
  for (const ConfigCheck& c : catalog.config_checks()) {
    // Concrete keys this check covers on any host (nic.*.mtu -> nic.mlx5_0.mtu, ...).
    std::vector<std::string_view> keys;
    const bool wildcard = c.key.find('*') != std::string::npos;
    for (std::string_view k : all_keys)
      if (wildcard ? KeyMatches(k, c.key) : k == c.key) keys.push_back(k);
    for (std::string_view key_view : keys) {
      const std::string key(key_view);
      // The value of `key` on each host that reports it.
      std::vector<std::pair<const HostFacts*, std::string_view>> values;
      for (const auto& h : hosts)
        if (auto it = h.facts->find(key); it != h.facts->end()) values.push_back({&h, it->second});
      const size_t with_value = values.size();
      if (c.kind == "expect") {
        std::vector<ConfigFinding> bad;
        for (const auto& [h, value] : values)
          if (!Allowed(c, std::string(value)))
            bad.push_back({*h->host, key, std::string(value), ExpectedText(c), c.id, c.reason, 0, 0});
        for (auto& f : bad) {
          f.hosts_compared = with_value;
          f.hosts_differing = bad.size();
        }
        auto& dest = bad.size() == with_value && with_value > 1 ? everywhere : out;
        dest.insert(dest.end(), bad.begin(), bad.end());
        continue;
      }
      // agree: the majority value is the expected one; needs a strict majority.
      std::map<std::string_view, std::vector<const std::string*>> hosts_by_value;
      for (const auto& [h, value] : values) hosts_by_value[Trim(value)].push_back(h->host);
      if (hosts_by_value.size() < 2) continue;
      auto majority = std::max_element(hosts_by_value.begin(), hosts_by_value.end(),
                                       [](auto& a, auto& b) { return a.second.size() < b.second.size(); });
      if (majority->second.size() * 2 <= with_value) {
        // No majority (e.g. two hosts that disagree): every host is suspect.
        for (const auto& [value, hs] : hosts_by_value)
          for (const std::string* h : hs)
            out.push_back({*h, key, std::string(value), "the same value on every host", c.id, c.reason, with_value,
                           with_value});
        continue;
      }
      const size_t odd = with_value - majority->second.size();
      for (const auto& [value, hs] : hosts_by_value)
        if (value != majority->first)
          for (const std::string* h : hs)
            out.push_back({*h, key, std::string(value), std::string(majority->first), c.id, c.reason, with_value, odd});
    }
  }
  return out.empty() ? everywhere : out;
}

// The checklist over facts.json, then what NCCL itself printed at start-up where the
// facts did not already say it (engine/nccl_startup_check.h).
std::vector<ConfigFinding> RunConfigCheck(const Incident& inc, const Catalog& catalog) {
  std::vector<ConfigFinding> out = RunChecklist(inc, catalog);
  for (auto& f : RunNcclStartupCheck(inc))
    if (std::none_of(out.begin(), out.end(), [&](const ConfigFinding& g) { return g.host == f.host && g.key == f.key; }))
      out.push_back(std::move(f));
  return out;
}

bool ConfigCheckStage(const Incident& inc, const std::vector<ConfigFinding>& config, Verdict* v) {
  if (config.empty()) return false;
  // Many hosts failing one check is one systemic problem; still a repair of each.
  AddRepairs(config, v);
  std::vector<std::string> what;
  for (const auto& f : config) {
    std::string s = fmt::format("{} {}={}", f.host, f.key, f.value.empty() ? "(absent)" : f.value);
    if (std::find(what.begin(), what.end(), s) == what.end() && what.size() < 4) what.push_back(s);
  }
  // The odd host out of many that agree is the clearest finding; hosts that disagree with
  // no majority, or an expectation missed everywhere, say less about what broke this job.
  const ConfigFinding& f = config.front();
  const double odd_share = f.hosts_compared ? static_cast<double>(f.hosts_differing) / f.hosts_compared : 1.0;
  const double score = f.hosts_compared >= 3 && odd_share <= 0.34 ? 0.9 : odd_share < 1.0 ? 0.7 : 0.5;
  Decide(v, Action::kRepair, Cause::kConfig, Stage::kConfigCheck,
         fmt::format("no node proven bad; ConfigCheck found {} ({} finding(s)); repair and restart.",
                     fmt::join(what, "; "), config.size()),
         Support(score, fmt::format("{} of {} host(s) differ on {}", f.hosts_differing, f.hosts_compared, f.key)));
  (void)inc;
  return true;
}

}  // namespace aegis
