// IncidentBuilder: an Incident assembled from inputs as they arrive, in any order, from
// files (a bundle) or from streams (the live controller): log events, CCL records, facts,
// metric series, probes, and what could not be read. Every event is located on the
// topology and placed against the job's time window when it is added (and again when
// the topology or the job changes), so that View() is cheap and a decision can be re-run
// at any time. Events of one file that are the same evidence are aggregated into one
// (logs/event_aggregate.h): a count, the first record, the last one's line and time,
// a few samples), so memory follows the distinct evidence, not the number of repeated
// lines. A log file keeps at most max_events_per_class distinct events of each class (the
// earliest); the records of any beyond are counted as dropped.
// Implements Reporter: a loss reported to it is listed in the incident (NotFound as
// missing, anything else as unreadable). Not thread-safe: one writer at a time.
#pragma once
#include <map>
#include <string>
#include <utility>

#include "common/status.h"
#include "logs/event_aggregate.h"
#include "engine/incident.h"
#include "engine/job_window.h"

namespace aegis {

class IncidentBuilder : public Reporter {
 public:
  struct Options {
    size_t max_events_per_class = 2000;  // per file
    WindowOptions window;
  };
  IncidentBuilder();
  explicit IncidentBuilder(Options options);

  void SetTopology(Topology topology);
  void SetJob(Job job);
  // One classified record of a log of `host` (a node, or a switch for kSwitch), read from
  // `file` (bundle-relative path), or an aggregate of several (count > 1). Events of one
  // file may arrive in any line order; one that is the same evidence as an event of that
  // file on the same side of the job's time window is added to it.
  void AddLogEvent(const std::string& host, SourceKind source, const std::string& file, LogEvent ev);
  // A CCL counter record; only the newest (largest ts) of each (communicator, rank) is kept.
  void AddCclRecord(CclRecord record);
  void SetFacts(const std::string& host, Facts facts);
  // A metric series; samples of a series already known (same metric, host, device) are
  // merged in time order.
  void AddSeries(Series series);
  void AddProbe(ProbeResult probe);
  void AddBytesScanned(uint64_t bytes) { inc_->bytes_scanned += bytes; }
  void Report(std::string_view where, const Status& status) override;

  // The incident as of now. Valid until the next call that changes the builder.
  const Incident& View();
  const Options& options() const { return options_; }
  // Hands the incident over; the builder starts empty again.
  std::unique_ptr<Incident> Take();

 private:
  void Relocate();  // after the topology or the job changed
  void Locate(LocatedEvent& e) const;
  void SortEvents();
  void IndexEvents();  // evidence_ anew, after the events moved
  uint64_t EvidenceKey(const std::string& file, const LogEvent& ev) const;

  Options options_;
  std::unique_ptr<Incident> inc_;
  bool sorted_ = true;
  std::map<std::pair<std::string, int>, size_t> per_file_class_;  // (file, class) -> events kept
  EvidenceIndex evidence_;  // (file, evidence) -> index in inc_->events
  std::map<std::pair<std::string, int>, size_t> ccl_index_;       // (comm, rank) -> index in inc_.ccl
  std::map<std::tuple<std::string, std::string, std::string>, size_t> series_index_;
};

}  // namespace aegis
