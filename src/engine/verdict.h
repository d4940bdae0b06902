// The output of a diagnosis (docs/formats.md, "Verdict"): the decision, what to isolate
// or repair, the evidence behind it and how strong that evidence is. Rendered as JSON
// (one object) or for a person. Plain data.
#pragma once
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/vocabulary.h"

namespace aegis {

struct IsolateEntry {
  std::string host;
  Component component = Component::kHost;
  std::string device;  // gpu3, mlx5_2, ... ; empty when unknown
};

struct RepairEntry {
  std::string host;
  Component component = Component::kConfig;  // config, link, switch_port, nic
  std::string key;          // config: the facts key
  std::string device;       // link / switch_port: the port ("Ethernet8") or NIC
  std::string value;        // config: what the host has
  std::string expected;     // config: what the others have / what is required
  std::string switch_name;  // link / switch_port: the switch of the port
};

struct Evidence {
  std::string host;
  std::string file;  // relative to the bundle
  long long line = 0;  // 1-based; 0 when the evidence is not a line (a counter, a probe)
  std::string rule;
  std::string text;
  // A log line repeated (the same evidence, logs/event_aggregate.h): `line` and `text`
  // are the first record's, `count` how many records there were, and where and when the
  // last one was.
  unsigned long long count = 1;
  long long latest_line = 0;  // 0 when count is 1
  double latest_ts = NAN;     // NaN when unknown
};

struct UnreadableFile {
  std::string file;
  std::string reason;
};

// How much supports the decision: a level, a score in [0, 1] and, for people, what was
// counted (independent reporters, share of edges, distance from the rest).
struct Confidence {
  Strength level = Strength::kLow;
  double score = 0;
  std::string basis;
};

struct Verdict {
  std::string job;
  Kind kind = Kind::kFailure;
  Action action = Action::kOffline;
  Cause cause = Cause::kUnknown;
  Stage stage = Stage::kOffline;
  std::vector<IsolateEntry> isolate;
  std::vector<RepairEntry> repair;
  std::vector<std::string> offline;
  std::vector<Evidence> evidence;
  // Critical lines of the job's hosts from outside the job's time window (kernel logs keep
  // history since boot): shown, and a reason to check the host before delivery, but never
  // a cause of this job's failure.
  std::vector<Evidence> history;
  std::vector<std::string> missing;
  std::vector<UnreadableFile> unreadable;  // files read only in part, and why
  Confidence confidence;
  std::string summary;
};

// Exactly one JSON object (docs/formats.md), valid UTF-8, no trailing newline.
std::string VerdictToJson(const Verdict& v);
// Reads what VerdictToJson wrote (a stored incident's verdict, the status document's):
// InvalidArgument naming the field when it is not a verdict; unknown fields are ignored.
Status VerdictFromJson(std::string_view text, Verdict* out);
// For a person: the decision first, then the evidence with file:line, then what was missing.
std::string VerdictToText(const Verdict& v);

}  // namespace aegis
