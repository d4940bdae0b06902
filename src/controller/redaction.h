// Redaction of an exported incident bundle (bundle_export.h, `?redact=1`), for sharing a
// tenant's incident outside the cluster's operators.
//
// KEPT (what a diagnosis needs, and no one's identity): rule ids, line classes, counts,
// times, line numbers, rank tags, device kinds and names (gpu3, mlx5_0, Ethernet8), PCI
// addresses, Xid numbers, NCCL error names, CCL counters, metric values, facts' keys.
// REPLACED, by pseudonyms that are stable across every file of one export:
//   - host names (also fully qualified, also inside file paths nodes/HOST/...)  -> host-001
//   - switch names (switches/NAME.log, topology)                                -> switch-001
//   - pods                                                                      -> pod-001
//   - IPv4 addresses -> 10.255.x.y (169.254/16 and 172.17/16, which rules read as
//     link-local and container-bridge addresses, stay in their range; 127/8 and 0.0.0.0 are
//     kept), IPv6 -> fd00::N (fe80::N when link-local), MAC -> 02:00:00:00:xx:xx
//   - GPU UUIDs -> GPU-00000000-0000-0000-0000-00000000000N
//   - job.json's id, user, name and every other string of its own (not times, state,
//     hosts)                                                 -> job-001, user-001, name-001, ...
//   - filesystem paths (absolute, ~/..., relative with a file name) and URLs  -> <path-001>
//     (/dev/... and /sys/... are kept: rules read them, and they name no one)
//   - e-mail addresses                                                          -> <email>
//   - pids (pid=, "Process 41233"), tids, uids, gids, job and step ids in messages -> 0
//   - process names (name=, comm=, "Process N (NAME)", "task NAME:PID")        -> <process>
//   - the free text of a job's own exception (the `msg` of a user-class rule)  -> <message>
//   - incident.json's decided_by (the controller's host and pid)               -> controller-001
// The same original always gets the same pseudonym within one export, so that equal facts
// stay equal and addresses still resolve through topology.json; a pseudonym has the shape
// its original had (a host name, a dotted IPv4 address, no spaces) so that rules capturing
// it still match.
//
// Lifetime: one Pseudonymizer (and one LineRedactor over it) per export; the mapping is
// never written out, so that a redacted bundle cannot be mapped back. Threads: not
// thread-safe; an export uses them from one thread.
#pragma once
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "rules/catalog.h"

namespace re2 {
class RE2;
}

namespace aegis::controller {

class Pseudonymizer {
 public:
  enum class Kind { kHost, kSwitch, kPod, kGpu, kJob, kOther };

  Pseudonymizer();
  ~Pseudonymizer();

  // Registers the identifiers of topology.json and job.json before anything is replaced,
  // so that host-001 is the topology's first host. Unparsable text registers nothing.
  void AddTopology(const std::string& text);
  void AddJob(const nlohmann::json& job);

  // The pseudonym of `original` as a `kind` (registered at first use). `label` names an
  // kOther identifier ("user" -> user-001).
  std::string Name(Kind kind, const std::string& original, const std::string& label = "");
  std::string Host(const std::string& original) { return Name(Kind::kHost, original); }

  // `text` with every identifier replaced. `shaped`: paths become /redacted/path-N.EXT
  // instead of <path-N> (for a rule that needs a path's shape to match).
  std::string Text(std::string_view text, bool shaped = false);
  // A bundle-relative path (nodes/HOST/..., switches/NAME.log, nodes/HOST/ccl/FILE).
  std::string FilePath(const std::string& path);
  // Every key and string of `j`; a string that is exactly a known identifier becomes its
  // pseudonym (a numeric job id is replaced only so: as text it would hit counters).
  void Json(nlohmann::json& j);
  void Json(nlohmann::ordered_json& j);

 private:
  template <class J>
  void Walk(J& j, const std::string& key);
  std::string Address(const std::string& ipv4);
  std::string Address6(const std::string& ipv6);
  std::string Mac(const std::string& mac);
  std::string Path(const std::string& path, bool shaped);
  std::string Tokens(std::string_view text);
  const std::string* Known(std::string_view token) const;

  std::map<std::string, std::string, std::less<>> known_;  // original -> pseudonym (pseudonyms map to themselves)
  std::map<std::string, Kind, std::less<>> kind_;          // original -> its kind
  std::vector<std::string> literal_;  // known originals that are no single token (spaces, slashes), longest first
  std::map<std::string, int> counters_;
  std::map<std::string, std::string> paths_, ccl_files_;
  struct Patterns;
  std::unique_ptr<Patterns> re_;
};

// One log record's redacted text: the span its rule matched, with every identifier
// replaced, and still the rule's (checked with the rule's own patterns, `unless`
// included). Empty when the rule is unknown here, or when no redaction keeps the span the
// rule's: then the record is dropped rather than shared whole.
class LineRedactor {
 public:
  LineRedactor(const Catalog& catalog, Pseudonymizer& names);
  ~LineRedactor();
  std::string Line(const std::string& rule_id, const std::string& text);

 private:
  struct Compiled;
  const std::vector<const Compiled*>& Patterns(const std::string& rule_id);
  bool StillTheRules(const std::string& rule_id, const std::string& text);

  const Catalog& catalog_;
  Pseudonymizer& names_;
  std::map<std::string, std::vector<const Compiled*>> by_id_;
  std::vector<std::unique_ptr<Compiled>> owned_;
};

// incident.json of a redacted export: evidence and history texts redacted as log records
// (history from train logs, another job's output, dropped), file paths renamed, every
// other string pseudonymised.
void RedactIncident(nlohmann::ordered_json& incident, LineRedactor& lines, Pseudonymizer& names);

}  // namespace aegis::controller
