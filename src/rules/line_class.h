// The role a log line plays in Algorithm 1 (docs/formats.md, "Line classification"), shared by the rule
// catalogue and the Xid / SXid catalogues. Names are spelt in catalog.cc only.
#pragma once
#include <string_view>

namespace aegis {

enum class LineClass { kNone, kCritical, kDist, kConfig, kUser, kHint };
std::string_view ToString(LineClass c);
// "critical" -> kCritical; throws std::invalid_argument on an unknown name.
LineClass LineClassFromString(std::string_view s);

}  // namespace aegis
