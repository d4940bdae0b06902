// Helpers shared by the tests: a temporary directory, file writing, the shipped catalogue.
#pragma once
#include <string>

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

// The built-in catalogue and its matcher, loaded once per process.
const Catalog& ShippedCatalog();
const Matcher& ShippedMatcher();

}  // namespace aegis::test
