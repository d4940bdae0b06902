// Small file-system helpers of the agent: durable replacement of a small file (state,
// acknowledged queue position), directory creation and listing, reading small sysfs /
// procfs files, CRC-32C for queue records, FNV-1a
// for stable short ids. Pure functions besides the file system, thread-safe. The file
// helpers and the clock are env/env.h's on Env::Default(), for the parts of the agent not
// yet given an Env.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace aegis::agent {

// Replaces `path` with `content` so that a crash leaves either the old or the new file:
// written to path.tmp, fsync'ed when `sync`, renamed over `path` (and the directory
// fsync'ed when `sync`).
Status WriteFileAtomically(const std::string& path, std::string_view content, bool sync);
// mkdir -p with `mode` for the directories it creates.
Status MakeDirs(const std::string& path, unsigned mode = 0755);
// fsync of a directory, so that a file created or renamed in it survives a power loss.
Status SyncDir(const std::string& dir);

uint32_t Crc32c(const void* data, size_t n, uint32_t crc = 0);
uint64_t Fnv1a64(std::string_view s);
std::string Hex64(uint64_t v);  // 16 lower-case hex digits

// Lists the names in a directory (no "." entries), sorted; empty when it cannot be read.
std::vector<std::string> ListDir(const std::string& dir);
// Reads a small sysfs / procfs file whole (at most max_bytes); false when it cannot.
bool ReadSysFile(const std::string& path, std::string* out, size_t max_bytes = 65536);

}  // namespace aegis::agent
