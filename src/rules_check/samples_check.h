// Checks a loaded catalogue against itself: every rule must match each of its samples
// (through the scanner and through RE2, as a real line would be), and every rule should
// have a sample; every decode case of the Xid / SXid catalogues must decide each of its
// samples (the sample's line reaches an xid / sxid rule, names a number the case applies
// to, and no earlier case or pattern takes it), and should have a sample. Used by
// `aegis rules check` and by the tests. It sits above rules/, match/ and logs/ (it runs
// samples through the matcher and the scanner), in a folder of its own so that no folder
// it uses includes it back. Keeps no state between calls.
#pragma once
#include <string>
#include <vector>

#include "match/matcher.h"

namespace aegis {

// One message per problem; empty when every rule matches its samples and every decode
// case decides its own.
std::vector<std::string> CheckRuleSamples(const Matcher& matcher, bool require_samples);

// The decode cases' part of CheckRuleSamples.
std::vector<std::string> CheckDecodeSamples(const Matcher& matcher, bool require_samples);

}  // namespace aegis
