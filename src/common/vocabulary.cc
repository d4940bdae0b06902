#include "common/vocabulary.h"

#include <array>
#include <utility>

namespace aegis {

namespace {

template <typename E, size_t N>
using Words = std::array<std::pair<E, std::string_view>, N>;

constexpr Words<Action, 4> kActions{{{Action::kIsolate, "isolate"},
                                     {Action::kRepair, "repair"},
                                     {Action::kOffline, "offline"},
                                     {Action::kNone, "none"}}};
constexpr Words<Cause, 5> kCauses{{{Cause::kHardware, "hardware"},
                                   {Cause::kNetwork, "network"},
                                   {Cause::kConfig, "config"},
                                   {Cause::kUser, "user"},
                                   {Cause::kUnknown, "unknown"}}};
constexpr Words<Stage, 11> kStages{{{Stage::kCriticalError, "critical_error"},
                                    {Stage::kDistPair, "dist_pair"},
                                    {Stage::kRootDiag, "root_diag"},
                                    {Stage::kConfigCheck, "config_check"},
                                    {Stage::kNetDiag, "net_diag"},
                                    {Stage::kCclCompute, "ccl_compute"},
                                    {Stage::kCclComm, "ccl_comm"},
                                    {Stage::kCclDegradation, "ccl_degradation"},
                                    {Stage::kMetricOutlier, "metric_outlier"},
                                    {Stage::kUserError, "user_error"},
                                    {Stage::kOffline, "offline"}}};
constexpr Words<Kind, 3> kKinds{{{Kind::kFailure, "failure"}, {Kind::kHang, "hang"}, {Kind::kDegradation, "degradation"}}};
constexpr Words<JobState, 5> kJobStates{{{JobState::kRunning, "running"},
                                         {JobState::kFailed, "failed"},
                                         {JobState::kHung, "hung"},
                                         {JobState::kSlow, "slow"},
                                         {JobState::kDone, "done"}}};
constexpr Words<Component, 12> kComponents{{{Component::kGpu, "gpu"},
                                            {Component::kNvlink, "nvlink"},
                                            {Component::kPcie, "pcie"},
                                            {Component::kNic, "nic"},
                                            {Component::kLink, "link"},
                                            {Component::kCpu, "cpu"},
                                            {Component::kMemory, "memory"},
                                            {Component::kPower, "power"},
                                            {Component::kHost, "host"},
                                            {Component::kConfig, "config"},
                                            {Component::kSwitchPort, "switch_port"},
                                            {Component::kJob, "job"}}};
constexpr Words<Strength, 3> kStrengths{{{Strength::kLow, "low"}, {Strength::kMedium, "medium"}, {Strength::kHigh, "high"}}};

template <typename E, size_t N>
std::string_view Spell(const Words<E, N>& words, E v) {
  for (const auto& [e, s] : words)
    if (e == v) return s;
  return "?";  // unreachable for a valid enum value
}

template <typename E, size_t N>
std::optional<E> Read(const Words<E, N>& words, std::string_view s) {
  for (const auto& [e, w] : words)
    if (w == s) return e;
  return std::nullopt;
}

}  // namespace

std::string_view ToString(Action v) { return Spell(kActions, v); }
std::string_view ToString(Cause v) { return Spell(kCauses, v); }
std::string_view ToString(Stage v) { return Spell(kStages, v); }
std::string_view ToString(Kind v) { return Spell(kKinds, v); }
std::string_view ToString(JobState v) { return Spell(kJobStates, v); }
std::string_view ToString(Component v) { return Spell(kComponents, v); }
std::string_view ToString(Strength v) { return Spell(kStrengths, v); }

std::optional<Action> ParseAction(std::string_view s) { return Read(kActions, s); }
std::optional<Cause> ParseCause(std::string_view s) { return Read(kCauses, s); }
std::optional<Stage> ParseStage(std::string_view s) { return Read(kStages, s); }
std::optional<Kind> ParseKind(std::string_view s) { return Read(kKinds, s); }
std::optional<JobState> ParseJobState(std::string_view s) { return Read(kJobStates, s); }
std::optional<Component> ParseComponent(std::string_view s) { return Read(kComponents, s); }
std::optional<Strength> ParseStrength(std::string_view s) { return Read(kStrengths, s); }

Kind KindOf(JobState state) {
  switch (state) {
    case JobState::kHung: return Kind::kHang;
    case JobState::kSlow: return Kind::kDegradation;
    default: return Kind::kFailure;
  }
}

bool IsHostHardware(Component c) {
  return c != Component::kLink && c != Component::kSwitchPort && c != Component::kConfig && c != Component::kJob;
}

}  // namespace aegis
