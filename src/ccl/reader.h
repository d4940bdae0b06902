// Reads CCL snapshot files (JSON Lines, docs/formats.md, "CCL snapshots"). Keeps only the newest
// record (largest ts) of each (comm, rank), parsing the other lines no further than
// those three fields (simdjson on demand), so hours of periodic snapshots cost little.
// Bad lines are counted, never fatal. Thread-compatible: one reader per thread.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "ccl/record.h"
#include "common/status.h"

namespace aegis {

struct CclFileStats {
  uint64_t lines = 0, bad_lines = 0;
  Status status;  // not ok: the file could not be read at all
};

// Adds the file's records to `newest` ((comm, rank) -> record) where they are newer.
CclFileStats ReadCclFile(const std::string& path, const std::string& rel, const std::string& host,
                         std::map<std::pair<std::string, int>, CclRecord>* newest);
// The same over JSON Lines held in memory (tests, fuzzing).
CclFileStats ReadCclText(std::string_view text, const std::string& rel, const std::string& host,
                         std::map<std::pair<std::string, int>, CclRecord>* newest);

}  // namespace aegis
