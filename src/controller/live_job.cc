#include "controller/live_job.h"

#include <cmath>

namespace aegis::controller {

LiveJob::LiveJob(Job job, const Topology& topology) : job_(std::move(job)) {
  hosts_.insert(job_.hosts.begin(), job_.hosts.end());
  scope_.id = job_.id;
  scope_.started_at = job_.started_at;
  scope_.ended_at = NAN;
  scope_.not_before = job_.not_before;
  builder_.SetTopology(topology);
  builder_.SetJob(job_);
}

bool LiveJob::InScope(const wire::DecodedEvent& e, double received_at, const ScopeOptions& options) const {
  return InJobScope(e, received_at, scope_, options, end_known_at_);
}

void LiveJob::SetTopology(const Topology& topology) { builder_.SetTopology(topology); }

void LiveJob::Feed(const wire::DecodedEvent& e, double now) {
  ++events_fed_;
  switch (e.type) {
    case wire::EventType::kLog: {
      LogEvent ev = e.log.event;
      builder_.AddLogEvent(e.log.node, e.log.source, e.log.file, std::move(ev));
      break;
    }
    case wire::EventType::kCcl: {
      uint64_t counters = 0;
      for (const auto& [func, lc] : e.ccl.coll) counters += lc.first + lc.second;
      auto key = std::make_pair(e.ccl.comm, e.ccl.rank);
      auto it = progress_.find(key);
      if (it == progress_.end()) {
        if (progress_.empty()) last_progress_ = now;
        progress_.emplace(key, std::make_pair(e.ccl.ts, counters));
        last_progress_ = now;
      } else if (e.ccl.ts > it->second.first) {
        if (counters != it->second.second) last_progress_ = now;
        it->second = {e.ccl.ts, counters};
      }
      CclRecord record = e.ccl;
      record.line = ++ccl_lines_[record.file];  // its line in the exported bundle's file
      builder_.AddCclRecord(std::move(record));
      break;
    }
    case wire::EventType::kFacts: builder_.SetFacts(e.node, e.facts); break;
    case wire::EventType::kMetric: builder_.AddSeries(e.series); break;
    case wire::EventType::kProbe: {
      ProbeResult p = e.probe;
      p.index = probes_++;
      builder_.AddProbe(std::move(p));
      break;
    }
    case wire::EventType::kHeartbeat: break;
  }
}

Verdict LiveJob::DecideAs(JobState state, double ended_at, const Catalog& catalog, const DecideOptions& options) {
  const bool same_end = (std::isnan(ended_at) && std::isnan(job_.ended_at)) || ended_at == job_.ended_at;
  if (job_.state != state || !same_end) {
    job_.state = state;
    job_.ended_at = ended_at;
    builder_.SetJob(job_);
  }
  return Decide(builder_.View(), catalog, options);
}

void LiveJob::ReportMissing(const std::string& where, const std::string& why) {
  builder_.Report(where, Status::NotFound(why));
}

}  // namespace aegis::controller
