// The output of a diagnosis (spec/verdict.md): the decision, what to isolate or repair,
// and the evidence behind it. Rendered as JSON (one object) or for a person.
#pragma once
#include <string>
#include <vector>

namespace aegis {

struct IsolateEntry {
  std::string host;
  std::string component;  // gpu, nvlink, pcie, nic, link, cpu, memory, power, host, ...
  std::string device;     // gpu3, mlx5_2, ... ; empty when unknown
};

struct RepairEntry {
  std::string host;
  std::string component;  // config, link, switch_port, nic
  std::string key;        // config: the facts key
  std::string device;     // link / switch_port: the port ("Ethernet8") or NIC
  std::string value;      // config: what the host has
  std::string expected;   // config: what the others have / what is required
  std::string switch_name;  // link / switch_port: the switch of the port
};

struct Evidence {
  std::string host;
  std::string file;  // relative to the bundle
  long long line = 0;  // 1-based; 0 when the evidence is not a line (a counter, a probe)
  std::string rule;
  std::string text;
};

struct UnreadableFile {
  std::string file;
  std::string reason;
};

struct Verdict {
  std::string job;
  std::string kind = "failure";  // failure | hang | degradation
  std::string action = "offline";  // isolate | repair | offline | none
  std::string cause = "unknown";   // hardware | network | config | user | unknown
  std::string stage = "offline";
  std::vector<IsolateEntry> isolate;
  std::vector<RepairEntry> repair;
  std::vector<std::string> offline;
  std::vector<Evidence> evidence;
  std::vector<std::string> missing;
  std::vector<UnreadableFile> unreadable;  // extension: files read only in part, and why
  std::string summary;
};

// Exactly one JSON object (spec/verdict.md), valid UTF-8, no trailing newline.
std::string VerdictToJson(const Verdict& v);
// For a person: the decision first, then the evidence with file:line, then what was missing.
std::string VerdictToText(const Verdict& v);

}  // namespace aegis
