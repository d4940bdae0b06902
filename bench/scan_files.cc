// Scans each file given with the shipped catalogue on one core, the way `aegis diagnose`
// does (Scanner over the whole text), and prints "FILE MiB/s" for the fastest of N passes.
// It uses only the API every revision since the first has (Catalog::Load, Matcher,
// Scanner::ScanText), so scripts/bench-scan-baseline.sh builds it against an earlier
// revision too and compares the two on the same bytes, interleaved.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "logs/scanner.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s PASSES FILE...\n", argv[0]);
    return 2;
  }
  const int passes = std::max(1, std::atoi(argv[1]));
  const aegis::Catalog catalog = aegis::Catalog::Load({});
  const aegis::Matcher matcher(catalog);
  aegis::ScanOptions options;
  options.year = 2026;
  aegis::Scanner scanner(matcher, options);
  for (int i = 2; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    double best = 1e30;
    size_t events = 0;
    for (int k = 0; k < passes; ++k) {
      const auto start = std::chrono::steady_clock::now();
      scanner.ScanText(text, [&](aegis::LogEvent&&) { ++events; });
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::printf("%s %.0f\n", argv[i], static_cast<double>(text.size()) / best / 1048576.0);
  }
  return 0;
}
