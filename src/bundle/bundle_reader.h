// Reads the JSON files of an incident bundle (docs/formats.md). Unknown fields are
// ignored; a field of the wrong type is skipped and reported to the Reporter, never fatal.
// A parser returns a non-ok Status only when the input cannot be used at all (not JSON,
// not an object, no nodes array); then the output is left empty. Thread-safe.
#pragma once
#include <string>
#include <string_view>

#include "bundle/model.h"
#include "common/status.h"

namespace aegis {

// `reporter` (may be null) hears what could not be used ("nodes[3] has no host").
Status ParseTopology(std::string_view json_text, Topology* out, Reporter* reporter);
Status ParseJob(std::string_view json_text, Job* out, Reporter* reporter);
// facts.json: nested objects flatten to dotted keys; scalars become text ("true", "9000").
Status ParseFacts(std::string_view json_text, Facts* out);

// Reads a whole (small) file. NotFound when it does not exist, IOError when it cannot be
// read, ResourceExhausted past max_bytes.
Status ReadSmallFile(const std::string& path, std::string* out, size_t max_bytes = 256u << 20);

}  // namespace aegis
