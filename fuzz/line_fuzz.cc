// Fuzzes the line prefix parser and the scanner (chunking, folding, confirmation) with
// arbitrary bytes: nothing may crash, every event must lie inside the input.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "logs/line_prefix.h"
#include "logs/scanner.h"
#include "rules/catalog.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const aegis::Catalog* catalog = new aegis::Catalog(aegis::Catalog::Load({}));
  static const aegis::Matcher* matcher = new aegis::Matcher(*catalog);
  std::string_view text(reinterpret_cast<const char*>(data), size);
  aegis::LinePrefix p = aegis::ParseLinePrefix(text, 2026);
  if (p.message_offset > text.size()) std::abort();
  aegis::ScanOptions o;
  o.chunk_bytes = 512;  // small chunks reach the boundary paths
  o.max_line_bytes = 256;
  aegis::Scanner scanner(*matcher, o);
  aegis::ScanStats st = scanner.ScanText(text, [&](aegis::LogEvent&& e) {
    if (e.first_line > e.line || e.line > e.last_line || e.line == 0) std::abort();
  });
  if (st.bytes != size) std::abort();
  return 0;
}
