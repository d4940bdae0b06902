// Line prefix parsing: separates what a logger, a launcher or syslog put in front of a
// log message (timestamps, host/tag, dmesg uptime, torchrun/srun/mpirun rank tags) from
// the message itself. Accepts every kernel-log and launcher form of docs/formats.md, mixed
// in one file, in any nesting order. Never fails: an unknown prefix is left in the message.
// Pure function, thread-safe.
#pragma once
#include <cmath>
#include <cstdint>
#include <string_view>

#include "common/time.h"

namespace aegis {

struct LinePrefix {
  size_t message_offset = 0;  // the message is line.substr(message_offset)
  double ts = NAN;            // absolute time (epoch seconds) when the line carries one
  bool zoned = false;         // ts came with a time zone (else it is local time, read as UTC)
  bool yearless = false;      // ts came without a year (syslog, glog): `year` completed it
  double uptime = NAN;        // kernel uptime "[ 8421.113902]" when present
  int rank = -1;              // launcher rank tag ("[rank3]:", "[default3]:", "3: ", "[1,3]<stdout>:")
  int nccl_device = -1;       // CUDA device of an NCCL line "host:pid:tid [dev] NCCL ..."
  bool continuation = false;  // the line continues the previous one (starts with blanks)
  // Where the times were read: [begin, end) of the line, the time as written (an ISO,
  // syslog or ctime time; the uptime's number). Empty when there was none, or when the
  // time came from the message (glog's).
  enum class TimeForm : uint8_t { kNone, kIso, kSyslog, kCtime };
  TimeForm ts_form = TimeForm::kNone;
  uint32_t ts_begin = 0, ts_end = 0;
  uint32_t uptime_begin = 0, uptime_end = 0;
  IsoTimeParts iso;  // kIso: the time taken apart (a repeat with another clock reads only that)
};

// `year` completes timestamps that carry none (syslog "Nov 30 10:11:12", glog "E1130").
// `host_labels`: the line is the job's output, where pdsh (DeepSpeed's multi-node
// launcher) puts "host: " before everything; elsewhere such a label is taken only before
// another prefix (the kernel's "nvidia-nvswitch1: SXid ..." has the same shape).
LinePrefix ParseLinePrefix(std::string_view line, int year, bool host_labels = false);
// ParseLinePrefix's ts, zoned and yearless (and uptime, when the line has no ts), read no
// further than the time: for lines searched only for a time to inherit. The other fields
// are not filled in.
LinePrefix ParseLineTime(std::string_view line, int year);

// What ParseLinePrefix could find in a line, told from a glance at its bytes: a wall
// time needs a clock "HH:MM:SS" somewhere in it, an uptime a "[ 123.456]". False means
// the line certainly has none (cheap; lines searched for an inherited time are mostly
// such). The uptime is looked for only when `uptime_too`.
struct TimeSigns {
  bool clock = false;
  bool uptime = false;
};
TimeSigns LookForTimeSigns(std::string_view line, bool uptime_too = true);

// The prefix of a line that repeats `like_line`, whose prefix was `like`: the same bytes
// but for digits of the times it was stamped with (the same message a moment later).
// Reads those times again into `like` and returns true, for a fraction of
// ParseLinePrefix's work; false (and `like` unusable) when `line` is not such a repeat.
bool ReparseRepeatedPrefix(std::string_view line, std::string_view like_line, int year, LinePrefix* like);

}  // namespace aegis
