#include "gen/live.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <thread>

#include "gen/bundle_writer.h"

namespace aegis::gen {

namespace fs = std::filesystem;

namespace {

double WallNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

void SleepUntil(double epoch_seconds) {
  const auto at = std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::duration<double>(epoch_seconds)));
  std::this_thread::sleep_until(at);
}

// Appends and closes at once: a follower sees every batch as soon as it is written.
void Append(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  FILE* f = std::fopen(p.c_str(), "ab");
  if (!f) throw std::runtime_error("cannot append to " + p.string());
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) throw std::runtime_error("cannot append to " + p.string());
}

std::string JsonText(const nlohmann::json& j) { return j.dump(2) + "\n"; }

struct Stream {
  fs::path path;
  const std::vector<LogFile::Line>* lines;
};

struct Event {
  double ts;
  uint32_t stream, line;
};

// The job's id, unique among the jobs streamed into `root` before (kept in root/jobs).
std::string NextJobId(const fs::path& root, const std::string& base) {
  std::set<std::string> taken;
  std::size_t jobs = 0;
  if (std::ifstream in(root / "jobs"); in) {
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) taken.insert(line), ++jobs;
  }
  std::string id = base;
  for (std::size_t n = jobs + 1; taken.count(id); ++n) id = base + "-" + std::to_string(n);
  Append(root / "jobs", id + "\n");
  return id;
}

}  // namespace

GenOptions LiveGenOptions(const GenOptions& options, const LiveOptions& l, double t0) {
  if (!(l.fault_at >= 0) || !(l.duration > l.fault_at) || !(l.rate > 0) || !(l.rotate_at < l.duration))
    throw std::invalid_argument("live: need 0 <= fault-at < duration, rate > 0 and rotate-at < duration");
  GenOptions o = options;
  const double history = std::max(60.0, l.duration);
  o.timeline = Timeline{t0, t0 + l.fault_at, t0 + l.duration, history};
  // The noise functions spread bytes over their span: training lines up to the fault,
  // kernel lines over the history and the whole run.
  o.train_bytes = static_cast<size_t>(l.rate * l.fault_at * 110);
  o.kernel_bytes = static_cast<size_t>(l.rate / 4 * (history + l.duration) * 96);
  return o;
}

size_t RunLive(const GenOptions& options, const LiveOptions& l, const std::string& dir) {
  const double t0 = l.start.value_or(WallNow());
  Bundle b = BuildBundle(LiveGenOptions(options, l, t0));

  const fs::path root(dir);
  fs::create_directories(root);
  b.c.job_id = NextJobId(root, b.c.job_id);
  if (b.expected.contains("job")) b.expected["job"] = b.c.job_id;
  WriteFileAtomically((root / "topology.json").string(), JsonText(TopologyJson(b.c)));
  WriteFileAtomically((root / "job.json").string(), JsonText(JobJson(b, true)));

  std::vector<Stream> streams;
  std::vector<fs::path> train_logs;
  for (int i = 0; i < b.Hosts(); ++i) {
    NodeData& nd = b.Node(i);
    if (!nd.has_folder) continue;
    const fs::path node_dir = root / "nodes" / b.N(i).host;
    fs::create_directories(node_dir);
    if (nd.has_facts) WriteFileAtomically((node_dir / "facts.json").string(), JsonText(nd.facts));
    if (nd.has_kernel) streams.push_back({node_dir / "kernel.log", &nd.kernel.Sorted()});
    if (nd.has_train) {
      streams.push_back({node_dir / "train.log", &nd.train.Sorted()});
      train_logs.push_back(node_dir / "train.log");
    }
    for (auto& [gpu, f] : nd.ccl) streams.push_back({root / CclPath(b.N(i), gpu), &f.Sorted()});
  }
  for (auto& [name, f] : b.switches) streams.push_back({root / "switches" / (name + ".log"), &f.Sorted()});

  std::vector<Event> events;
  for (uint32_t s = 0; s < streams.size(); ++s)
    for (uint32_t k = 0; k < streams[s].lines->size(); ++k) events.push_back({(*streams[s].lines)[k].ts, s, k});
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.ts < b.ts; });

  size_t bytes = 0;
  bool rotation_pending = l.rotate_at >= 0;
  const double rotate_ts = t0 + l.rotate_at;
  size_t i = 0;
  while (i < events.size() || rotation_pending) {
    if (rotation_pending && (i == events.size() || rotate_ts <= events[i].ts)) {
      if (l.paced) SleepUntil(rotate_ts);
      for (const auto& p : train_logs) {
        std::error_code ec;
        if (fs::exists(p, ec)) fs::rename(p, fs::path(p.string() + ".1"));
      }
      rotation_pending = false;
      continue;
    }
    if (l.paced) SleepUntil(events[i].ts);
    // Everything due by now goes out in one batch per file.
    const double limit = l.paced ? std::max(events[i].ts, WallNow()) : INFINITY;
    std::map<uint32_t, std::string> batch;
    size_t j = i;
    for (; j < events.size() && events[j].ts <= limit && !(rotation_pending && events[j].ts >= rotate_ts); ++j) {
      std::string& text = batch[events[j].stream];
      text += (*streams[events[j].stream].lines)[events[j].line].text;
      text += '\n';
    }
    for (const auto& [s, text] : batch) {
      Append(streams[s].path, text);
      bytes += text.size();
    }
    i = j;
  }
  if (l.paced) SleepUntil(t0 + l.duration);

  if (!b.probes.empty()) WriteFileAtomically((root / "probes.json").string(), JsonText(b.probes));
  for (const auto& [name, body] : b.metrics) {
    fs::create_directories(root / "metrics");
    WriteFileAtomically((root / "metrics" / (name + ".json")).string(), body);
  }
  WriteFileAtomically((root / "job.json").string(), JsonText(JobJson(b, false)));
  WriteFileAtomically((root / "expected.json").string(), JsonText(b.expected));
  return bytes;
}

}  // namespace aegis::gen
