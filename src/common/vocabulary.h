// The words of the verdict and job contracts (docs/formats.md) as enums, spelt in exactly
// one place (vocabulary.cc). Stages decide on these values, never on strings; input that
// names a value outside the list is an error reported by its reader, never a new category.
// Pure, thread-safe.
#pragma once
#include <optional>
#include <string_view>

namespace aegis {

// What to do about the job's failure.
enum class Action { kIsolate, kRepair, kOffline, kNone };
// What broke.
enum class Cause { kHardware, kNetwork, kConfig, kUser, kUnknown };
// The step of the algorithm that decided.
enum class Stage {
  kCriticalError, kDistPair, kRootDiag, kConfigCheck, kNetDiag, kCclCompute, kCclComm,
  kCclDegradation, kMetricOutlier, kUserError, kOffline
};
// What happened to the job, as the verdict reports it.
enum class Kind { kFailure, kHang, kDegradation };
// A job's state as schedulers and job.json report it.
enum class JobState { kRunning, kFailed, kHung, kSlow, kDone };
// The part of a host (or of the fabric next to it) that a rule, a finding or a verdict
// names. kJob is the job's own code (user rules); it is never isolated or repaired.
enum class Component {
  kGpu, kNvlink, kPcie, kNic, kLink, kCpu, kMemory, kPower, kHost, kConfig, kSwitchPort, kJob
};
// How strongly the evidence supports a decision.
enum class Strength { kLow, kMedium, kHigh };

std::string_view ToString(Action v);
std::string_view ToString(Cause v);
std::string_view ToString(Stage v);
std::string_view ToString(Kind v);
std::string_view ToString(JobState v);
std::string_view ToString(Component v);
std::string_view ToString(Strength v);

// The value a word names; nullopt for a word outside the contract.
std::optional<Action> ParseAction(std::string_view s);
std::optional<Cause> ParseCause(std::string_view s);
std::optional<Stage> ParseStage(std::string_view s);
std::optional<Kind> ParseKind(std::string_view s);
std::optional<JobState> ParseJobState(std::string_view s);
std::optional<Component> ParseComponent(std::string_view s);
std::optional<Strength> ParseStrength(std::string_view s);

// The verdict kind of a job that ended in `state` (hung: hang, slow: degradation).
Kind KindOf(JobState state);
// A device of the host itself (GPU, NIC, memory, ...), as opposed to the fabric next to
// it (link, switch port), its configuration or the job's own code.
bool IsHostHardware(Component c);

}  // namespace aegis
