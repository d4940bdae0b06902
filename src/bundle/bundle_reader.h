// Reads the JSON files of an incident bundle (spec/bundle.md). Unknown fields are
// ignored; a field of the wrong type is skipped and reported, never fatal. Only a missing
// or unparsable topology.json / job.json makes a bundle unusable (BundleError).
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "bundle/model.h"

namespace aegis {

class BundleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Each parser appends what it could not use to `problems` ("nodes[3].gpus: not an array").
Topology ParseTopology(const std::string& json_text, std::vector<std::string>* problems);
Job ParseJob(const std::string& json_text, std::vector<std::string>* problems);
// facts.json: nested objects flatten to dotted keys; scalars become text ("true", "9000").
Facts ParseFacts(const std::string& json_text, std::vector<std::string>* problems);

// Reads a whole (small) file; throws BundleError with a clear message.
std::string ReadSmallFile(const std::string& path, size_t max_bytes = 256u << 20);

}  // namespace aegis
