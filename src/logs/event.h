// A classified log record: what a rule found in one line (or one folded record: a
// continued kernel message, a Python traceback) of one file. An event may also stand for
// several records of that file that are the same evidence (logs/event_aggregate.h): the
// fields describe the first of them, `count` says how many there were, `latest_*` where
// and when the last one was, and `samples` the next few after the first.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/vocabulary.h"
#include "rules/catalog.h"

namespace aegis {

// One more record of the same evidence: where it is and what it said.
struct EventSample {
  uint64_t line = 0;
  std::string text;
  bool operator==(const EventSample&) const = default;
};

struct LogEvent {
  uint32_t rule = 0;            // index into Catalog::rules() of the catalogue that classified it
  std::string rule_id;          // the rule's id, or "xid-N" for Xids
  LineClass line_class = LineClass::kNone;
  Component component = Component::kHost;
  uint64_t line = 0;            // 1-based line that matched
  uint64_t first_line = 0;      // first and last line of the folded record
  uint64_t last_line = 0;
  uint64_t traceback_line = 0;  // "Traceback (most recent call last):" that led here, 0 if none
  // Time, epoch seconds; NaN when none could be given. Exact when read on the record
  // itself; otherwise inherited from an earlier line, which makes it only a lower bound of
  // the true time (an untimed line may be printed long after the last timed one).
  double ts = NAN;
  bool ts_exact = false;
  bool ts_zoned = false;        // the time carried a zone; else local time read as UTC (hours off)
  // The kernel's uptime of a record whose wall time could not be known (a plain `dmesg`
  // log: no line gives the boot time); NaN otherwise. The bundle source may place it
  // against the log's newest line (sources/bundle_source.cc).
  double uptime = NAN;
  int rank = -1;                // launcher rank tag of the line, or a captured rank
  int nccl_device = -1;         // CUDA device from NCCL's own line header
  int xid = -1;
  bool cascade = false;         // the rule's cascade flag: confirms, never locates
  bool yields_to_user = false;  // the rule's flag: a job or config error next to it explains it
  bool fallback = false;        // classified by a lower-confidence catch-all rule (Rule::fallback)
  std::string config_key;       // config rules: the facts key to repair
  std::vector<std::pair<std::string, std::string>> fields;  // named groups of the rule
  std::string text;             // the record, sanitised for output
  // Repeats (count 1 for a record the scanner just found).
  uint64_t count = 1;               // records this event stands for
  uint64_t latest_line = 0;         // line of the last of them; 0 when count is 1
  double latest_ts = NAN;           // its time (NaN when unknown)
  std::vector<EventSample> samples; // the records after the first, up to a few, in line order

  // Line and time of the last record this event stands for.
  uint64_t LatestLine() const { return count > 1 && latest_line ? latest_line : line; }
  double LatestTs() const { return count > 1 ? latest_ts : ts; }

  std::string_view Field(std::string_view name) const {
    for (const auto& [k, v] : fields)
      if (k == name) return v;
    return {};
  }
};

}  // namespace aegis
