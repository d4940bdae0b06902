// The agent's kernel-log inputs: /dev/kmsg records and journalctl's JSON lines. Whatever
// the bytes, parsing never crashes and a parsed record turns into one line.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "agent/sources/journald/journald.h"
#include "agent/sources/kmsg/kmsg.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (std::string_view rec : aegis::agent::SplitKmsgRecords(text)) {
    aegis::agent::KmsgRecord r;
    if (aegis::agent::ParseKmsgRecord(rec, &r)) {
      const std::string line = aegis::agent::KmsgLine(r, 1.7e9, "node");
      if (line.find('\n') != std::string::npos) __builtin_trap();  // one record, one line
    }
  }
  aegis::agent::JournalEntry e;
  if (aegis::agent::ParseJournalJson(text, &e)) {
    const std::string line = aegis::agent::JournalLine(e, "node");
    if (line.find('\n') != std::string::npos) __builtin_trap();
  }
  return 0;
}
