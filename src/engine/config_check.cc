// ConfigCheck (docs/algorithm.md, step 5): the checklist of rules/checks/*.yaml over
// the facts.json of the job's hosts. An "agree" key whose value differs on a minority of
// hosts marks those hosts (the majority is what the job expects); an "expect" key marks
// every host outside the allowed values.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "common/text.h"
#include "engine/nccl_startup_check.h"
#include "engine/stages.h"

namespace aegis {

namespace {

// Keys of `facts` matching `pattern`, where '*' stands for one dotted segment.
std::vector<std::string> MatchingKeys(const Facts& facts, const std::string& pattern) {
  std::vector<std::string> out;
  if (pattern.find('*') == std::string::npos) {
    if (facts.count(pattern)) out.push_back(pattern);
    return out;
  }
  auto want = Split(pattern, '.');
  for (const auto& [key, value] : facts) {
    auto have = Split(key, '.');
    if (have.size() != want.size()) continue;
    bool ok = true;
    for (size_t i = 0; i < want.size() && ok; ++i) ok = want[i] == "*" || want[i] == have[i];
    if (ok) out.push_back(key);
  }
  return out;
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

static std::vector<ConfigFinding> RunChecklist(const Incident& inc, const Catalog& catalog) {
  std::vector<ConfigFinding> out;
  // An expectation no host meets is a property of the whole cluster (a site that runs
  // without persistence mode, say), not what broke this job: it is reported only when
  // nothing more specific is found.
  std::vector<ConfigFinding> everywhere;
  std::vector<std::string> hosts;
  for (const auto& h : inc.job.hosts)
    if (inc.facts.count(h)) hosts.push_back(h);
  if (hosts.empty()) return out;
  for (const ConfigCheck& c : catalog.config_checks()) {
    // Concrete keys this check covers on any host (nic.*.mtu -> nic.mlx5_0.mtu, ...).
    std::vector<std::string> keys;
    for (const auto& h : hosts)
      for (const auto& k : MatchingKeys(inc.facts.at(h), c.key))
        if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    for (const auto& key : keys) {
      if (c.kind == "expect") {
        std::vector<ConfigFinding> bad;
        size_t with_value = 0;
        for (const auto& h : hosts) {
          auto it = inc.facts.at(h).find(key);
          if (it == inc.facts.at(h).end()) continue;
          ++with_value;
          if (!Allowed(c, it->second)) bad.push_back({h, key, it->second, ExpectedText(c), c.id, c.reason, 0, 0});
        }
        for (auto& f : bad) {
          f.hosts_compared = with_value;
          f.hosts_differing = bad.size();
        }
        auto& dest = bad.size() == with_value && with_value > 1 ? everywhere : out;
        dest.insert(dest.end(), bad.begin(), bad.end());
        continue;
      }
      // agree: the majority value is the expected one; needs a strict majority.
      std::map<std::string, std::vector<std::string>> hosts_by_value;
      size_t with_value = 0;
      for (const auto& h : hosts) {
        auto it = inc.facts.at(h).find(key);
        if (it == inc.facts.at(h).end()) continue;
        hosts_by_value[std::string(Trim(it->second))].push_back(h);
        ++with_value;
      }
      if (hosts_by_value.size() < 2) continue;
      auto majority = std::max_element(hosts_by_value.begin(), hosts_by_value.end(),
                                       [](auto& a, auto& b) { return a.second.size() < b.second.size(); });
      if (majority->second.size() * 2 <= with_value) {
        // No majority (e.g. two hosts that disagree): every host is suspect.
        for (const auto& [value, hs] : hosts_by_value)
          for (const auto& h : hs)
            out.push_back({h, key, value, "the same value on every host", c.id, c.reason, with_value, with_value});
        continue;
      }
      const size_t odd = with_value - majority->second.size();
      for (const auto& [value, hs] : hosts_by_value)
        if (value != majority->first)
          for (const auto& h : hs) out.push_back({h, key, value, majority->first, c.id, c.reason, with_value, odd});
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
