#include "engine/engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "engine/stages.h"

namespace aegis {

namespace {

constexpr size_t kMaxHistory = 8;

// Critical lines of the job's hosts from outside its time window: shown with the verdict
// (and a reason to check the host before it is used again), never a cause.
void AddHistory(const Incident& inc, Verdict* v) {
  for (const auto& e : inc.events) {
    if (v->history.size() >= kMaxHistory) break;
    if (e.history && e.ev.line_class == LineClass::kCritical && inc.InScope(e.node)) v->history.push_back(EvidenceOf(e));
  }
}

void ListLosses(const Incident& inc, Verdict* v) {
  v->missing = inc.missing;
  v->unreadable = inc.unreadable;
  for (const auto& [file, n] : inc.dropped_events)
    v->unreadable.push_back({file, std::to_string(n) + " records of events beyond the per-file cap not kept"});
}

// A decision whose every piece of evidence is a line a catch-all classified (Rule::fallback:
// a word like "error" or "timed out" in a program no rule knows) rests on no message anyone
// has read: it is held at low confidence, which the controller does not act on alone.
void DiscountCatchAlls(const Catalog& catalog, Verdict* v) {
  if (v->action == Action::kOffline || v->evidence.empty()) return;
  std::set<std::string> catch_alls;
  for (const auto& r : catalog.rules())
    if (r.fallback) catch_alls.insert(r.id);
  if (!std::all_of(v->evidence.begin(), v->evidence.end(),
                   [&](const Evidence& e) { return catch_alls.count(e.rule) > 0; }))
    return;
  v->confidence.score = std::min(v->confidence.score, 0.4);
  v->confidence.level = Strength::kLow;
  v->confidence.basis += "; every line cited was classified by a catch-all rule, not by one for its program";
}

}  // namespace

void OfflineStage(const Incident& inc, Verdict* v) {
  v->offline = inc.job.hosts;
  // The errors that were seen, so that offline diagnosis starts from them.
  size_t k = 0;
  for (const auto& e : inc.events) {
    if (k >= 8) break;
    if (inc.MayCause(e) && (e.ev.line_class == LineClass::kDist || e.ev.line_class == LineClass::kHint)) {
      v->evidence.push_back(EvidenceOf(e));
      ++k;
    }
  }
  if (v->evidence.empty()) {
    Evidence none;
    none.file = ".";
    none.rule = "no-signal";
    none.text = fmt::format("no rule matched in {} bytes of logs; no ConfigCheck or NetDiag finding",
                            inc.bytes_scanned);
    v->evidence.push_back(none);
  }
  Decide(v, Action::kOffline, Cause::kUnknown, Stage::kOffline,
         fmt::format("no runtime verdict; send the job's {} host(s) to offline diagnosis.", inc.job.hosts.size()),
         Support(0.2, "no stage found a cause in the logs, counters, configuration or network"));
}

namespace {

Verdict Run(const Incident& inc, const Catalog& catalog, const DecideOptions& options) {
  Verdict v;
  v.job = inc.job.id;
  v.kind = KindOf(inc.job.state);
  const bool slow = inc.job.state == JobState::kSlow;
  // The order is the algorithm's, made robust:
  //  1. Critical errors prove a node bad on their own: cheapest and most often right.
  //     Only lines on the job's time window count (kernel logs keep history since boot).
  //  2. If the first fatal lines are a configuration error or the job's own exception,
  //     everything distributed after them is their echo.
  //  3. CCL counters, where the probe ran: they name the stalled GPU or the endpoint of
  //     the stuck requests exactly, so they come before the guesswork of log clustering
  //     (but after the user gate: a crashed process also stops launching). Not for a
  //     slow job: its counters move, and snapshot skew is not a lag.
  //  4. Distributed errors with strong support (several independent reporters, a clear
  //     share of the host pairs): a pair, or RootDiag's common endpoint; a configuration
  //     or network finding on that endpoint turns isolation into repair.
  //  5. ConfigCheck, then NetDiag, over the whole job: a specific finding outranks a
  //     common endpoint with weak support (in a system-wide failure every rank times out
  //     and a few incidental connection errors may share a healthy host).
  //  6. Distributed errors with weaker support, when nothing specific was found.
  //  7. The first fatal lines again, now those only catch-all rules classified (words in a
  //     program no rule knows: they must never outrank a message someone has read).
  //  8. Offline diagnosis of every host.
  //  A slow job, after 1-2: the CCL's process-aware rules, then correlation over metrics;
  //  when neither finds a host it is "nothing stands out" (none), never offline for all.
  const auto net = RunNetDiag(inc);
  if (CriticalStage(inc, net, &v)) return v;
  const auto config = RunConfigCheck(inc, catalog);
  if (EarlyFatalStage(inc, config, &v)) return v;
  if (!slow && CclHangStage(inc, net, &v)) return v;
  if (slow && (CclDegradationStage(inc, &v) || MetricStage(inc, catalog, options.outliers, &v))) return v;
  const auto dist = FindDistCandidate(inc);
  if (dist && dist->confidence.level == Strength::kHigh && DistStage(inc, *dist, config, net, &v)) return v;
  if (ConfigCheckStage(inc, config, &v)) return v;
  if (NetDiagStage(inc, net, &v)) return v;
  if (dist && DistStage(inc, *dist, config, net, &v)) return v;
  if (!slow && MetricStage(inc, catalog, options.outliers, &v)) return v;
  if (!slow && EarlyFatalStage(inc, config, &v, /*catch_alls=*/true)) return v;
  if (slow && NothingStandsOutStage(inc, &v)) return v;  // always decides
  OfflineStage(inc, &v);
  return v;
}

}  // namespace

Verdict Decide(const Incident& inc, const Catalog& catalog, const DecideOptions& options) {
  Verdict v = Run(inc, catalog, options);
  DiscountCatchAlls(catalog, &v);
  ListLosses(inc, &v);
  AddHistory(inc, &v);
  return v;
}

}  // namespace aegis
