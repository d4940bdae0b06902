// Line prefix parsing: separates what a logger, a launcher or syslog put in front of a
// log message (timestamps, host/tag, dmesg uptime, torchrun/srun/mpirun rank tags) from
// the message itself. Accepts every kernel-log and launcher form of docs/formats.md, mixed
// in one file, in any nesting order. Never fails: an unknown prefix is left in the message.
// Pure function, thread-safe.
#pragma once
#include <cmath>
#include <string_view>

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
};

// `year` completes timestamps that carry none (syslog "Nov 30 10:11:12", glog "E1130").
// `host_labels`: the line is the job's output, where pdsh (DeepSpeed's multi-node
// launcher) puts "host: " before everything; elsewhere such a label is taken only before
// another prefix (the kernel's "nvidia-nvswitch1: SXid ..." has the same shape).
LinePrefix ParseLinePrefix(std::string_view line, int year, bool host_labels = false);

}  // namespace aegis
