#include "engine/engine.h"

#include <fmt/format.h>

#include <cmath>
#include <ctime>

#include "engine/stages.h"
#include "metrics/prometheus_client.h"

namespace aegis {

void OfflineStage(const Incident& inc, Verdict* v) {
  v->offline = inc.job.hosts;
  // The errors that were seen, so that offline diagnosis starts from them.
  size_t k = 0;
  for (const auto& e : inc.events) {
    if (k >= 8) break;
    if (e.ev.line_class == LineClass::kDist || e.ev.line_class == LineClass::kHint) {
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
  Decide(v, "offline", "unknown", "offline",
         fmt::format("no runtime verdict; send the job's {} host(s) to offline diagnosis.", inc.job.hosts.size()));
}

Verdict DecideVerdict(const Incident& inc, const Catalog& catalog, const OutlierOptions& outliers) {
  Verdict v;
  v.job = inc.job.id;
  v.kind = inc.job.state == "hung" ? "hang" : inc.job.state == "slow" ? "degradation" : "failure";
  v.missing = inc.missing;
  v.unreadable = inc.unreadable;
  for (const auto& u : inc.unreadable)
    if (u.reason.find("cannot open") != std::string::npos || u.reason.find("not a valid JSON") != std::string::npos)
      v.missing.push_back(u.file);

  // The order is Algorithm 1's, made robust:
  //  1. Critical errors prove a node bad on their own: cheapest and most often right.
  //  2. If the first fatal lines are a configuration error or the job's own exception,
  //     everything distributed after them is their echo.
  //  3. CCL counters, where the probe ran: they name the stalled GPU or the endpoint of
  //     the stuck requests exactly, so they come before the guesswork of log clustering
  //     (but after the user gate: a crashed process also stops launching). Not for a
  //     slow job: its counters move, and snapshot skew is not a lag.
  //  4. Distributed errors: a pair, or RootDiag's common endpoint; a configuration or
  //     network finding on that endpoint turns isolation into repair.
  //  5. No pattern: ConfigCheck, then NetDiag, over the whole job (then metrics).
  //  6. Offline diagnosis of every host.
  //  A slow job, after 1-2: the CCL's process-aware rules, then correlation over metrics;
  //  when neither finds a host it is "nothing stands out" (none), never offline for all.
  const auto net = RunNetDiag(inc);
  if (CriticalStage(inc, net, &v)) return v;
  if (EarlyFatalStage(inc, &v)) return v;
  if (inc.job.state != "slow" && CclHangStage(inc, net, &v)) return v;
  if (inc.job.state == "slow" && (CclDegradationStage(inc, &v) || MetricStage(inc, catalog, outliers, &v))) return v;
  const auto config = RunConfigCheck(inc, catalog);
  if (DistStage(inc, config, net, &v)) return v;
  if (ConfigCheckStage(inc, config, &v)) return v;
  if (NetDiagStage(inc, net, &v)) return v;
  if (inc.job.state != "slow" && MetricStage(inc, catalog, outliers, &v)) return v;
  if (inc.job.state == "slow" && NothingStandsOutStage(inc, &v)) return v;
  OfflineStage(inc, &v);
  return v;
}

Verdict Diagnose(const std::string& bundle_dir, const Matcher& matcher, const DiagnoseOptions& options) {
  CollectOptions co;
  co.threads = options.threads;
  Incident inc = CollectIncident(bundle_dir, matcher, co);
  if (!options.prometheus_url.empty()) {
    // The window ends when the job did (or now); twice its length is fetched so that a
    // cluster-wide shift can be told from the baseline before it.
    const double end = !std::isnan(inc.job.ended_at) ? inc.job.ended_at : static_cast<double>(std::time(nullptr));
    const double start = end - 2 * options.outliers.window_s;
    std::vector<std::string> names;
    for (const auto& m : matcher.catalog().metrics()) names.push_back(m.name);
    PrometheusFetch f = FetchFromPrometheus(options.prometheus_url, names, start, end, options.prometheus_step);
    for (const auto& e : f.errors) inc.unreadable.push_back({"prometheus", e});
    for (auto& s : f.series) inc.metrics.push_back(std::move(s));
  }
  return DecideVerdict(inc, matcher.catalog(), options.outliers);
}

}  // namespace aegis
