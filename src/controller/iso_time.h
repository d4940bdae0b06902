// Times as the API shows them: RFC 3339 in UTC with whole seconds
// ("2026-11-30T10:12:09Z"). Thread-safe. (The clock the controller decides by is its
// Env's: ControllerOptions::env.)
#pragma once
#include <string>

namespace aegis::controller {

// "2026-11-30T10:12:09Z"; "" for NaN.
std::string FormatIsoTime(double epoch_seconds);

}  // namespace aegis::controller
