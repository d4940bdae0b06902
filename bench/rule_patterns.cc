// Writes the pattern of every shipped log rule, one per line, for the benchmark's
// ripgrep baseline (`rg -c -f FILE`): the same regular expressions, counted by a
// general-purpose tool, beside what `aegis diagnose` does with them.
#include <cstdio>

#include "rules/catalog.h"

int main() {
  const aegis::Catalog catalog = aegis::Catalog::Load({});
  for (const auto& r : catalog.rules()) std::printf("%s\n", r.pattern.c_str());
  return 0;
}
