#include "sources/bundle_source.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <future>
#include <nlohmann/json.hpp>
#include <set>

#include "bundle/bundle_reader.h"
#include "ccl/reader.h"
#include "common/parallel.h"
#include "common/time.h"
#include "logs/event_aggregate.h"
#include "logs/scanner.h"
#include "metrics/prom_reader.h"
#include "metrics/prometheus_client.h"

namespace aegis {

namespace fs = std::filesystem;

namespace {

struct LogFile {
  std::string path;  // absolute
  std::string rel;   // relative to the bundle
  std::string host;
  SourceKind kind;
  uint64_t size = 0;
};

struct ScannedLog {
  std::vector<LogEvent> events;
  ScanStats stats;
};

Status ReadJsonFile(const fs::path& path, std::string* text) {
  Status s = ReadSmallFile(path.string(), text);
  return s;
}

void ReadProbes(const fs::path& path, IncidentBuilder* b) {
  std::string text;
  if (Status s = ReadSmallFile(path.string(), &text); !s.ok()) {
    b->Report("probes.json", s);
    return;
  }
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_array()) {
    b->Report("probes.json", Status::InvalidArgument("not a JSON array"));
    return;
  }
  size_t skipped = 0;
  for (size_t i = 0; i < j.size(); ++i) {
    const auto& p = j[i];
    if (!p.is_object() || !p.contains("src") || !p.contains("dst") || !p["src"].is_string() || !p["dst"].is_string()) {
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
    b->AddProbe(std::move(r));
  }
  if (skipped)
    b->Report("probes.json", Status::InvalidArgument(std::to_string(skipped) + " entries without usable fields"));
}

// The logs to scan: kernel and training logs of every host folder, switch logs.
std::vector<LogFile> ListLogs(const fs::path& root, const std::set<std::string>& folders) {
  std::vector<LogFile> logs;
  std::error_code ec;
  for (const auto& host : folders)
    for (auto [name, kind] : {std::pair{"kernel.log", SourceKind::kKernel}, std::pair{"train.log", SourceKind::kTrain}}) {
      fs::path p = root / "nodes" / host / name;
      if (fs::is_regular_file(p, ec))
        logs.push_back({p.string(), "nodes/" + host + "/" + name, host, kind, fs::file_size(p, ec)});
    }
  if (fs::is_directory(root / "switches", ec))
    for (const auto& d : fs::directory_iterator(root / "switches", ec))
      if (d.is_regular_file() && d.path().extension() == ".log")
        logs.push_back({d.path().string(), "switches/" + d.path().filename().string(), d.path().stem().string(),
                        SourceKind::kSwitch, d.file_size(ec)});
  // Largest first so that every core stays busy to the end.
  std::sort(logs.begin(), logs.end(),
            [](const LogFile& a, const LogFile& b) { return a.size != b.size ? a.size > b.size : a.rel < b.rel; });
  return logs;
}

// A bundle is collected when its job has ended, within a day of the end at the latest.
constexpr double kCollectedWithinS = 86400;

// A kernel log printed with uptimes only (plain `dmesg`) has no line that tells its boot
// time. Its newest line was printed before the log was collected, so a record printed
// (newest - uptime) seconds before that line is no later than the job's end plus
// kCollectedWithinS minus those seconds. When even that is before the job started, the
// record is history, and it gets that bound as its time; otherwise it keeps no time (an
// upper bound says nothing about where in the window it was). A reboot inside the log
// (uptimes start again) only makes the bound later. An event of several records is left
// alone: its last record's uptime is not kept.
void PlaceUptimeOnly(std::vector<LogEvent>& events, double newest_uptime, const Job& job) {
  if (std::isnan(newest_uptime) || std::isnan(job.started_at) || std::isnan(job.ended_at)) return;
  for (LogEvent& ev : events) {
    if (!std::isnan(ev.ts) || std::isnan(ev.uptime) || ev.count > 1) continue;
    const double latest = job.ended_at + kCollectedWithinS - (newest_uptime - ev.uptime);
    if (latest >= job.started_at) continue;
    ev.ts = latest;
    ev.ts_exact = ev.ts_zoned = true;  // a bound on the epoch clock of job.json: no zone to allow for
  }
}

// Each log's events aggregated as they are found (logs/event_aggregate.h), apart on
// either side of the job's time window as the builder keeps them: the scanner folds the
// repeats of a line, and what it hands out is aggregated by evidence. A log that repeats a
// line costs one event.
std::vector<ScannedLog> ScanLogs(const std::vector<LogFile>& logs, const Matcher& matcher, ScanOptions so,
                                 const Job& job, const WindowOptions& window, int threads) {
  so.fold_repeats = true;
  so.window_side = [&](double ts, bool exact, bool zoned) { return WindowSide(ts, exact, zoned, job, window); };
  std::vector<ScannedLog> out(logs.size());
  ScanOptions job_output = so;  // training logs: pdsh's "host: " labels may lead any line
  job_output.host_labels = true;
  ParallelFor(logs.size(), threads, [&] {
    // One scanner per kind of log and thread, each reused from file to file.
    return [&, scanners = std::make_shared<std::pair<std::unique_ptr<Scanner>, std::unique_ptr<Scanner>>>()](size_t i) {
      const bool train = logs[i].kind == SourceKind::kTrain;
      std::unique_ptr<Scanner>& scanner = train ? scanners->second : scanners->first;
      if (!scanner) scanner = std::make_unique<Scanner>(matcher, train ? job_output : so);
      LogAggregator events([&](const LogEvent& ev) { return WindowSide(ev, job, window, logs[i].host); });
      out[i].stats = scanner->ScanFile(logs[i].path, [&](LogEvent&& ev) {
        if (ev.line_class != LineClass::kNone) events.Add(std::move(ev));
      });
      out[i].events = events.Take();
      if (logs[i].kind == SourceKind::kKernel) PlaceUptimeOnly(out[i].events, out[i].stats.last_uptime, job);
    };
  });
  return out;
}

void AddScannedLogs(const std::vector<LogFile>& logs, std::vector<ScannedLog>& out, IncidentBuilder* b) {
  // Into the builder in file order (it keeps each file's first events of each class).
  std::vector<size_t> order(logs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return logs[x].rel < logs[y].rel; });
  for (size_t i : order) {
    const LogFile& log = logs[i];
    b->AddBytesScanned(out[i].stats.bytes);
    if (!out[i].stats.status.ok()) b->Report(log.rel, out[i].stats.status);
    if (out[i].stats.cut_lines)
      b->Report(log.rel, Status::ResourceExhausted(std::to_string(out[i].stats.cut_lines) +
                                                   " lines longer than 1 MiB were cut"));
    for (auto& ev : out[i].events) b->AddLogEvent(log.host, log.kind, log.rel, std::move(ev));
  }
}

void ReadCcl(const fs::path& root, const std::set<std::string>& folders, int threads, IncidentBuilder* b) {
  std::vector<std::pair<std::string, std::string>> files;  // (host, relative path)
  std::error_code ec;
  for (const auto& host : folders) {
    fs::path dir = root / "nodes" / host / "ccl";
    if (!fs::is_directory(dir, ec)) continue;
    for (const auto& f : fs::directory_iterator(dir, ec))
      if (f.is_regular_file() &&
          (f.path().extension() == ".jsonl" || f.path().string().find(".jsonl.") != std::string::npos))
        files.emplace_back(host, "nodes/" + host + "/ccl/" + f.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  using Newest = std::map<std::pair<std::string, int>, CclRecord>;
  std::vector<Newest> parts(files.size());
  std::vector<CclFileStats> stats(files.size());
  ParallelFor(files.size(), threads, [&] {
    return [&](size_t i) {
      stats[i] = ReadCclFile((root / files[i].second).string(), files[i].second, files[i].first, &parts[i]);
    };
  });
  for (size_t i = 0; i < files.size(); ++i) {
    if (!stats[i].status.ok()) b->Report(files[i].second, stats[i].status);
    if (stats[i].bad_lines)
      b->Report(files[i].second, Status::InvalidArgument(std::to_string(stats[i].bad_lines) + " lines not usable"));
    for (auto& [key, rec] : parts[i]) b->AddCclRecord(std::move(rec));
  }
}

void ReadMetrics(const fs::path& root, int threads, IncidentBuilder* b) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (fs::is_directory(root / "metrics", ec))
    for (const auto& f : fs::directory_iterator(root / "metrics", ec))
      if (f.is_regular_file() && f.path().extension() == ".json") files.push_back(f.path());
  std::sort(files.begin(), files.end());
  std::vector<PromParseResult> parsed(files.size());
  ParallelFor(files.size(), threads, [&] {
    return [&](size_t i) {
      const std::string rel = "metrics/" + files[i].filename().string();
      std::string body;
      if (Status s = ReadSmallFile(files[i].string(), &body, 1u << 30); !s.ok()) {
        parsed[i].status = s;
        return;
      }
      parsed[i] = ParseQueryRange(body, files[i].stem().string(), rel);
    };
  });
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string rel = "metrics/" + files[i].filename().string();
    if (!parsed[i].status.ok()) b->Report(rel, parsed[i].status);
    if (parsed[i].skipped)
      b->Report(rel, Status::InvalidArgument(std::to_string(parsed[i].skipped) +
                                             " series without a host label or values"));
    for (auto& s : parsed[i].series) b->AddSeries(std::move(s));
  }
}

// Problems reported while the job is parsed, held until the topology's are reported, so
// that a bundle's problems are listed file by file in one order.
class HeldReports final : public Reporter {
 public:
  void Report(std::string_view where, const Status& status) override { held_.emplace_back(std::string(where), status); }
  void PassTo(Reporter* to) const {
    for (const auto& [where, status] : held_) to->Report(where, status);
  }

 private:
  std::vector<std::pair<std::string, Status>> held_;
};

}  // namespace

Status ReadBundle(const std::string& dir, const Matcher& matcher, const BundleReadOptions& options,
                  IncidentBuilder* b) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Status::NotFound(dir + ": no such bundle directory");
  const fs::path root(dir);
  auto missing = [&](const char* name) { return Status::NotFound(dir + ": " + name + " is missing"); };
  if (!fs::exists(root / "topology.json", ec)) return missing("topology.json");
  std::string job_text;
  if (Status s = ReadJsonFile(root / "job.json", &job_text); !s.ok()) return s.IsNotFound() ? missing("job.json") : s;

  // The logs are most of the work and need only the job's times (the year of yearless
  // times; the window whose sides repeated events are kept apart by): they are scanned
  // while the topology, the facts and the probes are read.
  // Parsed once; what it reports is held and passed on after the topology's problems.
  Job job;
  HeldReports job_reports;
  const Status job_parsed = ParseJob(job_text, &job, &job_reports);
  double ref = (options.env ? options.env : Env::Default())->NowEpochSeconds();
  if (job_parsed.ok() && !std::isnan(job.started_at)) ref = job.started_at;
  std::set<std::string> folders;
  if (fs::is_directory(root / "nodes", ec))
    for (const auto& d : fs::directory_iterator(root / "nodes", ec))
      if (d.is_directory()) folders.insert(d.path().filename().string());
  ScanOptions so;
  so.year = YearOf(ref);
  so.ref_time = ref;
  const std::vector<LogFile> logs = ListLogs(root, folders);
  // An early return waits for the scan too: std::async's future joins in its destructor.
  // The scan keeps its own copy of the job (its window).
  auto scan = std::async(std::launch::async, [&, window_job = job, window = b->options().window] {
    return ScanLogs(logs, matcher, so, window_job, window, options.threads);
  });

  // Parsed in this order, topology first, so that their problems are reported in it.
  std::string text;
  Topology topology;
  if (Status s = ReadJsonFile(root / "topology.json", &text); !s.ok())
    return s.IsNotFound() ? missing("topology.json") : s;
  if (Status s = ParseTopology(text, &topology, b); !s.ok()) return Status::InvalidArgument(dir + ": " + s.message());
  job_reports.PassTo(b);
  if (!job_parsed.ok()) return Status::InvalidArgument(dir + ": " + job_parsed.message());
  for (const auto& h : job.hosts)
    if (topology.FindNode(h) < 0) b->Report("job.json", Status::InvalidArgument("host " + h + " is not in topology.json"));
  b->SetTopology(std::move(topology));
  b->SetJob(std::move(job));
  const Incident& inc = b->View();

  for (const auto& host : inc.job.hosts)
    for (const char* f : {"kernel.log", "train.log"})
      if (!fs::is_regular_file(root / "nodes" / host / f, ec))
        b->Report("nodes/" + host + "/" + f, Status::NotFound("missing"));
  for (const auto& host : folders) {
    if (inc.topology.FindNode(host) < 0)
      b->Report("nodes/" + host,
                Status::InvalidArgument("host not in topology.json; its lines are read but cannot be isolated"));
    const fs::path facts = root / "nodes" / host / "facts.json";
    if (!fs::is_regular_file(facts, ec)) continue;
    Facts f;
    Status s = ReadSmallFile(facts.string(), &text);
    if (s.ok()) s = ParseFacts(text, &f);
    if (s.ok()) b->SetFacts(host, std::move(f));
    else b->Report("nodes/" + host + "/facts.json", Status::InvalidArgument(s.message()));
  }
  if (fs::is_regular_file(root / "probes.json", ec)) ReadProbes(root / "probes.json", b);

  std::vector<ScannedLog> scanned = scan.get();
  AddScannedLogs(logs, scanned, b);
  ReadCcl(root, folders, options.threads, b);
  ReadMetrics(root, options.threads, b);
  return Status::Ok();
}

Status DiagnoseBundle(const std::string& dir, const Matcher& matcher, const DiagnoseOptions& options, Verdict* out) {
  IncidentBuilder b;
  BundleReadOptions ro;
  ro.threads = options.threads;
  ro.env = options.env;
  if (Status s = ReadBundle(dir, matcher, ro, &b); !s.ok()) return s;
  if (!options.prometheus_url.empty()) {
    // The window ends when the job did (or now); twice its length is fetched so that a
    // cluster-wide shift can be told from the baseline before it.
    const Job& job = b.View().job;
    Env* env = options.env ? options.env : Env::Default();
    const double end = !std::isnan(job.ended_at) ? job.ended_at : env->NowEpochSeconds();
    const double start = end - 2 * options.decide.outliers.window_s;
    std::vector<std::string> names;
    for (const auto& m : matcher.catalog().metrics()) names.push_back(m.name);
    for (auto& s : FetchFromPrometheus(options.prometheus_url, names, start, end, options.prometheus_step, &b))
      b.AddSeries(std::move(s));
  }
  *out = Decide(b.View(), matcher.catalog(), options.decide);
  return Status::Ok();
}

}  // namespace aegis
