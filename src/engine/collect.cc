#include <algorithm>
#include <atomic>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <memory>
#include <set>
#include <thread>

#include "bundle/bundle_reader.h"
#include "ccl/reader.h"
#include "common/text.h"
#include "common/time.h"
#include "engine/incident.h"
#include "logs/scanner.h"
#include "metrics/prom_reader.h"

namespace aegis {

namespace fs = std::filesystem;

bool Incident::IsJobNode(int node) const {
  return node >= 0 && static_cast<size_t>(node) < job_node_mask.size() && job_node_mask[static_cast<size_t>(node)];
}

namespace {

// A file's events are capped so that a log full of recurring hints cannot exhaust
// memory; the first ones of each class are kept (they are the earliest).
constexpr size_t kMaxEventsPerClassPerFile = 2000;

struct ScanJob {
  std::string path;  // absolute
  std::string rel;   // relative to the bundle
  std::string host;
  SourceKind kind;
  uint64_t size = 0;
};

struct ScanOutput {
  std::vector<LogEvent> events;
  ScanStats stats;
  size_t dropped = 0;
};

void LocateEvent(const AddressBook& book, LocatedEvent& le) {
  const LogEvent& ev = le.ev;
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

std::vector<ProbeResult> ReadProbes(const std::string& path, Incident& inc) {
  std::vector<ProbeResult> out;
  std::string text;
  try {
    text = ReadSmallFile(path);
  } catch (const BundleError& e) {
    inc.unreadable.push_back({"probes.json", e.what()});
    return out;
  }
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_array()) {
    inc.unreadable.push_back({"probes.json", "not a JSON array"});
    return out;
  }
  size_t skipped = 0;
  for (size_t i = 0; i < j.size(); ++i) {
    const auto& p = j[i];
    if (!p.is_object() || !p.contains("src") || !p.contains("dst") || !p["src"].is_string() ||
        !p["dst"].is_string()) {
      ++skipped;
      continue;
    }
    ProbeResult r;
    r.index = i;
    r.src = p["src"].get<std::string>();
    r.dst = p["dst"].get<std::string>();
    auto num = [&](const char* k, double fb) { return p.contains(k) && p[k].is_number() ? p[k].get<double>() : fb; };
    r.size = static_cast<int>(num("size", 0));
    r.sent = static_cast<long long>(num("sent", 0));
    r.lost = static_cast<long long>(num("lost", 0));
    r.rtt_p50 = num("rtt_us_p50", NAN);
    r.rtt_p99 = num("rtt_us_p99", NAN);
    if (r.sent <= 0 || r.lost < 0 || r.lost > r.sent) {
      ++skipped;
      continue;
    }
    out.push_back(r);
  }
  if (skipped) inc.unreadable.push_back({"probes.json", std::to_string(skipped) + " entries without usable fields"});
  return out;
}

// Runs work(i) for i in [0, n) on `threads` threads; make() builds each thread's worker
// (which owns that thread's scanner or parser).
template <typename MakeWorker>
void RunParallel(size_t n, int threads, MakeWorker make) {
  std::atomic<size_t> next{0};
  auto body = [&] {
    auto work = make();
    for (size_t i = next++; i < n; i = next++) work(i);
  };
  threads = std::max(1, std::min<int>(threads, static_cast<int>(n)));
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(body);
  body();
  for (auto& t : pool) t.join();
}

}  // namespace

Incident CollectIncident(const std::string& dir, const Matcher& matcher, const CollectOptions& options) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw BundleError(dir + ": no such bundle directory");
  Incident inc;
  inc.dir = dir;
  std::vector<std::string> problems;
  const fs::path root(dir);
  if (!fs::exists(root / "topology.json")) throw BundleError(dir + ": topology.json is missing");
  if (!fs::exists(root / "job.json")) throw BundleError(dir + ": job.json is missing");
  inc.topology = ParseTopology(ReadSmallFile((root / "topology.json").string()), &problems);
  inc.job = ParseJob(ReadSmallFile((root / "job.json").string()), &problems);
  for (const auto& p : problems) inc.unreadable.push_back({p.substr(0, p.find(':')), p});
  problems.clear();
  for (const auto& h : inc.job.hosts) {
    int n = inc.topology.FindNode(h);
    if (n >= 0) {
      inc.job_nodes.push_back(n);
      inc.job_node_mask.resize(inc.topology.nodes.size(), 0);
      inc.job_node_mask[static_cast<size_t>(n)] = 1;
    }
    else inc.unreadable.push_back({"job.json", "host " + h + " is not in topology.json"});
  }
  AddressBook book(inc.topology, inc.job);

  // Which files to read: every host folder present, and the expected ones of job hosts.
  std::vector<ScanJob> jobs;
  std::set<std::string> folders;
  if (fs::is_directory(root / "nodes", ec))
    for (const auto& d : fs::directory_iterator(root / "nodes", ec))
      if (d.is_directory()) folders.insert(d.path().filename().string());
  for (const auto& host : inc.job.hosts) {
    for (const char* f : {"kernel.log", "train.log"}) {
      fs::path p = root / "nodes" / host / f;
      if (!fs::is_regular_file(p, ec)) inc.missing.push_back("nodes/" + host + "/" + f);
    }
  }
  for (const auto& host : folders) {
    if (inc.topology.FindNode(host) < 0)
      inc.unreadable.push_back({"nodes/" + host, "host not in topology.json; its lines are read but cannot be isolated"});
    for (auto [name, kind] : {std::pair{"kernel.log", SourceKind::kKernel}, std::pair{"train.log", SourceKind::kTrain}}) {
      fs::path p = root / "nodes" / host / name;
      if (fs::is_regular_file(p, ec))
        jobs.push_back({p.string(), "nodes/" + host + "/" + name, host, kind, fs::file_size(p, ec)});
    }
    fs::path facts = root / "nodes" / host / "facts.json";
    if (fs::is_regular_file(facts, ec)) {
      try {
        std::vector<std::string> fp;
        inc.facts[host] = ParseFacts(ReadSmallFile(facts.string()), &fp);
        for (const auto& p : fp) inc.unreadable.push_back({"nodes/" + host + "/facts.json", p});
      } catch (const BundleError& e) {
        inc.unreadable.push_back({"nodes/" + host + "/facts.json", e.what()});
      }
    }
  }
  if (fs::is_directory(root / "switches", ec))
    for (const auto& d : fs::directory_iterator(root / "switches", ec))
      if (d.is_regular_file() && d.path().extension() == ".log")
        jobs.push_back({d.path().string(), "switches/" + d.path().filename().string(), d.path().stem().string(),
                        SourceKind::kSwitch, d.file_size(ec)});
  if (fs::is_regular_file(root / "probes.json", ec)) inc.probes = ReadProbes((root / "probes.json").string(), inc);

  // Largest files first so that both cores stay busy to the end.
  std::sort(jobs.begin(), jobs.end(), [](const ScanJob& a, const ScanJob& b) {
    return a.size != b.size ? a.size > b.size : a.rel < b.rel;
  });
  ScanOptions so;
  double ref = !std::isnan(inc.job.started_at) ? inc.job.started_at : static_cast<double>(time(nullptr));
  so.year = YearOf(ref);
  std::vector<ScanOutput> outputs(jobs.size());
  const int threads = options.threads > 0 ? options.threads : static_cast<int>(std::thread::hardware_concurrency());
  RunParallel(jobs.size(), threads, [&] {
    return [&, scanner = std::make_shared<Scanner>(matcher, so)](size_t i) {
      ScanOutput& out = outputs[i];
      size_t per_class[6] = {0, 0, 0, 0, 0, 0};
      out.stats = scanner->ScanFile(jobs[i].path, [&](LogEvent&& ev) {
        if (ev.line_class == LineClass::kNone) return;
        size_t& n = per_class[static_cast<int>(ev.line_class)];
        if (n >= kMaxEventsPerClassPerFile) {
          ++out.dropped;
          return;
        }
        ++n;
        out.events.push_back(std::move(ev));
      });
    };
  });

  // CCL snapshots: the newest record of each (communicator, rank) over all files.
  std::vector<std::pair<std::string, std::string>> ccl_files;  // (host, relative path)
  for (const auto& host : folders) {
    fs::path dir = root / "nodes" / host / "ccl";
    if (!fs::is_directory(dir, ec)) continue;
    for (const auto& f : fs::directory_iterator(dir, ec))
      if (f.is_regular_file() && (f.path().extension() == ".jsonl" || f.path().string().find(".jsonl.") != std::string::npos))
        ccl_files.emplace_back(host, "nodes/" + host + "/ccl/" + f.path().filename().string());
  }
  std::sort(ccl_files.begin(), ccl_files.end());
  using Newest = std::map<std::pair<std::string, int>, CclRecord>;
  std::vector<Newest> ccl_parts(ccl_files.size());
  std::vector<CclFileStats> ccl_stats(ccl_files.size());
  RunParallel(ccl_files.size(), threads, [&] {
    return [&](size_t i) {
      ccl_stats[i] = ReadCclFile((root / ccl_files[i].second).string(), ccl_files[i].second, ccl_files[i].first,
                                 &ccl_parts[i]);
    };
  });
  Newest newest;
  for (size_t i = 0; i < ccl_files.size(); ++i) {
    if (!ccl_stats[i].error.empty()) inc.unreadable.push_back({ccl_files[i].second, ccl_stats[i].error});
    if (ccl_stats[i].bad_lines)
      inc.unreadable.push_back({ccl_files[i].second, std::to_string(ccl_stats[i].bad_lines) + " lines not usable"});
    for (auto& [key, rec] : ccl_parts[i]) {
      auto it = newest.find(key);
      if (it == newest.end() || it->second.ts <= rec.ts) newest[key] = std::move(rec);
    }
  }
  for (auto& [key, rec] : newest) inc.ccl.push_back(std::move(rec));

  // Metrics: Prometheus query_range bodies, one metric per file.
  std::vector<fs::path> metric_files;
  if (fs::is_directory(root / "metrics", ec))
    for (const auto& f : fs::directory_iterator(root / "metrics", ec))
      if (f.is_regular_file() && f.path().extension() == ".json") metric_files.push_back(f.path());
  std::sort(metric_files.begin(), metric_files.end());
  std::vector<PromParseResult> parsed(metric_files.size());
  RunParallel(metric_files.size(), threads, [&] {
    return [&](size_t i) {
      const std::string rel = "metrics/" + metric_files[i].filename().string();
      try {
        parsed[i] = ParseQueryRange(ReadSmallFile(metric_files[i].string(), 1u << 30), metric_files[i].stem().string(), rel);
      } catch (const BundleError& e) {
        parsed[i].error = e.what();
      }
    };
  });
  for (size_t i = 0; i < parsed.size(); ++i) {
    const std::string rel = "metrics/" + metric_files[i].filename().string();
    if (!parsed[i].error.empty()) inc.unreadable.push_back({rel, parsed[i].error});
    if (parsed[i].skipped)
      inc.unreadable.push_back({rel, std::to_string(parsed[i].skipped) + " series without a host label or values"});
    for (auto& s : parsed[i].series) inc.metrics.push_back(std::move(s));
  }

  // Restore a stable order (by file name) and locate every event.
  std::vector<size_t> order(jobs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return jobs[a].rel < jobs[b].rel; });
  for (size_t i : order) {
    const ScanJob& job = jobs[i];
    ScanOutput& out = outputs[i];
    inc.bytes_scanned += out.stats.bytes;
    if (!out.stats.error.empty()) inc.unreadable.push_back({job.rel, out.stats.error});
    if (out.stats.cut_lines)
      inc.unreadable.push_back({job.rel, std::to_string(out.stats.cut_lines) + " lines longer than 1 MiB were cut"});
    if (out.dropped)
      inc.unreadable.push_back({job.rel, std::to_string(out.dropped) + " repeated events beyond the per-file cap not kept"});
    const int node = job.kind == SourceKind::kSwitch ? -1 : book.NodeByName(job.host);
    for (auto& ev : out.events) {
      LocatedEvent le;
      le.ev = std::move(ev);
      le.source = job.kind;
      le.host = job.host;
      le.file = job.rel;
      le.node = node;
      LocateEvent(book, le);
      inc.events.push_back(std::move(le));
    }
  }
  return inc;
}

}  // namespace aegis
