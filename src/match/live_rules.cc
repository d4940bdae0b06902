#include "match/live_rules.h"

namespace aegis {

Status LoadRules(const std::vector<std::string>& operator_dirs, std::shared_ptr<const Rules>* out) {
  try {
    *out = std::make_shared<const Rules>(Catalog::Load(operator_dirs));
  } catch (const CatalogError& e) {
    return Status::InvalidArgument(e.what());
  }
  return Status::Ok();
}

LiveRules::LiveRules(std::vector<std::string> operator_dirs) : dirs_(std::move(operator_dirs)) {
  status_ = LoadRules(dirs_, &current_);
}

std::shared_ptr<const Rules> LiveRules::Current() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_;
}

uint64_t LiveRules::generation() const {
  std::lock_guard<std::mutex> lock(mu_);
  return generation_;
}

Status LiveRules::Reload() {
  std::shared_ptr<const Rules> fresh;
  if (Status s = LoadRules(dirs_, &fresh); !s.ok()) return s;  // compiled outside the lock
  std::lock_guard<std::mutex> lock(mu_);
  current_ = std::move(fresh);
  ++generation_;
  return Status::Ok();
}

}  // namespace aegis
