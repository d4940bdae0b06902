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

// Where a time lies against the job's window: -1 clearly before started_at (or before
// `job.not_before[host]` for a line of that host), +1 clearly after ended_at, 0 within it
// or not known to be outside (no time, no start or end).
int WindowSide(double ts, bool exact, bool zoned, const Job& job, const WindowOptions& options = {},
               std::string_view host = {});
// The side of the event's first record.
inline int WindowSide(const LogEvent& ev, const Job& job, const WindowOptions& options = {},
                      std::string_view host = {}) {
  return WindowSide(ev.ts, ev.ts_exact, ev.ts_zoned, job, options, host);
}

// True when the event lies outside the job's window (of `host`, see WindowSide). For an
// event that stands for several records (count > 1), when its first and its last record
// both lie outside on the same side: a storm that runs into the window is not history.
bool OutsideJobWindow(const LogEvent& ev, const Job& job, const WindowOptions& options = {},
                      std::string_view host = {});

}  // namespace aegis
