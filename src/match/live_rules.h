// Rules: a loaded catalogue with its compiled matcher, immutable and shared by every
// thread that classifies. LiveRules holds the current Rules of a long-running process
// (agent, controller) and replaces them on Reload() (e.g. on SIGHUP, after an operator
// edited --rules files): classification already in flight keeps the Rules it started
// with (a shared_ptr), new work takes the new ones. A reload that fails (a broken file)
// keeps the current Rules and says why. Thread-safe.
#pragma once
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/status.h"
#include "match/matcher.h"
#include "rules/catalog.h"

namespace aegis {

struct Rules {
  explicit Rules(Catalog c) : catalog(std::move(c)), matcher(catalog) {}
  Rules(const Rules&) = delete;
  Rules& operator=(const Rules&) = delete;
  const Catalog catalog;
  const Matcher matcher;  // refers to `catalog`
};

// The built-in catalogue plus each operator directory, compiled. InvalidArgument naming
// the file and rule when a file is broken.
Status LoadRules(const std::vector<std::string>& operator_dirs, std::shared_ptr<const Rules>* out);

class LiveRules {
 public:
  // Loads at once; check status() before use.
  explicit LiveRules(std::vector<std::string> operator_dirs);
  const Status& status() const { return status_; }
  std::shared_ptr<const Rules> Current() const;
  Status Reload();
  uint64_t generation() const;  // increases with every successful reload

 private:
  std::vector<std::string> dirs_;
  Status status_;
  mutable std::mutex mu_;
  std::shared_ptr<const Rules> current_;  // guarded by mu_
  uint64_t generation_ = 0;               // guarded by mu_
};

}  // namespace aegis
