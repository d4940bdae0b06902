// Scenario generator, the bundle writer: puts any in-memory Bundle on disk in the bundle
// format (topology.json, job.json, nodes/HOST/{kernel.log,train.log,facts.json,ccl/},
// switches/, probes.json, metrics/) with expected.json beside it. The one place that
// knows the file layout of a finished bundle.
#pragma once
#include <string>

#include "gen/bundle.h"

namespace aegis::gen {

class BundleWriter {
 public:
  explicit BundleWriter(std::string dir) : dir_(std::move(dir)) {}
  // Writes every file the bundle holds (files flagged lost are left out); throws
  // std::runtime_error when a file cannot be written. Returns the bytes of logs and
  // snapshots written.
  size_t Write(Bundle& b) const;

 private:
  std::string dir_;
};

// Writes `text` to `path` (creating its folder) through a temporary file and a rename, so
// that a reader never sees half of it. Throws std::runtime_error on failure.
void WriteFileAtomically(const std::string& path, const std::string& text);

}  // namespace aegis::gen
