#include "agent/sources/node_sampler/rdma_counters.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "common/text.h"

namespace aegis::agent {

bool ParseCounterValue(std::string_view text, uint64_t* value) {
  text = Trim(text);
  if (text.empty() || text.size() > 20) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *value = v;
  return true;
}

std::vector<RdmaCounter> ReadRdmaCounters(const std::string& sys_root) {
  std::vector<RdmaCounter> out;
  const std::string base = sys_root + "/class/infiniband";
  std::string text;
  for (const auto& dev : ListDir(base)) {
    for (const auto& port : ListDir(base + "/" + dev + "/ports")) {
      auto p = ParseInt(port);
      if (!p || *p < 0 || *p > 65535) continue;
      for (int hw = 0; hw < 2; ++hw) {
        const std::string dir = base + "/" + dev + "/ports/" + port + (hw ? "/hw_counters" : "/counters");
        for (const auto& name : ListDir(dir)) {
          if (hw && name == "lifespan") continue;
          uint64_t v = 0;
          if (!ReadSysFile(dir + "/" + name, &text, 64) || !ParseCounterValue(text, &v)) continue;
          out.push_back({dev, static_cast<int>(*p), name, hw == 1, v});
        }
      }
    }
  }
  return out;
}

}  // namespace aegis::agent
