// Literals that every match of a regular expression contains, so that a multi-pattern
// scanner can look for a few literals instead of running the expression over every byte.
// A cover is a set of lower-case strings such that any text the expression matches
// contains at least one of them (compared without case); it comes from RE2's FilteredRE2
// "atoms" and their AND/OR structure, reduced to a small set (an AND needs only one of
// its parts). Literals shorter than `min_length` are never used: short words ("port",
// "error") occur on many noise lines, and every candidate line costs a confirmation.
// No cover (an empty vector) when the expression has none made of long literals; the
// scanner then runs the expression itself, as before.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace aegis {

std::vector<std::string> LiteralCover(std::string_view pattern, size_t min_length);

}  // namespace aegis
