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

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    out.push_back(std::move(name));
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

bool ReadSysFile(const std::string& path, std::string* out, size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  out->clear();
  char buf[4096];
  bool ok = true;
  while (out->size() < max_bytes) {
    const ssize_t n = ::read(fd, buf, std::min(sizeof buf, max_bytes - out->size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) ok = false;
    if (n <= 0) break;
    out->append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return ok;
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
