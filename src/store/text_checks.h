// Input checks shared by both backends, so that they accept and refuse the same things:
// PostgreSQL's TEXT would refuse invalid UTF-8 and NUL bytes by itself while SQLite would
// store them, and a document that is not JSON would only fail later, in a reader.
// Each check returns InvalidArgument (ResourceExhausted for a size limit) naming the
// field. Pure functions, thread-safe.
#pragma once
#include <cstddef>
#include <string_view>

#include "common/status.h"

namespace aegis::store {

inline constexpr size_t kMaxNameBytes = 1024;          // ids, hosts, types, keys, names
inline constexpr size_t kMaxTextBytes = 64 * 1024;     // reasons, details
inline constexpr size_t kMaxDocumentBytes = 16 << 20;  // event bodies, verdicts, topology, job.json

// UTF-8 without NUL bytes.
bool IsStorableText(std::string_view s);
// Non-empty storable text of at most kMaxNameBytes.
Status CheckName(std::string_view field, std::string_view value);
// Storable text (possibly empty) of at most max_bytes.
Status CheckText(std::string_view field, std::string_view value, size_t max_bytes = kMaxTextBytes);
// One JSON text of at most kMaxDocumentBytes.
Status CheckJson(std::string_view field, std::string_view value);
// A finite time (allow_nan: NaN too, meaning unknown).
Status CheckTime(std::string_view field, double t, bool allow_nan = false);

// The read side: a stored value this build has no name for (a newer release's, a hand
// edit) is Corruption naming "table.column" and the value.
Status Unreadable(std::string_view table, std::string_view column, std::string_view value);

}  // namespace aegis::store
