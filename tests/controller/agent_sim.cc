#include "agent_sim.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "common/time.h"
#include "logs/scanner.h"
#include "metrics/prom_reader.h"
#include "wire/log_event.h"

namespace aegis::controller::test {

using nlohmann::json;

namespace {

class PostBuilder {
 public:
  PostBuilder(std::string node, const SimOptions& o) : node_(std::move(node)), o_(o) {}
  void Add(json event, std::vector<AgentPost>* out) {
    event["id"] = fmt::format("{}-{}-{}", o_.id_prefix, node_, n_++);
    if (!event.contains("node")) event["node"] = node_;
    events_.push_back(std::move(event));
    if (events_.size() >= o_.batch_events) Flush(out);
  }
  void Flush(std::vector<AgentPost>* out) {
    if (events_.empty()) return;
    out->push_back({node_, json{{"node", node_}, {"agent", "sim-" + node_}, {"events", std::move(events_)}}});
    events_ = json::array();
  }

 private:
  std::string node_;
  const SimOptions& o_;
  size_t n_ = 0;
  json events_ = json::array();
};

// The stamp of an event read at `t` by an agent of `job` (SimOptions::stamp).
void Stamp(json* event, double t, const gen::Bundle& b, const SimOptions& o) {
  if (!o.stamp) return;
  (*event)["read_at"] = std::isfinite(t) ? std::max(t, b.c.start) : b.c.start;
  if (o.tag_job) (*event)["job"] = b.c.job_id;
}

void ScanInto(const std::string& node, SourceKind kind, const std::string& file, const std::string& text,
              const Matcher& matcher, const ScanOptions& so, const gen::Bundle& b, const SimOptions& o,
              PostBuilder* post, std::vector<AgentPost>* out) {
  Scanner scanner(matcher, so);
  std::vector<LogEvent> events;
  scanner.ScanText(text, [&](LogEvent&& ev) {
    if (ev.line_class != LineClass::kNone) events.push_back(std::move(ev));
  });
  for (auto& ev : events) {
    const double ts = ev.ts;
    json j = wire::LogEventToWire({node, kind, file, std::move(ev)});
    if (kind != SourceKind::kSwitch) Stamp(&j, ts, b, o);
    post->Add(std::move(j), out);
  }
}

}  // namespace

std::vector<AgentPost> PostsFromBundle(gen::Bundle& b, const Matcher& matcher, const SimOptions& options) {
  std::vector<AgentPost> out;
  SimOptions o = options;
  if (o.id_prefix.empty()) o.id_prefix = b.c.job_id;
  ScanOptions so;
  so.ref_time = b.c.start;
  so.year = YearOf(b.c.start);
  so.fold_repeats = o.fold_repeats;
  std::map<std::string, std::vector<Series>> series_by_host;
  if (o.include_metrics)
    for (const auto& [name, body] : b.metrics)
      for (auto& s : ParseQueryRange(body, name, "metrics/" + name + ".json").series) series_by_host[s.host].push_back(s);
  for (int i = 0; i < b.Hosts(); ++i) {
    gen::NodeData& nd = b.Node(i);
    const std::string host = b.N(i).host;
    PostBuilder post(host, o);
    if (nd.has_folder) {
      if (nd.has_facts) post.Add(json{{"type", "facts"}, {"facts", nd.facts}}, &out);
      if (nd.has_kernel)
        ScanInto(host, SourceKind::kKernel, "nodes/" + host + "/kernel.log", nd.kernel.Render(), matcher, so, b, o, &post,
                 &out);
      if (nd.has_train)
        ScanInto(host, SourceKind::kTrain, "nodes/" + host + "/train.log", nd.train.Render(), matcher, so, b, o, &post,
                 &out);
      if (o.include_ccl)
        for (auto& [gpu, f] : nd.ccl) {
          const std::string path = gen::CclPath(b.N(i), gpu);
          const std::string file = path.substr(path.rfind('/') + 1);
          for (const auto& line : f.Sorted()) {
            json record = json::parse(line.text, nullptr, false);
            if (!record.is_object()) continue;
            json ev = {{"type", "ccl"}, {"file", file}, {"record", record}};
            Stamp(&ev, line.ts, b, o);
            post.Add(std::move(ev), &out);
          }
        }
    }
    for (const Series& s : series_by_host[host]) {
      json ev = {{"type", "metric"}, {"metric", s.metric}, {"t", s.t}, {"v", s.v}};
      if (!s.device.empty()) ev["device"] = s.device;
      post.Add(std::move(ev), &out);
    }
    post.Flush(&out);
  }
  for (auto& [name, f] : b.switches) {
    PostBuilder post(name, o);
    ScanInto(name, SourceKind::kSwitch, "switches/" + name + ".log", f.Render(), matcher, so, b, o, &post, &out);
    post.Flush(&out);
  }
  if (!b.probes.empty() && b.Hosts() > 0) {
    PostBuilder post(b.N(0).host + "-prober", o);
    for (const auto& p : b.probes) {
      json ev = p;
      ev["type"] = "probe";
      ev["node"] = b.N(0).host;
      post.Add(std::move(ev), &out);
    }
    post.Flush(&out);
  }
  return out;
}

AgentPost HeartbeatPost(const std::string& node, double at, const std::string& id) {
  json ev = {{"id", id}, {"type", "heartbeat"}, {"node", node}, {"at", at}, {"agent", {{"version", "sim"}}}};
  return {node, json{{"node", node}, {"agent", "sim-" + node}, {"events", json::array({ev})}}};
}

std::string TopologyText(const gen::Bundle& b) { return gen::TopologyJson(b.c).dump(); }
std::string RunningJobText(const gen::Bundle& b) { return gen::JobJson(b, true).dump(); }

}  // namespace aegis::controller::test
