// Compiled scanner databases kept on disk, so that a process does not compile a rule set
// it compiled before: compiling the ~140 log rules takes about a quarter of a second,
// loading them a millisecond (`aegis diagnose`, `classify` and every agent start pay it).
// A database is found by a key over the Vectorscan version and whatever decides the
// compile (the rules' patterns, the plan's version); beside it the file keeps a blob of the
// caller's (the matcher's plan: which expression stands for which rules), so that a hit
// costs neither the compile nor the planning. A file that does not load (truncated,
// written by another Vectorscan or for another CPU, corrupted: Vectorscan checks its
// checksum) is compiled over. Nothing here is needed for correctness: no directory, an
// unwritable one or AEGIS_CACHE_DIR=off only costs the compile.
// Directory: $AEGIS_CACHE_DIR, else $XDG_CACHE_HOME/aegis, else $HOME/.cache/aegis.
#pragma once
#include <string>
#include <string_view>
#include <vector>

struct hs_database;

namespace aegis {

// The cache key of one compile (hex), from everything that decides its result.
std::string DatabaseKey(const std::vector<std::string>& parts);

struct CachedDatabase {
  hs_database* db = nullptr;  // nullptr: absent, unreadable, or not loadable here
  std::string extra;          // the blob stored with it
};
CachedDatabase LoadCachedDatabase(const std::string& key);

// Writes `db` and `extra` under `key` (to a temporary file renamed into place); failures
// are ignored.
void StoreCachedDatabase(const std::string& key, const hs_database* db, std::string_view extra);

// The directory in use ("" when caching is off or no directory can be named).
std::string DatabaseCacheDir();

}  // namespace aegis
