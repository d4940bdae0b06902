// Stage 2: when no node is proven bad, the first fatal line says what kind of failure
// this is. A configuration error or the job's own exception, seen before the distributed
// errors (which then are its echo: peers of a dead process report connection errors
// naming its host, every other rank times out), decides the verdict; configuration lines
// are symptoms that ConfigCheck's findings explain (config_errors.cc). Distributed errors
// that clearly come first leave the decision to RootDiag.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "engine/stages.h"

namespace aegis {

namespace {

// Lines printed without their own time inherit a neighbour's; allow that much slack.
constexpr double kSlackSeconds = 2.0;
constexpr size_t kMaxEvidence = 8;

// Earliest time of the list. A time inherited from an earlier line is only a lower bound
// of the true one, so `exact_only` lists (the distributed errors that would have to come
// first) count only lines that carry their own time.
double Earliest(const std::vector<const LocatedEvent*>& list, bool exact_only) {
  double t = INFINITY;
  for (auto* e : list)
    if (!std::isnan(e->ev.ts) && (e->ev.ts_exact || !exact_only)) t = std::min(t, e->ev.ts);
  return t;
}

// `a` is not clearly later than `b` (unknown times never count as later).
bool NotLater(double a, double b) { return std::isinf(a) || std::isinf(b) || a <= b + kSlackSeconds; }

// For the confidence's basis: how the first fatal line stands against the distributed errors.
std::string Before(double t, double t_dist) {
  if (std::isinf(t_dist)) return "no distributed error with its own time";
  if (std::isinf(t)) return "its time unknown";
  return fmt::format("{:.1f} s before the first distributed error with its own time", t_dist - t);
}

}  // namespace

bool EarlyFatalStage(const Incident& inc, const std::vector<ConfigFinding>& findings, Verdict* v,
                     bool catch_alls) {
  std::vector<const LocatedEvent*> config, user, dist;
  for (const auto& e : inc.events) {
    if (e.source == SourceKind::kSwitch || !inc.MayCause(e)) continue;
    // Distributed errors always count (they are what a first fatal line must precede).
    if (e.ev.fallback != catch_alls && e.ev.line_class != LineClass::kDist) continue;
    switch (e.ev.line_class) {
      case LineClass::kConfig: config.push_back(&e); break;
      case LineClass::kUser: user.push_back(&e); break;
      case LineClass::kDist:
        if (!e.ev.cascade) dist.push_back(&e);
        break;
      default: break;
    }
  }
  auto by_time = [](auto* a, auto* b) { return EarlierEvent(*a, *b); };
  std::sort(config.begin(), config.end(), by_time);
  std::sort(user.begin(), user.end(), by_time);
  const double t_config = Earliest(config, false), t_user = Earliest(user, false), t_dist = Earliest(dist, true);

  if (!config.empty() && NotLater(t_config, t_dist) && NotLater(t_config, t_user))
    return ConfigErrorsStage(inc, config, findings, Before(t_config, t_dist), v);
  if (!user.empty() && NotLater(t_user, t_dist)) {
    const LocatedEvent* first = user.front();
    std::string what = first->ev.rule_id;
    if (auto exc = first->ev.Field("exc"); !exc.empty()) what = std::string(exc);
    // Clearly before the first distributed error that has its own time is strong (a
    // little less when the exception's time is inherited: a lower bound, though an
    // exception usually follows its last timed line closely); merely "not later" is medium.
    const bool clear = !std::isinf(t_dist) && t_user + kSlackSeconds < t_dist;
    const double score = std::isinf(t_dist) ? 0.75 : !clear ? 0.6 : first->ev.ts_exact ? 0.9 : 0.8;
    Decide(v, Action::kNone, Cause::kUser, Stage::kUserError,
           fmt::format("the job failed on its own: {} on {}{}; nothing to isolate (the errors of the other ranks "
                       "follow from it).",
                       what, first->host, first->ev.rank >= 0 ? fmt::format(" (rank {})", first->ev.rank) : ""),
           Support(score,
                   fmt::format("{} job error line(s), {}", Records(user), Before(t_user, t_dist))));
    size_t k = 0;
    for (auto* e : user) {
      if (k++ >= kMaxEvidence) break;
      v->evidence.push_back(EvidenceOf(*e));
    }
    return true;
  }
  return false;
}

}  // namespace aegis
