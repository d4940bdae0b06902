#include "gen/bundle.h"

#include <fmt/format.h>

#include <ctime>
#include <set>

namespace aegis::gen {

using nlohmann::json;

std::string IsoTime(double t) {
  time_t s = static_cast<time_t>(t);
  struct tm tm;
  gmtime_r(&s, &tm);
  char buf[32];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

json TopologyJson(const Cluster& c) {
  json topo;
  topo["nodes"] = json::array();
  std::set<std::string> switch_names;
  for (const auto& n : c.nodes) {
    json node = {{"host", n.host}, {"pod", n.pod}, {"mgmt_ip", n.mgmt_ip}};
    node["gpus"] = json::array();
    for (size_t g = 0; g < n.gpu_pci.size(); ++g)
      node["gpus"].push_back({{"index", g}, {"pci", n.gpu_pci[g]}, {"uuid", fmt::format("GPU-{}-{}", n.host, g)}});
    node["nics"] = json::array();
    for (size_t k = 0; k < n.nic_ip.size(); ++k) {
      node["nics"].push_back({{"name", fmt::format("mlx5_{}", k)}, {"ip", n.nic_ip[k]}, {"rail", k},
                              {"switch", n.nic_switch[k]}, {"port", n.nic_port[k]}});
      switch_names.insert(n.nic_switch[k]);
    }
    topo["nodes"].push_back(node);
  }
  topo["switches"] = json::array();
  for (const auto& sw : switch_names) topo["switches"].push_back({{"name", sw}, {"tier", 1}, {"uplinks", {"agg-0"}}});
  return topo;
}

json JobJson(const Bundle& b, bool running) {
  json job = {{"id", b.c.job_id}, {"state", running ? std::string("running") : b.state},
              {"started_at", IsoTime(b.c.start)}};
  if (!running) job["ended_at"] = IsoTime(b.c.end);
  job["hosts"] = json::array();
  for (const auto& n : b.c.nodes) job["hosts"].push_back(n.host);
  return job;
}

json HealthyFacts(int gpus) {
  json f;
  f["gpu"] = {{"count", gpus}, {"driver_version", "570.86.15"}, {"persistence_mode", "Enabled"}, {"ecc_mode", "Enabled"}};
  f["cuda"] = {{"version", "12.8"}};
  f["nccl"] = {{"version", "2.21.5"}};
  f["nic"] = {{"count", gpus}};
  for (int k = 0; k < gpus; ++k)
    f["nic"][fmt::format("mlx5_{}", k)] = {{"state", "ACTIVE"}, {"mtu", 4096}, {"fw_version", "28.39.1002"}, {"link_layer", "Ethernet"}};
  f["env"] = {{"NCCL_IB_HCA", "mlx5"}, {"NCCL_SOCKET_IFNAME", "eth0"}, {"NCCL_IB_GID_INDEX", "3"}};
  f["pcie"] = {{"acs_enabled", false}};
  f["os"] = {{"kernel", "5.15.0-125-generic"}, {"memlock", "unlimited"}, {"dev_shm_mb", 65536}};
  f["container"] = {{"image", "nvcr.io/nvidia/pytorch:25.01-py3"}};
  return f;
}

std::string CclPath(const GenNode& n, int gpu) {
  return fmt::format("nodes/{}/ccl/{}-{}.jsonl", n.host, n.host, kPidBase + gpu);
}

}  // namespace aegis::gen
