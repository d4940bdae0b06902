#include "match/database_cache.h"

#include <fcntl.h>
#include <hs/hs.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "common/fixed_int.h"

namespace aegis {

namespace {

// FNV-1a: stable across processes and builds (std::hash promises neither).
void Mix(uint64_t* h, std::string_view bytes) {
  for (unsigned char c : bytes) {
    *h ^= c;
    *h *= 1099511628211ull;
  }
  *h ^= 0xff;  // field separator, so that ("ab","c") and ("a","bc") differ
  *h *= 1099511628211ull;
}

std::string PathOf(const std::string& dir, const std::string& key) { return dir + "/rules-" + key + ".hsdb"; }

// File layout: magic, the extra blob's length (8 bytes, little-endian), the blob, then
// the serialized database.
constexpr std::string_view kMagic = "AEGISDB2";
constexpr size_t kHeader = kMagic.size() + 8;

// mkdir -p for the cache's own directory (two levels at most below an existing one).
bool MakeDirs(const std::string& dir) {
  if (mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST) return true;
  const size_t slash = dir.find_last_of('/');
  if (slash == std::string::npos || slash == 0) return false;
  if (!MakeDirs(dir.substr(0, slash))) return false;
  return mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST;
}

}  // namespace

std::string DatabaseKey(const std::vector<std::string>& parts) {
  uint64_t h = 14695981039346656037ull;
  Mix(&h, hs_version());
  for (const auto& part : parts) Mix(&h, part);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

std::string DatabaseCacheDir() {
  if (const char* d = std::getenv("AEGIS_CACHE_DIR"); d && *d) return std::strcmp(d, "off") == 0 ? "" : d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/') return std::string(x) + "/aegis";
  if (const char* home = std::getenv("HOME"); home && *home == '/') return std::string(home) + "/.cache/aegis";
  return "";
}

CachedDatabase LoadCachedDatabase(const std::string& key) {
  CachedDatabase out;
  const std::string dir = DatabaseCacheDir();
  if (dir.empty()) return out;
  const int fd = open(PathOf(dir, key).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  std::string bytes;
  struct stat st {};
  // A compiled rule set is a few MB; anything far larger is not one of ours.
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size < (256 << 20)) {
    bytes.resize(static_cast<size_t>(st.st_size));
    size_t got = 0;
    while (got < bytes.size()) {
      const ssize_t n = read(fd, bytes.data() + got, bytes.size() - got);
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    bytes.resize(got);
  }
  close(fd);
  if (bytes.size() < kHeader || std::string_view(bytes).substr(0, kMagic.size()) != kMagic) return out;
  const uint64_t extra = GetU64(bytes.data() + kMagic.size());
  if (extra > bytes.size() - kHeader) return out;
  const size_t db_at = kHeader + static_cast<size_t>(extra);
  if (hs_deserialize_database(bytes.data() + db_at, bytes.size() - db_at, &out.db) != HS_SUCCESS) {
    out.db = nullptr;
    return out;
  }
  out.extra = bytes.substr(kHeader, static_cast<size_t>(extra));
  return out;
}

void StoreCachedDatabase(const std::string& key, const hs_database* db, std::string_view extra) {
  const std::string dir = DatabaseCacheDir();
  if (dir.empty() || !MakeDirs(dir)) return;
  char* serialized = nullptr;
  size_t serialized_size = 0;
  if (hs_serialize_database(db, &serialized, &serialized_size) != HS_SUCCESS) return;
  std::string file(kMagic);
  AppendU64(&file, extra.size());
  file += extra;
  file.append(serialized, serialized_size);
  std::free(serialized);
  const char* bytes = file.data();
  const size_t size = file.size();
  const std::string path = PathOf(dir, key);
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  bool ok = false;
  if (const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600); fd >= 0) {
    size_t put = 0;
    while (put < size) {
      const ssize_t n = write(fd, bytes + put, size - put);
      if (n <= 0) break;
      put += static_cast<size_t>(n);
    }
    ok = put == size;
    ok = close(fd) == 0 && ok;
  }
  // Renamed into place: another process never reads a half-written file.
  if (!ok || rename(tmp.c_str(), path.c_str()) != 0) unlink(tmp.c_str());
}

}  // namespace aegis
