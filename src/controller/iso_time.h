// Times as the API shows them: RFC 3339 in UTC with whole seconds
// ("2026-11-30T10:12:09Z"), and the clock the controller decides by. Thread-safe.
#pragma once
#include <string>

namespace aegis::controller {

// "2026-11-30T10:12:09Z"; "" for NaN.
std::string FormatIsoTime(double epoch_seconds);
// Wall-clock now, epoch seconds with sub-second precision.
double WallNow();

}  // namespace aegis::controller
