// Fuzzes the line prefix parser and the scanner (chunking, folding, confirmation, the
// repeats of a log storm) with arbitrary bytes: nothing may crash, every event must lie
// inside the input, a repeated line read from its times alone must read as a full parse
// does, and a line with a time must show the signs of one.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "logs/line_prefix.h"
#include "logs/scanner.h"
#include "rules/catalog.h"

namespace {

bool SameTime(double a, double b) { return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0; }

// The first two lines: the second read as a repeat of the first must agree with a full parse.
void CheckRepeat(std::string_view text) {
  const size_t nl = text.find('\n');
  if (nl == std::string_view::npos) return;
  const std::string_view first = text.substr(0, nl);
  std::string_view second = text.substr(nl + 1);
  second = second.substr(0, second.find('\n'));
  aegis::LinePrefix like = aegis::ParseLinePrefix(first, 2026);
  if (!aegis::ReparseRepeatedPrefix(second, first, 2026, &like)) return;
  const aegis::LinePrefix full = aegis::ParseLinePrefix(second, 2026);
  if (!SameTime(like.ts, full.ts) || !SameTime(like.uptime, full.uptime) || like.zoned != full.zoned ||
      like.yearless != full.yearless || like.rank != full.rank || like.nccl_device != full.nccl_device ||
      like.continuation != full.continuation || like.message_offset != full.message_offset)
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const aegis::Catalog* catalog = new aegis::Catalog(aegis::Catalog::Load({}));
  static const aegis::Matcher* matcher = new aegis::Matcher(*catalog);
  std::string_view text(reinterpret_cast<const char*>(data), size);
  aegis::LinePrefix p = aegis::ParseLinePrefix(text, 2026);
  if (p.message_offset > text.size()) std::abort();
  const aegis::TimeSigns signs = aegis::LookForTimeSigns(text);
  if ((!std::isnan(p.ts) && !signs.clock) || (!std::isnan(p.uptime) && !signs.uptime)) std::abort();
  const aegis::LinePrefix quick = aegis::ParseLineTime(text, 2026);
  if (!SameTime(quick.ts, p.ts) || (std::isnan(p.ts) && !SameTime(quick.uptime, p.uptime))) std::abort();
  CheckRepeat(text);
  for (bool fold : {false, true}) {
    aegis::ScanOptions o;
    o.chunk_bytes = 512;  // small chunks reach the boundary paths
    o.max_line_bytes = 256;
    o.fold_repeats = fold;
    aegis::Scanner scanner(*matcher, o);
    aegis::ScanStats st = scanner.ScanText(text, [&](aegis::LogEvent&& e) {
      if (e.first_line > e.line || e.line > e.last_line || e.line == 0) std::abort();
      if (e.count == 0 || e.LatestLine() < e.line || e.samples.size() >= e.count) std::abort();
    });
    if (st.bytes != size) std::abort();
  }
  return 0;
}
