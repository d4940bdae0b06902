// The job's time window: a log event dated clearly before the job started, or after it
// ended, belongs to another time (kernel logs keep history since boot) and is never a
// cause of this job's failure. "Clearly" allows for clock offsets between hosts (minutes)
// and, for times printed without a zone (dmesg -T, syslog, glog: local time read as UTC),
// for any time zone. A time inherited from an earlier line is only a lower bound: it can
// prove an event late, never early. A host the job names in `not_before` (returned to
// service while the job ran) has its window start there instead. Pure functions.
#pragma once
#include <string_view>

#include "bundle/model.h"
#include "logs/event.h"

namespace aegis {

struct WindowOptions {
  double clock_skew_s = 300;            // between hosts, and between a scheduler and a host
  double zoneless_s = 14 * 3600.0;      // widest offset of a local time from UTC
};

// True when the event's time places it outside [started_at, ended_at] of the job, or
// before `job.not_before[host]` for an event of that host.
bool OutsideJobWindow(const LogEvent& ev, const Job& job, const WindowOptions& options = {},
                      std::string_view host = {});

}  // namespace aegis
