// Checks a loaded catalogue against itself: every rule must match each of its samples
// (through the scanner and through RE2, as a real line would be), and every rule should
// have a sample. Used by `aegis rules check` and by the tests.
#pragma once
#include <string>
#include <vector>

#include "match/matcher.h"

namespace aegis {

// One message per problem; empty when every rule matches its samples.
std::vector<std::string> CheckRuleSamples(const Matcher& matcher, bool require_samples);

}  // namespace aegis
