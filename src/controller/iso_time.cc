#include "controller/iso_time.h"

#include <cmath>
#include <ctime>

namespace aegis::controller {

std::string FormatIsoTime(double t) {
  if (!std::isfinite(t)) return "";
  const time_t s = static_cast<time_t>(std::floor(t));
  struct tm tm;
  gmtime_r(&s, &tm);
  char buf[40];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace aegis::controller
