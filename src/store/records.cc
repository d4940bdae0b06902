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

constexpr std::array<std::pair<ActionOp, std::string_view>, 3> kActionOps{{
    {ActionOp::kDrain, "drain"},
    {ActionOp::kResume, "resume"},
    {ActionOp::kAnnotate, "annotate"},
}};

constexpr std::array<std::pair<ActionBackend, std::string_view>, 4> kActionBackends{{
    {ActionBackend::kNone, "none"},
    {ActionBackend::kSlurm, "slurm"},
    {ActionBackend::kKubernetes, "kubernetes"},
    {ActionBackend::kExec, "exec"},
}};

constexpr std::array<std::pair<ActionResult, std::string_view>, 4> kActionResults{{
    {ActionResult::kPending, "pending"},
    {ActionResult::kRecorded, "recorded"},
    {ActionResult::kOk, "ok"},
    {ActionResult::kFailed, "failed"},
}};

}  // namespace

std::string_view ToString(HostState s) { return NameOf(kHostStates, s); }
std::string_view ToString(Trigger t) { return NameOf(kTriggers, t); }
std::string_view ToString(ChangedBy b) { return NameOf(kChangedBy, b); }
std::optional<HostState> ParseHostState(std::string_view s) { return ValueOf(kHostStates, s); }
std::optional<Trigger> ParseTrigger(std::string_view s) { return ValueOf(kTriggers, s); }
std::optional<ChangedBy> ParseChangedBy(std::string_view s) { return ValueOf(kChangedBy, s); }
std::string_view ToString(ActionOp o) { return NameOf(kActionOps, o); }
std::string_view ToString(ActionBackend b) { return NameOf(kActionBackends, b); }
std::string_view ToString(ActionResult r) { return NameOf(kActionResults, r); }
std::optional<ActionOp> ParseActionOp(std::string_view s) { return ValueOf(kActionOps, s); }
std::optional<ActionBackend> ParseActionBackend(std::string_view s) { return ValueOf(kActionBackends, s); }
std::optional<ActionResult> ParseActionResult(std::string_view s) { return ValueOf(kActionResults, s); }

}  // namespace aegis::store
