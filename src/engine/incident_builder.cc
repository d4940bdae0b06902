#include "engine/incident_builder.h"

#include <algorithm>
#include <tuple>

#include "common/text.h"

namespace aegis {

IncidentBuilder::IncidentBuilder() : IncidentBuilder(Options()) {}

IncidentBuilder::IncidentBuilder(Options options) : options_(options), inc_(std::make_unique<Incident>()) {
  inc_->book = std::make_unique<AddressBook>(inc_->topology, inc_->job);
}

void IncidentBuilder::SetTopology(Topology topology) {
  inc_->topology = std::move(topology);
  Relocate();
}

void IncidentBuilder::SetJob(Job job) {
  inc_->job = std::move(job);
  Relocate();
}

void IncidentBuilder::Relocate() {
  inc_->book = std::make_unique<AddressBook>(inc_->topology, inc_->job);
  inc_->job_nodes.clear();
  inc_->job_node_mask.assign(inc_->topology.nodes.size(), 0);
  for (const auto& h : inc_->job.hosts) {
    const int n = inc_->topology.FindNode(h);
    if (n < 0) continue;
    inc_->job_nodes.push_back(n);
    inc_->job_node_mask[static_cast<size_t>(n)] = 1;
  }
  for (auto& e : inc_->events) Locate(e);
}

void IncidentBuilder::Locate(LocatedEvent& le) const {
  const AddressBook& book = *inc_->book;
  const LogEvent& ev = le.ev;
  le.node = le.source == SourceKind::kSwitch ? -1 : book.NodeByName(le.host);
  le.gpu = le.nic = -1;
  le.peer = Place();
  le.peer_text.clear();
  le.history = OutsideJobWindow(ev, inc_->job, options_.window, le.host);
  if (le.node >= 0) {
    // The device that reported a PCIe error (often the GPU behind the port), else the line's own.
    if (auto src = ev.Field("src"); !src.empty()) le.gpu = book.GpuByPci(le.node, src);
    if (auto pci = ev.Field("pci"); !pci.empty() && le.gpu < 0) le.gpu = book.GpuByPci(le.node, pci);
    if (le.gpu < 0 && ev.rank >= 0) {
      Place p = book.ResolveRank(ev.rank);
      if (p.node == le.node) le.gpu = p.gpu;
    }
    if (le.gpu < 0 && ev.nccl_device >= 0) le.gpu = ev.nccl_device;
    if (auto nic = ev.Field("nic"); !nic.empty()) le.nic = book.NicByName(le.node, nic);
    if (le.nic < 0)
      if (auto gid = ev.Field("local_gid"); !gid.empty()) {
        Place p = book.ResolvePeer(gid);
        if (p.node == le.node) le.nic = p.nic;
      }
  }
  // The remote end: a RoCE GID names the remote NIC exactly; the bootstrap address
  // names the host; a rank names host and GPU.
  if (auto gid = ev.Field("remote_gid"); !gid.empty()) {
    le.peer = book.ResolvePeer(gid);
    le.peer_text = std::string(gid);
  }
  if (!le.peer.ok())
    if (auto peer = ev.Field("peer"); !peer.empty()) {
      le.peer = book.ResolvePeer(peer);
      le.peer_text = std::string(peer);
    }
  if (!le.peer.ok())
    if (auto pr = ev.Field("peer_rank"); !pr.empty())
      if (auto r = ParseInt(pr)) {
        le.peer = book.ResolveRank(static_cast<int>(*r));
        le.peer_text = "rank " + std::string(pr);
      }
}

uint64_t IncidentBuilder::EvidenceKey(const std::string& file, const LogEvent& ev) const {
  return HashBytes(file, EvidenceHash(ev));
}

void IncidentBuilder::AddLogEvent(const std::string& host, SourceKind source, const std::string& file, LogEvent ev) {
  if (ev.line_class == LineClass::kNone) return;
  const uint64_t key = EvidenceKey(file, ev);
  const int side = WindowSide(ev, inc_->job, options_.window, host);
  const size_t same = evidence_.Find(key, [&](size_t i) {
    const LocatedEvent& e = inc_->events[i];
    return e.file == file && SameEvidence(e.ev, ev) && WindowSide(e.ev, inc_->job, options_.window, host) == side;
  });
  if (same != EvidenceIndex::npos) {
    LocatedEvent& e = inc_->events[same];
    const uint64_t first = e.ev.line;
    AddOccurrences(e.ev, std::move(ev));
    e.history = OutsideJobWindow(e.ev, inc_->job, options_.window, e.host);
    if (e.ev.line < first) sorted_ = false;  // an earlier record now speaks for it
    return;
  }
  size_t& kept = per_file_class_[{file, static_cast<int>(ev.line_class)}];
  if (kept >= options_.max_events_per_class) {
    inc_->dropped_events[file] += ev.count;
    return;
  }
  ++kept;
  LocatedEvent le;
  le.ev = std::move(ev);
  le.source = source;
  le.host = host;
  le.file = file;
  Locate(le);
  if (!inc_->events.empty()) {
    const LocatedEvent& last = inc_->events.back();
    if (std::tie(last.file, last.ev.line) > std::tie(le.file, le.ev.line)) sorted_ = false;
  }
  inc_->events.push_back(std::move(le));
  evidence_.Insert(key);
}

void IncidentBuilder::AddCclRecord(CclRecord record) {
  auto key = std::make_pair(record.comm, record.rank);
  auto it = ccl_index_.find(key);
  if (it == ccl_index_.end()) {
    ccl_index_.emplace(std::move(key), inc_->ccl.size());
    inc_->ccl.push_back(std::move(record));
  } else if (inc_->ccl[it->second].ts <= record.ts) {
    inc_->ccl[it->second] = std::move(record);
  }
}

void IncidentBuilder::SetFacts(const std::string& host, Facts facts) { inc_->facts[host] = std::move(facts); }

void IncidentBuilder::AddSeries(Series series) {
  auto key = std::make_tuple(series.metric, series.host, series.device);
  auto it = series_index_.find(key);
  if (it == series_index_.end()) {
    series_index_.emplace(std::move(key), inc_->metrics.size());
    inc_->metrics.push_back(std::move(series));
    return;
  }
  Series& s = inc_->metrics[it->second];
  const bool in_order = s.t.empty() || series.t.empty() || series.t.front() > s.t.back();
  s.t.insert(s.t.end(), series.t.begin(), series.t.end());
  s.v.insert(s.v.end(), series.v.begin(), series.v.end());
  if (!in_order) {
    std::vector<size_t> order(s.t.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return s.t[a] < s.t[b]; });
    std::vector<double> t, v;
    for (size_t i : order)
      if (t.empty() || s.t[i] != t.back()) {  // one sample per time: the first received
        t.push_back(s.t[i]);
        v.push_back(s.v[i]);
      }
    s.t = std::move(t);
    s.v = std::move(v);
  }
}

void IncidentBuilder::AddProbe(ProbeResult probe) { inc_->probes.push_back(std::move(probe)); }

void IncidentBuilder::Report(std::string_view where, const Status& status) {
  if (status.ok()) return;
  if (status.IsNotFound()) inc_->missing.emplace_back(where);
  else inc_->unreadable.push_back({std::string(where), status.message()});
}

void IncidentBuilder::SortEvents() {
  if (sorted_) return;
  std::stable_sort(inc_->events.begin(), inc_->events.end(), [](const LocatedEvent& a, const LocatedEvent& b) {
    return std::tie(a.file, a.ev.line) < std::tie(b.file, b.ev.line);
  });
  sorted_ = true;
  IndexEvents();
}

void IncidentBuilder::IndexEvents() {
  evidence_.Clear();
  for (const auto& e : inc_->events) evidence_.Insert(EvidenceKey(e.file, e.ev));
}

const Incident& IncidentBuilder::View() {
  SortEvents();
  return *inc_;
}

std::unique_ptr<Incident> IncidentBuilder::Take() {
  SortEvents();
  std::unique_ptr<Incident> out = std::move(inc_);
  inc_ = std::make_unique<Incident>();
  inc_->book = std::make_unique<AddressBook>(inc_->topology, inc_->job);
  per_file_class_.clear();
  evidence_.Clear();
  ccl_index_.clear();
  series_index_.clear();
  return out;
}

}  // namespace aegis
