// Fuzzes the reader of the scanner plan kept in the compiled-rules cache (a file on disk
// any process may have left half-written or another version may have written): nothing
// may crash, and a plan it accepts names only rules that exist.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "match/scan_plan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  constexpr size_t kRules = 150;
  auto plan = aegis::ScanPlan::Parse(std::string_view(reinterpret_cast<const char*>(data), size), kRules);
  if (!plan) return 0;
  for (const auto& e : plan->expressions) {
    if (e.rules.empty()) std::abort();
    for (uint32_t r : e.rules)
      if (r >= kRules) std::abort();
  }
  if (aegis::ScanPlan::Parse(plan->Serialize(), kRules)->expressions.size() != plan->expressions.size()) std::abort();
  return 0;
}
