#include "bundle/bundle_reader.h"

#include <fstream>
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

json ParseOrThrow(const std::string& text, const char* what) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw BundleError(std::string(what) + " is not valid JSON");
  if (!j.is_object()) throw BundleError(std::string(what) + " is not a JSON object");
  return j;
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

Topology ParseTopology(const std::string& text, std::vector<std::string>* problems) {
  json j = ParseOrThrow(text, "topology.json");
  Topology t;
  auto nodes = j.find("nodes");
  if (nodes == j.end() || !nodes->is_array()) throw BundleError("topology.json has no \"nodes\" array");
  for (size_t i = 0; i < nodes->size(); ++i) {
    const json& n = (*nodes)[i];
    if (!n.is_object() || GetString(n, "host").empty()) {
      problems->push_back("topology.json: nodes[" + std::to_string(i) + "] has no host");
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
      problems->push_back("topology.json: host " + node.host + " listed twice");
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
  return t;
}

Job ParseJob(const std::string& text, std::vector<std::string>* problems) {
  json j = ParseOrThrow(text, "job.json");
  Job job;
  job.id = GetString(j, "id");
  if (std::string s = GetString(j, "state"); !s.empty()) job.state = s;
  if (job.state != "failed" && job.state != "hung" && job.state != "slow") {
    problems->push_back("job.json: unknown state '" + job.state + "', taken as failed");
    job.state = "failed";
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
  if (job.hosts.empty()) problems->push_back("job.json: no hosts listed");
  return job;
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

Facts ParseFacts(const std::string& text, std::vector<std::string>* problems) {
  Facts f;
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    problems->push_back("not a valid JSON object");
    return f;
  }
  Flatten(j, "", &f);
  return f;
}

std::string ReadSmallFile(const std::string& path, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw BundleError(path + ": cannot open");
  std::string data;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    data.append(buf, static_cast<size_t>(in.gcount()));
    if (data.size() > max_bytes) throw BundleError(path + ": larger than " + std::to_string(max_bytes >> 20) + " MiB");
  }
  if (in.bad()) throw BundleError(path + ": read error");
  return data;
}

}  // namespace aegis
