// Configuration error lines that come first (docs/algorithm.md, step 2): they are symptoms,
// and what they mean decides who is repaired. A line is printed by the process that
// noticed the problem, which is often not the host whose configuration is wrong (NCCL's
// "wrong magic" and a collective mismatch are printed by the peers of the odd host, and by
// healthy pairs alike). So:
//   1. A ConfigCheck finding explains them: its key is one the lines name, or the lines
//      only say that processes disagree (rules with `cascade`). The repair names the odd
//      host, the key, what it has and what the others have.
//   2. Lines that locate (a host's own /dev/shm, interface or driver) repair the hosts that
//      printed them, with the rule's key, unless they come from most of the job's hosts:
//      then the setting is the job's, and no host is named.
//   3. Lines that only say processes disagree, with no finding: a rule with a key says
//      which setting differs and that the host is unknown; one without a key is a
//      mismatch between the ranks' own calls on hosts configured alike: the job's code.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "engine/stages.h"

namespace aegis {

namespace {

constexpr size_t kMaxEvidence = 8;

void AddLineEvidence(const std::vector<const LocatedEvent*>& lines, Verdict* v) {
  for (size_t k = 0; k < lines.size() && k < kMaxEvidence; ++k) v->evidence.push_back(EvidenceOf(*lines[k]));
}

// Hosts of the job that have facts, for "configured alike".
size_t HostsWithFacts(const Incident& inc) {
  size_t n = 0;
  for (const auto& h : inc.job.hosts) n += inc.facts.count(h);
  return n;
}

std::string KeysText(const std::set<std::string>& keys) {
  return keys.empty() ? std::string("unknown") : fmt::format("{}", fmt::join(keys, ", "));
}

// The score of an explanation by findings: the odd host out of many is clearest.
double FindingScore(const ConfigFinding& f) {
  const double odd_share = f.hosts_compared ? static_cast<double>(f.hosts_differing) / f.hosts_compared : 1.0;
  return f.hosts_compared >= 3 && odd_share <= 0.34 ? 0.9 : odd_share < 1.0 ? 0.75 : 0.55;
}

}  // namespace

bool ConfigErrorsStage(const Incident& inc, const std::vector<const LocatedEvent*>& lines,
                       const std::vector<ConfigFinding>& findings, const std::string& timing, Verdict* v) {
  if (lines.empty()) return false;
  std::vector<const LocatedEvent*> locating, symptoms;
  std::set<std::string> line_keys, symptom_keys;
  std::set<std::string> rules;
  for (auto* e : lines) {
    rules.insert(e->ev.rule_id);
    if (!e->ev.config_key.empty()) line_keys.insert(e->ev.config_key);
    if (e->ev.cascade) {
      symptoms.push_back(e);
      if (!e->ev.config_key.empty()) symptom_keys.insert(e->ev.config_key);
    } else if (e->node >= 0) {
      locating.push_back(e);
    }
  }

  // 1. Findings that explain the lines.
  std::vector<ConfigFinding> explaining;
  for (const auto& f : findings)
    if (line_keys.count(f.key)) explaining.push_back(f);
  if (explaining.empty() && !symptoms.empty()) explaining = findings;

  // 2. Hosts that printed a line about their own configuration.
  std::map<std::string, const LocatedEvent*> first_by_host;
  for (auto* e : locating)
    if (!first_by_host.count(e->host)) first_by_host[e->host] = e;
  const size_t job_hosts = std::max<size_t>(inc.job_nodes.size(), 1);
  const bool job_wide = first_by_host.size() >= 3 && first_by_host.size() * 2 > job_hosts;

  if (!explaining.empty() || (!first_by_host.empty() && !job_wide)) {
    AddRepairs(explaining, v);
    std::set<std::pair<std::string, std::string>> repaired;
    for (const auto& f : explaining) repaired.insert({f.host, f.key});
    size_t located = 0;
    if (!job_wide)
      for (const auto& [host, e] : first_by_host) {
        if (repaired.count({host, e->ev.config_key})) continue;
        // A host whose finding is on another key is repaired by that finding already.
        // A named copy: clang before 16 cannot capture a structured binding.
        const std::string& this_host = host;
        if (e->ev.config_key.empty() &&
            std::any_of(explaining.begin(), explaining.end(),
                        [&](const ConfigFinding& f) { return f.host == this_host; }))
          continue;
        RepairEntry r;
        r.host = HostOf(inc, e->node);
        r.component = Component::kConfig;
        r.key = e->ev.config_key;
        v->repair.push_back(r);
        repaired.insert({host, e->ev.config_key});
        ++located;
      }
    AddLineEvidence(lines, v);
    std::vector<std::string> what;
    for (const auto& r : v->repair) {
      std::string s = fmt::format("{} {}", r.host, r.key.empty() ? "(key unknown)" : r.key);
      if (!r.value.empty()) s += "=" + r.value;
      if (!r.expected.empty()) s += " (expected " + r.expected + ")";
      if (std::find(what.begin(), what.end(), s) == what.end() && what.size() < 4) what.push_back(s);
    }
    std::set<std::string> printers;
    for (auto* e : lines) printers.insert(e->host);
    double score = 0.85;
    std::string basis;
    if (!explaining.empty()) {
      const ConfigFinding& f = explaining.front();
      score = std::max(FindingScore(f), line_keys.count(f.key) ? 0.9 : 0.0);
      basis = fmt::format("{} configuration error line(s) ({}), {}; {} of {} host(s) differ on {}", Records(lines),
                          fmt::join(rules, ", "), timing, f.hosts_differing, f.hosts_compared, f.key);
    } else {
      basis = fmt::format("{} configuration error line(s) on {} host(s) about their own configuration, {}",
                          Records(lines), located, timing);
    }
    const std::string summary =
        explaining.empty()
            ? fmt::format("configuration error ({}) about the host's own configuration: repair {} and restart.",
                          fmt::join(rules, ", "), fmt::join(what, "; "))
            : fmt::format("configuration error ({}) printed by {} host(s); ConfigCheck finds {}: repair it and restart.",
                          fmt::join(rules, ", "), printers.size(), fmt::join(what, "; "));
    Decide(v, Action::kRepair, Cause::kConfig, Stage::kConfigCheck, summary, Support(score, basis));
    return true;
  }

  // 3. Nothing says which host: the key alone, or the job's own code.
  AddLineEvidence(lines, v);
  std::set<std::string> keys = job_wide ? line_keys : symptom_keys;
  if (!keys.empty() || job_wide) {
    const std::string where =
        job_wide ? fmt::format("printed by {} of the job's {} hosts: the job's setting, not one host's",
                               first_by_host.size(), job_hosts)
                 : "no host's facts differ from the others'";
    Decide(v, Action::kRepair, Cause::kConfig, Stage::kConfigCheck,
           fmt::format("configuration error ({}) on setting {}; {}: which host to repair is unknown, so none is named; "
                       "check that setting across the job and restart.",
                       fmt::join(rules, ", "), KeysText(keys), where),
           Support(0.5, fmt::format("{} configuration error line(s), {}; {}", Records(lines), timing, where)));
    return true;
  }
  // Ranks that disagree about their collectives while every host is configured alike: the
  // job's own code called different collectives (or sizes) on different ranks.
  const size_t with_facts = HostsWithFacts(inc);
  const bool alike_known = with_facts * 2 >= job_hosts;
  Decide(v, Action::kNone, Cause::kUser, Stage::kUserError,
         fmt::format("the ranks disagree about their collectives ({}) and the hosts are configured alike: the job's "
                     "own code called different collectives; nothing to isolate or repair.",
                     fmt::join(rules, ", ")),
         Support(alike_known ? 0.7 : 0.5,
                 fmt::format("{} mismatch line(s), {}; ConfigCheck compared {} of {} host(s) and found no difference",
                             Records(lines), timing, with_facts, job_hosts)));
  return true;
}

}  // namespace aegis
