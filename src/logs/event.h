// A classified log record: what a rule found in one line (or one folded record: a
// continued kernel message, a Python traceback) of one file.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rules/catalog.h"

namespace aegis {

struct LogEvent {
  uint32_t rule = 0;            // index into Catalog::rules()
  std::string rule_id;          // the rule's id, or "xid-N" for Xids
  LineClass line_class = LineClass::kNone;
  std::string component;
  uint64_t line = 0;            // 1-based line that matched
  uint64_t first_line = 0;      // first and last line of the folded record
  uint64_t last_line = 0;
  uint64_t traceback_line = 0;  // "Traceback (most recent call last):" that led here, 0 if none
  double ts = NAN;              // epoch seconds; NaN when no time could be given
  bool ts_reliable = false;     // time read on this line or at most 2 lines above it (else only a lower bound)
  int rank = -1;                // launcher rank tag of the line, or a captured rank
  int nccl_device = -1;         // CUDA device from NCCL's own line header
  int xid = -1;
  bool cascade = false;         // the rule's cascade flag: confirms, never locates
  bool yields_to_user = false;  // the rule's flag: a job error next to it explains it
  std::string config_key;       // config rules: the facts key to repair
  std::vector<std::pair<std::string, std::string>> fields;  // named groups of the rule
  std::string text;             // the record, sanitised for output

  std::string_view Field(std::string_view name) const {
    for (const auto& [k, v] : fields)
      if (k == name) return v;
    return {};
  }
};

}  // namespace aegis
