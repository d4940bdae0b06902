#include "agent/sources/facts/facts.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <map>

#include "agent/sources/node_sampler/rdma_counters.h"
#include "common/text.h"

namespace aegis::agent {

namespace {

bool LooksLikeVersion(std::string_view s) {
  if (s.empty() || s.front() < '0' || s.front() > '9' || s.find('.') == std::string_view::npos) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || c == '.')) return false;
  return true;
}

std::string FirstLine(std::string_view s) {
  const size_t nl = s.find('\n');
  return std::string(Trim(nl == std::string_view::npos ? s : s.substr(0, nl)));
}

struct Process {
  int pid = 0;
  std::map<std::string, std::string> nccl_env;
};

// The training process: the one with the most NCCL_ variables, lowest pid on a tie.
std::optional<Process> FindTrainingProcess(const std::string& proc) {
  std::optional<Process> best;
  std::string text;
  for (const auto& name : ListDir(proc)) {
    auto pid = ParseInt(name);
    if (!pid || *pid <= 0) continue;
    if (!ReadSysFile(proc + "/" + name + "/environ", &text, 1u << 20)) continue;
    Process p;
    p.pid = static_cast<int>(*pid);
    for (std::string_view var : Split(text, '\0')) {
      if (!StartsWith(var, "NCCL_")) continue;
      const size_t eq = var.find('=');
      if (eq == std::string_view::npos) continue;
      p.nccl_env[std::string(var.substr(0, eq))] = std::string(var.substr(eq + 1));
    }
    if (p.nccl_env.empty()) continue;
    if (!best || p.nccl_env.size() > best->nccl_env.size() ||
        (p.nccl_env.size() == best->nccl_env.size() && p.pid < best->pid))
      best = std::move(p);
  }
  return best;
}

uint32_t U32At(std::string_view c, size_t off) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(c[off + static_cast<size_t>(i)]);
  return v;
}

void CollectNics(const FactsRoots& roots, nlohmann::json* f) {
  const std::string ib = roots.sys + "/class/infiniband";
  std::string text;
  int count = 0;
  for (const auto& dev : ListDir(ib)) {
    nlohmann::json nic = nlohmann::json::object();
    const std::string base = ib + "/" + dev;
    if (ReadSysFile(base + "/fw_ver", &text, 256)) nic["fw_version"] = FirstLine(text);
    auto ports = ListDir(base + "/ports");
    if (!ports.empty()) {
      const std::string port = base + "/ports/" + ports.front();
      if (ReadSysFile(port + "/state", &text, 256)) {
        std::string state = FirstLine(text);  // "4: ACTIVE"
        if (size_t colon = state.find(": "); colon != std::string::npos) state = state.substr(colon + 2);
        nic["state"] = state;
      }
      if (ReadSysFile(port + "/link_layer", &text, 256)) nic["link_layer"] = FirstLine(text);
    }
    for (const auto& netdev : ListDir(base + "/device/net")) {
      if (ReadSysFile(base + "/device/net/" + netdev + "/mtu", &text, 64))
        if (auto mtu = ParseInt(FirstLine(text))) nic["mtu"] = *mtu;
      break;
    }
    (*f)["nic"][dev] = std::move(nic);
    ++count;
  }
  if (count == 0) {
    // No RDMA device: the physical interfaces (those with a device behind them).
    const std::string net = roots.sys + "/class/net";
    for (const auto& dev : ListDir(net)) {
      if (ListDir(net + "/" + dev + "/device").empty()) continue;
      nlohmann::json nic = nlohmann::json::object();
      if (ReadSysFile(net + "/" + dev + "/operstate", &text, 64)) nic["state"] = FirstLine(text);
      if (ReadSysFile(net + "/" + dev + "/mtu", &text, 64))
        if (auto mtu = ParseInt(FirstLine(text))) nic["mtu"] = *mtu;
      nic["link_layer"] = "Ethernet";
      (*f)["nic"][dev] = std::move(nic);
      ++count;
    }
  }
  if (count > 0) (*f)["nic"]["count"] = count;
}

void CollectAcs(const FactsRoots& roots, nlohmann::json* f) {
  const std::string pci = roots.sys + "/bus/pci/devices";
  std::string config;
  std::optional<bool> any;
  for (const auto& dev : ListDir(pci)) {
    if (!ReadSysFile(pci + "/" + dev + "/config", &config, 4096)) continue;
    if (auto acs = AcsEnabledFromConfig(config)) any = any.value_or(false) || *acs;
  }
  if (any) (*f)["pcie"]["acs_enabled"] = *any;
}

}  // namespace

std::string DriverVersionFromProc(std::string_view text) {
  const std::string line = FirstLine(text);
  std::string_view l = line;
  if (size_t p = l.find("Kernel Module"); p != std::string_view::npos) l = l.substr(p);
  for (std::string_view tok : Split(l, ' '))
    if (LooksLikeVersion(tok)) return std::string(tok);
  return {};
}

std::string MemlockFromLimits(std::string_view text) {
  for (std::string_view line : Split(text, '\n')) {
    if (!StartsWith(line, "Max locked memory")) continue;
    std::string_view rest = Trim(line.substr(17));
    const size_t sp = rest.find(' ');
    std::string_view soft = rest.substr(0, sp);
    if (soft == "unlimited") return "unlimited";
    if (auto bytes = ParseInt(soft); bytes && *bytes >= 0) return std::to_string(*bytes / 1024);
    return {};
  }
  return {};
}

std::optional<bool> AcsEnabledFromConfig(std::string_view config) {
  if (config.size() < 0x104) return std::nullopt;  // the extended space needs root
  if (static_cast<unsigned char>(config[0x0b]) != 0x06 || static_cast<unsigned char>(config[0x0a]) != 0x04)
    return std::nullopt;  // not a PCI-to-PCI bridge (root port or switch port)
  size_t off = 0x100;
  for (int hops = 0; hops < 256 && off >= 0x100 && off + 8 <= config.size(); ++hops) {
    const uint32_t header = U32At(config, off);
    if (header == 0 || header == 0xffffffffu) break;
    if ((header & 0xffff) == 0x000d) {  // ACS extended capability
      const unsigned ctrl = static_cast<unsigned char>(config[off + 6]) | (static_cast<unsigned char>(config[off + 7]) << 8);
      return (ctrl & 0x0d) != 0;  // Source Validation, P2P Request Redirect, P2P Completion Redirect
    }
    const size_t next = (header >> 20) & 0xffc;
    if (next <= off) break;  // the list only goes forward; anything else is a loop
    off = next;
  }
  return std::nullopt;
}

std::string NcclVersionFromMaps(std::string_view maps) {
  for (std::string_view line : Split(maps, '\n')) {
    const size_t p = line.rfind("/libnccl.so.");
    if (p == std::string_view::npos) continue;
    std::string_view v = Trim(line.substr(p + 12));
    if (LooksLikeVersion(v) && std::count(v.begin(), v.end(), '.') >= 2) return std::string(v);
  }
  return {};
}

nlohmann::json CollectFacts(const FactsRoots& roots, GpuReader* gpu) {
  nlohmann::json f = nlohmann::json::object();
  std::string text;

  GpuFacts g;
  if (gpu) g = gpu->Facts();
  if (g.driver_version.empty() && ReadSysFile(roots.proc + "/driver/nvidia/version", &text, 4096))
    g.driver_version = DriverVersionFromProc(text);
  if (g.count < 0) {
    auto gpus = ListDir(roots.proc + "/driver/nvidia/gpus");
    if (!gpus.empty()) g.count = static_cast<int>(gpus.size());
  }
  if (g.count >= 0) f["gpu"]["count"] = g.count;
  if (!g.driver_version.empty()) f["gpu"]["driver_version"] = g.driver_version;
  if (g.persistence_mode) f["gpu"]["persistence_mode"] = *g.persistence_mode ? "Enabled" : "Disabled";
  if (g.ecc_mode) f["gpu"]["ecc_mode"] = *g.ecc_mode ? "Enabled" : "Disabled";
  if (!g.cuda_version.empty()) f["cuda"]["version"] = g.cuda_version;

  std::string memlock;
  if (auto p = FindTrainingProcess(roots.proc)) {
    for (const auto& [k, v] : p->nccl_env) f["env"][k] = v;
    const std::string dir = roots.proc + "/" + std::to_string(p->pid);
    if (ReadSysFile(dir + "/maps", &text, 8u << 20))
      if (auto v = NcclVersionFromMaps(text); !v.empty()) f["nccl"]["version"] = v;
    if (ReadSysFile(dir + "/limits", &text, 8192)) memlock = MemlockFromLimits(text);
  }
  if (memlock.empty() && ReadSysFile(roots.proc + "/self/limits", &text, 8192)) memlock = MemlockFromLimits(text);

  CollectNics(roots, &f);
  CollectAcs(roots, &f);

  if (ReadSysFile(roots.proc + "/sys/kernel/osrelease", &text, 256) && !FirstLine(text).empty())
    f["os"]["kernel"] = FirstLine(text);
  if (!memlock.empty()) f["os"]["memlock"] = memlock;
  struct statvfs vfs {};
  if (::statvfs(roots.dev_shm.c_str(), &vfs) == 0)
    f["os"]["dev_shm_mb"] = static_cast<uint64_t>(vfs.f_blocks) * vfs.f_frsize / (1024 * 1024);
  return f;
}

}  // namespace aegis::agent
