// Writes the scanning benchmark's two logs (bench/noise_logs.h) to a directory, so that
// another build (scripts/bench-scan-baseline.sh: an earlier revision) scans the same bytes.
#include <cstdio>
#include <string>

#include "noise_logs.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  for (bool kernel : {false, true}) {
    const std::string text = aegis::bench::NoiseLog(kernel, 64u << 20);
    const std::string path = std::string(argv[1]) + (kernel ? "/kernel.log" : "/train.log");
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(text.data(), 1, text.size(), f) != text.size() || std::fclose(f) != 0) {
      std::perror(path.c_str());
      return 1;
    }
  }
  return 0;
}
