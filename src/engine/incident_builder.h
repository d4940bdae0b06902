// IncidentBuilder: an Incident assembled from inputs as they arrive, in any order, from
// files (a bundle) or from streams (the live controller): log events, CCL records, facts,
// metric series, probes, and what could not be read. Every event is located on the
// topology and placed against the job's time window when it is added (and again when
// the topology or the job changes), so that View() is cheap and a decision can be re-run
// at any time. A log file keeps at most max_events_per_class events of each class (the
// earliest), so that a log full of recurring hints cannot exhaust memory.
// Implements Reporter: a loss reported to it is listed in the incident (NotFound as
// missing, anything else as unreadable). Not thread-safe: one writer at a time.
#pragma once
#include <map>
#include <string>
#include <utility>

#include "common/status.h"
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
  // `file` (bundle-relative path). Events of one file may arrive in any line order.
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
  // Hands the incident over; the builder starts empty again.
  std::unique_ptr<Incident> Take();

 private:
  void Relocate();  // after the topology or the job changed
  void Locate(LocatedEvent& e) const;
  void SortEvents();

  Options options_;
  std::unique_ptr<Incident> inc_;
  bool sorted_ = true;
  std::map<std::pair<std::string, int>, size_t> per_file_class_;  // (file, class) -> events kept
  std::map<std::pair<std::string, int>, size_t> ccl_index_;       // (comm, rank) -> index in inc_.ccl
  std::map<std::tuple<std::string, std::string, std::string>, size_t> series_index_;
};

}  // namespace aegis
