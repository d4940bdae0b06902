// Writes the pattern of every shipped log rule, one per line, for the benchmark's
// ripgrep baseline (`rg -c -f FILE`): the same regular expressions, counted by a
// general-purpose tool, beside what `aegis diagnose` does with them. Named groups become
// plain groups (ripgrep joins the lines into one expression, where names must be unique).
#include <cstdio>
#include <string>

#include "rules/catalog.h"

int main() {
  const aegis::Catalog catalog = aegis::Catalog::Load({});
  for (const auto& r : catalog.rules()) {
    std::string p;
    for (size_t i = 0; i < r.pattern.size(); ++i) {
      if (r.pattern.compare(i, 4, "(?P<") == 0) {
        const size_t close = r.pattern.find('>', i);
        if (close != std::string::npos) {
          p += '(';
          i = close;
          continue;
        }
      }
      p += r.pattern[i];
    }
    std::printf("%s\n", p.c_str());
  }
  return 0;
}
