#include "store/records.h"

#include <array>
#include <utility>

namespace aegis::store {

namespace {

template <typename E, size_t N>
std::string_view NameOf(const std::array<std::pair<E, std::string_view>, N>& names, E value) {
  for (const auto& [e, name] : names)
    if (e == value) return name;
  return "unknown";
}

template <typename E, size_t N>
std::optional<E> ValueOf(const std::array<std::pair<E, std::string_view>, N>& names, std::string_view s) {
  for (const auto& [e, name] : names)
    if (name == s) return e;
  return std::nullopt;
}

constexpr std::array<std::pair<HostState, std::string_view>, 5> kHostStates{{
    {HostState::kInService, "in_service"},
    {HostState::kIsolated, "isolated"},
    {HostState::kRepair, "repair"},
    {HostState::kOffline, "offline"},
    {HostState::kHeld, "held"},
}};


constexpr std::array<std::pair<Trigger, std::string_view>, 6> kTriggers{{
    {Trigger::kJobFailed, "job_failed"},
    {Trigger::kJobHung, "job_hung"},
    {Trigger::kCclStall, "ccl_stall"},
    {Trigger::kSlow, "slow"},
    {Trigger::kManual, "manual"},
    {Trigger::kCriticalError, "critical_error"},
}};

constexpr std::array<std::pair<ChangedBy, std::string_view>, 2> kChangedBy{{
    {ChangedBy::kDecision, "decision"},
    {ChangedBy::kPerson, "person"},
}};

}  // namespace

std::string_view ToString(HostState s) { return NameOf(kHostStates, s); }
std::string_view ToString(Trigger t) { return NameOf(kTriggers, t); }
std::string_view ToString(ChangedBy b) { return NameOf(kChangedBy, b); }
std::optional<HostState> ParseHostState(std::string_view s) { return ValueOf(kHostStates, s); }
std::optional<Trigger> ParseTrigger(std::string_view s) { return ValueOf(kTriggers, s); }
std::optional<ChangedBy> ParseChangedBy(std::string_view s) { return ValueOf(kChangedBy, s); }

}  // namespace aegis::store
