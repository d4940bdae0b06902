// Helpers shared by the tests: a temporary directory, file writing, the shipped catalogue.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "engine/verdict.h"

#include "match/matcher.h"
#include "rules/catalog.h"

namespace aegis::test {

// A fresh directory under the system temp dir, removed with the object.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string Sub(const std::string& rel) const { return path_ + "/" + rel; }

 private:
  std::string path_;
};

void WriteFile(const std::string& path, const std::string& text);  // creates parent dirs
std::string ReadFile(const std::string& path);

// A Reporter that keeps what it hears.
class CollectingReporter : public Reporter {
 public:
  void Report(std::string_view where, const Status& status) override { reports.emplace_back(std::string(where), status); }
  std::vector<std::pair<std::string, Status>> reports;
};

// The built-in catalogue and its matcher, loaded once per process.
const Catalog& ShippedCatalog();
const Matcher& ShippedMatcher();

// `aegis diagnose DIR` with default options; a bundle that cannot be used fails the test.
Verdict Diagnose(const std::string& bundle_dir);

}  // namespace aegis::test
