#include "bundle/bundle_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/time.h"

namespace aegis {

using nlohmann::json;

int Topology::FindNode(const std::string& host) const {
  auto it = by_host.find(host);
  return it == by_host.end() ? -1 : it->second;
}

namespace {

std::string GetString(const json& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end()) return {};
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer()) return std::to_string(it->get<long long>());
  return {};
}

int GetInt(const json& o, const char* key, int fallback) {
  auto it = o.find(key);
  if (it != o.end() && it->is_number()) return it->get<int>();
  return fallback;
}

// A string or a list of strings (dual-ToR NICs list two switches and ports).
std::vector<std::string> GetStrings(const json& o, const char* key) {
  std::vector<std::string> out;
  auto it = o.find(key);
  if (it == o.end()) return out;
  if (it->is_string()) out.push_back(it->get<std::string>());
  if (it->is_array())
    for (const auto& v : *it)
      if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

Status ParseObject(std::string_view text, const char* what, json* out) {
  *out = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (out->is_discarded()) return Status::InvalidArgument(std::string(what) + " is not valid JSON");
  if (!out->is_object()) return Status::InvalidArgument(std::string(what) + " is not a JSON object");
  return Status::Ok();
}

void Problem(Reporter* reporter, const char* where, std::string what) {
  if (reporter) reporter->Report(where, Status::InvalidArgument(std::move(what)));
}

double GetTime(const json& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end()) return NAN;
  if (it->is_number()) return it->get<double>();
  if (it->is_string()) {
    std::string s = it->get<std::string>();
    if (auto t = ParseIsoTime(s)) return *t;
  }
  return NAN;
}

}  // namespace

Status ParseTopology(std::string_view text, Topology* out, Reporter* reporter) {
  json j;
  if (Status s = ParseObject(text, "topology.json", &j); !s.ok()) return s;
  Topology& t = *out;
  t = Topology();
  auto nodes = j.find("nodes");
  if (nodes == j.end() || !nodes->is_array()) return Status::InvalidArgument("topology.json has no \"nodes\" array");
  for (size_t i = 0; i < nodes->size(); ++i) {
    const json& n = (*nodes)[i];
    if (!n.is_object() || GetString(n, "host").empty()) {
      Problem(reporter, "topology.json", "nodes[" + std::to_string(i) + "] has no host");
      continue;
    }
    NodeInfo node;
    node.host = GetString(n, "host");
    node.pod = GetString(n, "pod");
    node.mgmt_ip = GetString(n, "mgmt_ip");
    if (auto g = n.find("gpus"); g != n.end() && g->is_array()) {
      int k = 0;
      for (const auto& gj : *g) {
        if (!gj.is_object()) continue;
        GpuInfo gpu;
        gpu.index = GetInt(gj, "index", k);
        gpu.pci = GetString(gj, "pci");
        gpu.uuid = GetString(gj, "uuid");
        node.gpus.push_back(gpu);
        ++k;
      }
    }
    if (auto ns = n.find("nics"); ns != n.end() && ns->is_array()) {
      for (const auto& nj : *ns) {
        if (!nj.is_object()) continue;
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
  if (auto sw = j.find("switches"); sw != j.end() && sw->is_array()) {
    for (const auto& s : *sw) {
      if (!s.is_object()) continue;
      SwitchInfo info;
      info.name = GetString(s, "name");
      info.tier = GetInt(s, "tier", 0);
      info.pod = GetString(s, "pod");
      info.uplinks = GetStrings(s, "uplinks");
      t.switches.push_back(info);
    }
  }
  return Status::Ok();
}

Status ParseJob(std::string_view text, Job* out, Reporter* reporter) {
  json j;
  if (Status s = ParseObject(text, "job.json", &j); !s.ok()) return s;
  Job& job = *out;
  job = Job();
  job.id = GetString(j, "id");
  if (std::string s = GetString(j, "state"); !s.empty()) {
    if (auto state = ParseJobState(s)) job.state = *state;
    else Problem(reporter, "job.json", "unknown state '" + s + "', taken as failed");
  }
  job.started_at = GetTime(j, "started_at");
  job.ended_at = GetTime(j, "ended_at");
  job.hosts = GetStrings(j, "hosts");
  if (auto r = j.find("ranks"); r != j.end() && r->is_array()) {
    for (const auto& rj : *r) {
      if (!rj.is_object() || !rj.contains("rank")) continue;
      RankInfo info;
      info.rank = GetInt(rj, "rank", -1);
      info.host = GetString(rj, "host");
      info.gpu = GetInt(rj, "gpu", -1);
      if (info.rank >= 0) job.ranks.push_back(info);
    }
  }
  if (auto it = j.find("iteration_seconds"); it != j.end() && it->is_array())
    for (const auto& v : *it)
      if (v.is_number()) job.iteration_seconds.push_back(v.get<double>());
  if (job.hosts.empty()) Problem(reporter, "job.json", "no hosts listed");
  return Status::Ok();
}

namespace {
void Flatten(const json& j, const std::string& prefix, Facts* out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      Flatten(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
    return;
  }
  if (prefix.empty()) return;
  if (j.is_string()) (*out)[prefix] = j.get<std::string>();
  else if (j.is_boolean()) (*out)[prefix] = j.get<bool>() ? "true" : "false";
  else if (j.is_number_integer()) (*out)[prefix] = std::to_string(j.get<long long>());
  else if (j.is_number()) {
    std::ostringstream o;
    o << j.get<double>();
    (*out)[prefix] = o.str();
  } else if (j.is_null()) (*out)[prefix] = "null";
  else (*out)[prefix] = j.dump();
}
}  // namespace

Status ParseFacts(std::string_view text, Facts* out) {
  json j;
  if (Status s = ParseObject(text, "facts.json", &j); !s.ok()) return s;
  out->clear();
  Flatten(j, "", out);
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
