// Log scanner: streams one log file (or any readable fd) in fixed-size chunks through the
// Matcher and emits a LogEvent for every line a rule confirms. Memory stays bounded by
// the chunk size whatever the file size; a line longer than max_line_bytes is cut (its
// head is still matched) and counted. Continued kernel messages (indented lines) and
// Python tracebacks are folded into the event of the line that matched. Never throws on
// file content. One Scanner per thread (it owns a Matcher scratch).
#pragma once
#include <sys/types.h>

#include <functional>
#include <string>

#include "logs/event.h"
#include "match/matcher.h"

namespace aegis {

struct ScanOptions {
  int year = 1970;                       // for timestamps without a year
  size_t chunk_bytes = 4u << 20;         // read size; also the look-back window for folding
  size_t max_line_bytes = 1u << 20;      // longer lines are cut to this many bytes
};

struct ScanStats {
  uint64_t bytes = 0;
  uint64_t lines = 0;
  uint64_t cut_lines = 0;  // lines longer than max_line_bytes
  std::string error;       // I/O error, empty when the whole input was read
};

class Scanner {
 public:
  Scanner(const Matcher& matcher, ScanOptions options);
  using Sink = std::function<void(LogEvent&&)>;
  // Scans the file at `path`; events reach `sink` in line order.
  ScanStats ScanFile(const std::string& path, const Sink& sink);
  ScanStats ScanFd(int fd, const Sink& sink);
  // Scans text held in memory (tests, fuzzing).
  ScanStats ScanText(std::string_view text, const Sink& sink);

 private:
  struct State;
  // Reads up to n bytes into the buffer; 0 at the end, -1 with errno on an error.
  using Reader = std::function<ssize_t(char*, size_t)>;
  ScanStats ScanSource(const Reader& read, const Sink& sink);
  // Emits the events of `buf` (whole lines); returns the number of '\n' in it.
  uint64_t ProcessBuffer(std::string_view buf, uint64_t first_line_no, State& st, const Sink& sink);

  const Matcher& matcher_;
  ScanOptions options_;
  Matcher::Scratch scratch_;
  std::vector<CandidateLine> candidates_;
  std::string buffer_;  // read buffer, reused across files
};

}  // namespace aegis
