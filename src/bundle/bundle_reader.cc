#include "bundle/bundle_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <simdjson.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "common/text.h"
#include "common/time.h"

namespace aegis {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

int Topology::FindNode(const std::string& host) const {
  auto it = by_host.find(host);
  return it == by_host.end() ? -1 : it->second;
}

namespace {

// simdjson's DOM (topology.json of a large cluster is megabytes, and a bundle holds a
// facts.json per host): any shape of input leaves the parser usable, a wrong type is a
// missing value.
std::string GetString(const object& o, const char* key) {
  element v;
  if (o[key].get(v)) return {};
  std::string_view s;
  if (!v.get_string().get(s)) return std::string(s);
  int64_t i = 0;
  if (!v.get_int64().get(i)) return std::to_string(i);
  uint64_t u = 0;
  if (!v.get_uint64().get(u)) return std::to_string(u);
  return {};
}

int GetInt(const object& o, const char* key, int fallback) {
  element v;
  double d = 0;
  if (o[key].get(v) || !v.is_number() || v.get_double().get(d) || !std::isfinite(d)) return fallback;
  if (d <= std::numeric_limits<int>::min() || d >= std::numeric_limits<int>::max()) return fallback;
  return static_cast<int>(d);
}

// A string or a list of strings (dual-ToR NICs list two switches and ports).
std::vector<std::string> GetStrings(const object& o, const char* key) {
  std::vector<std::string> out;
  element v;
  if (o[key].get(v)) return out;
  std::string_view s;
  if (!v.get_string().get(s)) out.emplace_back(s);
  array items;
  if (!v.get_array().get(items))
    for (element item : items)
      if (!item.get_string().get(s)) out.emplace_back(s);
  return out;
}

// One parser per thread: it keeps its buffers between documents. What it returns lives
// until the thread's next parse (the readers copy out what they keep).
Status ParseObject(std::string_view text, const char* what, element* root) {
  thread_local simdjson::dom::parser parser;
  if (parser.parse(text.data(), text.size()).get(*root))
    return Status::InvalidArgument(std::string(what) + " is not valid JSON");
  if (!root->is_object()) return Status::InvalidArgument(std::string(what) + " is not a JSON object");
  return Status::Ok();
}

void Problem(Reporter* reporter, const char* where, std::string what) {
  if (reporter) reporter->Report(where, Status::InvalidArgument(std::move(what)));
}

// A time field of job.json: epoch seconds or an RFC 3339 string; absent or null is no
// time. Anything else is reported (a time window built on a misread time would be worse
// than none) and read as no time.
double GetTime(const object& o, const char* key, Reporter* reporter) {
  element v;
  if (o[key].get(v) || v.is_null()) return NAN;
  double d = 0;
  if (v.is_number() && !v.get_double().get(d) && std::isfinite(d)) return d;
  std::string_view s;
  if (!v.get_string().get(s)) {
    if (auto t = ParseIsoTime(std::string(s))) return *t;
    Problem(reporter, "job.json",
            fmt::format("{} \"{}\" is not an RFC 3339 time (2026-11-30T10:00:00Z) or epoch seconds: read as no time",
                        key, SanitizeForOutput(s, 64)));
    return NAN;
  }
  Problem(reporter, "job.json", fmt::format("{} is not a time (an RFC 3339 string or epoch seconds): read as no time", key));
  return NAN;
}

}  // namespace

Status ParseTopology(std::string_view text, Topology* out, Reporter* reporter) {
  element root;
  if (Status s = ParseObject(text, "topology.json", &root); !s.ok()) return s;
  const object j = root.get_object().value_unsafe();
  Topology& t = *out;
  t = Topology();
  array nodes;
  if (j["nodes"].get_array().get(nodes)) return Status::InvalidArgument("topology.json has no \"nodes\" array");
  size_t i = 0;
  for (element ne : nodes) {
    const size_t index = i++;
    object n;
    if (ne.get_object().get(n) || GetString(n, "host").empty()) {
      Problem(reporter, "topology.json", "nodes[" + std::to_string(index) + "] has no host");
      continue;
    }
    NodeInfo node;
    node.host = GetString(n, "host");
    node.pod = GetString(n, "pod");
    node.mgmt_ip = GetString(n, "mgmt_ip");
    array gpus;
    if (!n["gpus"].get_array().get(gpus)) {
      int k = 0;
      for (element ge : gpus) {
        object gj;
        if (ge.get_object().get(gj)) continue;
        GpuInfo gpu;
        gpu.index = GetInt(gj, "index", k);
        gpu.pci = GetString(gj, "pci");
        gpu.uuid = GetString(gj, "uuid");
        node.gpus.push_back(gpu);
        ++k;
      }
    }
    array nics;
    if (!n["nics"].get_array().get(nics)) {
      for (element ne2 : nics) {
        object nj;
        if (ne2.get_object().get(nj)) continue;
        NicInfo nic;
        nic.name = GetString(nj, "name");
        nic.ip = GetString(nj, "ip");
        nic.rail = GetInt(nj, "rail", -1);
        nic.switches = GetStrings(nj, "switch");
        nic.ports = GetStrings(nj, "port");
        node.nics.push_back(nic);
      }
    }
    if (t.by_host.count(node.host)) {
      Problem(reporter, "topology.json", "host " + node.host + " listed twice");
      continue;
    }
    t.by_host[node.host] = static_cast<int>(t.nodes.size());
    t.nodes.push_back(std::move(node));
  }
  array switches;
  if (!j["switches"].get_array().get(switches)) {
    for (element se : switches) {
      object sj;
      if (se.get_object().get(sj)) continue;
      SwitchInfo info;
      info.name = GetString(sj, "name");
      info.tier = GetInt(sj, "tier", 0);
      info.pod = GetString(sj, "pod");
      info.uplinks = GetStrings(sj, "uplinks");
      t.switches.push_back(info);
    }
  }
  return Status::Ok();
}

Status ParseJob(std::string_view text, Job* out, Reporter* reporter) {
  element root;
  if (Status s = ParseObject(text, "job.json", &root); !s.ok()) return s;
  const object j = root.get_object().value_unsafe();
  Job& job = *out;
  job = Job();
  job.id = GetString(j, "id");
  if (std::string s = GetString(j, "state"); !s.empty()) {
    if (auto state = ParseJobState(s)) job.state = *state;
    else Problem(reporter, "job.json", "unknown state '" + s + "', taken as failed");
  }
  job.started_at = GetTime(j, "started_at", reporter);
  job.ended_at = GetTime(j, "ended_at", reporter);
  job.hosts = GetStrings(j, "hosts");
  array ranks;
  if (!j["ranks"].get_array().get(ranks)) {
    for (element re : ranks) {
      object rj;
      element rank;
      if (re.get_object().get(rj) || rj["rank"].get(rank)) continue;
      RankInfo info;
      info.rank = GetInt(rj, "rank", -1);
      info.host = GetString(rj, "host");
      info.gpu = GetInt(rj, "gpu", -1);
      if (info.rank >= 0) job.ranks.push_back(info);
    }
  }
  array iterations;
  if (!j["iteration_seconds"].get_array().get(iterations))
    for (element v : iterations) {
      double d = 0;
      if (v.is_number() && !v.get_double().get(d)) job.iteration_seconds.push_back(d);
    }
  object not_before;
  if (!j["not_before"].get_object().get(not_before))
    for (auto [host, value] : not_before) {
      double t = NAN;
      std::string_view s;
      double d = 0;
      if (value.is_number()) {
        if (!value.get_double().get(d)) t = d;
      } else if (!value.get_string().get(s))
        if (auto parsed = ParseIsoTime(std::string(s))) t = *parsed;
      if (std::isnan(t)) Problem(reporter, "job.json", "not_before of " + std::string(host) + " is not a time: ignored");
      else job.not_before[std::string(host)] = t;
    }
  if (job.hosts.empty()) Problem(reporter, "job.json", "no hosts listed");
  return Status::Ok();
}

namespace {
// Nested keys joined with '.'; scalars as text; a list kept as its JSON text.
void Flatten(element j, const std::string& prefix, Facts* out) {
  object o;
  if (!j.get_object().get(o)) {
    for (auto [key, value] : o) Flatten(value, prefix.empty() ? std::string(key) : prefix + "." + std::string(key), out);
    return;
  }
  if (prefix.empty()) return;
  std::string_view s;
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  if (!j.get_string().get(s)) (*out)[prefix] = std::string(s);
  else if (!j.get_bool().get(b)) (*out)[prefix] = b ? "true" : "false";
  else if (!j.get_int64().get(i)) (*out)[prefix] = std::to_string(i);
  else if (!j.get_uint64().get(u)) (*out)[prefix] = std::to_string(u);
  else if (!j.get_double().get(d)) {
    std::ostringstream text;
    text << d;
    (*out)[prefix] = text.str();
  } else if (j.is_null()) (*out)[prefix] = "null";
  else (*out)[prefix] = simdjson::minify(j);
}
}  // namespace

Status ParseFacts(std::string_view text, Facts* out) {
  element root;
  if (Status s = ParseObject(text, "facts.json", &root); !s.ok()) return s;
  out->clear();
  Flatten(root, "", out);
  return Status::Ok();
}

Status ReadSmallFile(const std::string& path, std::string* out, size_t max_bytes) {
  out->clear();
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    std::string msg = path + ": cannot open: " + std::strerror(err);
    return err == ENOENT || err == ENOTDIR ? Status::NotFound(msg) : Status::IOError(msg);
  }
  char buf[65536];
  Status result;
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      result = Status::IOError(path + ": read error: " + std::strerror(errno));
      break;
    }
    if (n == 0) break;
    out->append(buf, static_cast<size_t>(n));
    if (out->size() > max_bytes) {
      result = Status::ResourceExhausted(path + ": larger than " + std::to_string(max_bytes >> 20) + " MiB");
      break;
    }
  }
  ::close(fd);
  return result;
}

}  // namespace aegis
