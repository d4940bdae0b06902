#include "env/fault_plan.h"

namespace aegis {

namespace {

// Takes one armed failure, counting it; false when none is armed.
bool Take(int* armed, uint64_t* handed_out) {
  if (*armed <= 0) return false;
  --*armed;
  ++*handed_out;
  return true;
}

}  // namespace

void FaultPlan::FailWrites(int n) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_writes_ = n;
}

void FaultPlan::FailSyncs(int n) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_syncs_ = n;
}

void FaultPlan::FailReads(int n) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_reads_ = n;
}

void FaultPlan::SetSpaceLeft(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  space_limited_ = true;
  space_left_ = bytes;
}

void FaultPlan::Freed(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (space_limited_) space_left_ += bytes;
}

void FaultPlan::ClearFaults() {
  std::lock_guard<std::mutex> lock(mu_);
  fail_writes_ = fail_syncs_ = fail_reads_ = 0;
  space_limited_ = false;
}

FaultPlan::Injected FaultPlan::injected() const {
  std::lock_guard<std::mutex> lock(mu_);
  return injected_;
}

void FaultPlan::ResetCounts() {
  std::lock_guard<std::mutex> lock(mu_);
  injected_ = {};
}

FaultPlan::Fault FaultPlan::BeforeWrite(uint64_t n, uint64_t* allowed) {
  std::lock_guard<std::mutex> lock(mu_);
  *allowed = n;
  if (Take(&fail_writes_, &injected_.writes)) {
    *allowed = 0;
    return Fault::kIo;
  }
  if (!space_limited_ || n <= space_left_) {
    if (space_limited_) space_left_ -= n;
    return Fault::kNone;
  }
  *allowed = space_left_;
  space_left_ = 0;
  ++injected_.disk_full;
  return Fault::kDiskFull;
}

FaultPlan::Fault FaultPlan::BeforeSync() {
  std::lock_guard<std::mutex> lock(mu_);
  return Take(&fail_syncs_, &injected_.syncs) ? Fault::kIo : Fault::kNone;
}

FaultPlan::Fault FaultPlan::BeforeRead() {
  std::lock_guard<std::mutex> lock(mu_);
  return Take(&fail_reads_, &injected_.reads) ? Fault::kIo : Fault::kNone;
}

}  // namespace aegis
