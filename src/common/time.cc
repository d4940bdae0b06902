#include "common/time.h"

#include <cmath>

#include "common/text.h"

namespace aegis {

long long DaysFromCivil(int y, unsigned m, unsigned d) {
  y -= m <= 2;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

int MonthFromAbbrev(std::string_view s) {
  // Every candidate line's prefix is tried as a syslog time: three letters compared at once.
  if (s.size() < 3) return 0;
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  const char a = lower(s[0]), b = lower(s[1]), c = lower(s[2]);
  if (a < 'a' || a > 'z') return 0;
  static constexpr char kMonths[] = "janfebmaraprmayjunjulaugsepoctnovdec";
  for (int i = 0; i < 12; ++i)
    if (kMonths[3 * i] == a && kMonths[3 * i + 1] == b && kMonths[3 * i + 2] == c) return i + 1;
  return 0;
}

int YearOf(double t) {
  long long days = static_cast<long long>(std::floor(t / 86400.0));
  // Inverse of DaysFromCivil (H. Hinnant's civil_from_days).
  days += 719468;
  const long long era = (days >= 0 ? days : days - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const long long y = static_cast<long long>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return static_cast<int>(y + (m <= 2));
}

namespace {

bool Digits(std::string_view s, size_t pos, size_t n, int* out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

// Two digits at pos.
bool TwoDigits(std::string_view s, size_t pos, int* out) {
  if (pos + 2 > s.size()) return false;
  const unsigned a = static_cast<unsigned char>(s[pos]) - '0', b = static_cast<unsigned char>(s[pos + 1]) - '0';
  if (a > 9 || b > 9) return false;
  *out = static_cast<int>(a * 10 + b);
  return true;
}

// Reads "HH:MM:SS[.frac|,frac]" at pos; returns seconds of day and advances pos.
std::optional<double> ReadClock(std::string_view s, size_t* pos) {
  int hh, mm, ss;
  size_t p = *pos;
  if (!TwoDigits(s, p, &hh) || p + 2 >= s.size() || s[p + 2] != ':' || !TwoDigits(s, p + 3, &mm) ||
      p + 5 >= s.size() || s[p + 5] != ':' || !TwoDigits(s, p + 6, &ss))
    return std::nullopt;
  if (hh > 23 || mm > 59 || ss > 60) return std::nullopt;
  p += 8;
  double frac = 0;
  if (p < s.size() && (s[p] == '.' || s[p] == ',')) {
    // The digits as one integer, divided once (nanoseconds need 9; more add nothing).
    static constexpr double kPow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};
    size_t q = p + 1;
    uint64_t digits = 0;
    size_t n = 0;
    for (; q < s.size() && s[q] >= '0' && s[q] <= '9'; ++q)
      if (n < 18) {
        digits = digits * 10 + static_cast<uint64_t>(s[q] - '0');
        ++n;
      }
    if (q == p + 1) return std::nullopt;
    frac = static_cast<double>(digits) / kPow10[n];
    p = q;
  }
  *pos = p;
  return hh * 3600.0 + mm * 60.0 + ss + frac;
}

}  // namespace

std::optional<double> ParseIsoTime(std::string_view s, size_t* consumed, bool* zoned) {
  return ParseIsoTime(s, consumed, zoned, nullptr);
}

std::optional<double> IsoTimeWithClock(const IsoTimeParts& parts, std::string_view s) {
  size_t p = parts.clock_begin;
  auto clock = ReadClock(s, &p);
  if (!clock || p != parts.clock_end) return std::nullopt;
  // The arithmetic of ParseIsoTime, on the same values: the same result to the bit.
  double t = parts.day_seconds + *clock;
  if (parts.has_offset) t -= parts.offset;
  return t;
}

std::optional<double> ParseIsoTime(std::string_view s, size_t* consumed, bool* zoned, IsoTimeParts* parts) {
  if (zoned) *zoned = false;
  int y, mo, d;
  if (!Digits(s, 0, 4, &y) || s.size() < 10 || s[4] != '-' || !Digits(s, 5, 2, &mo) || s[7] != '-' ||
      !Digits(s, 8, 2, &d))
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return std::nullopt;
  if (s.size() < 11 || (s[10] != 'T' && s[10] != ' ')) return std::nullopt;
  size_t p = 11;
  auto clock = ReadClock(s, &p);
  if (!clock) return std::nullopt;
  const double day_seconds = DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400.0;
  if (parts) {
    *parts = IsoTimeParts();
    parts->day_seconds = day_seconds;
    parts->clock_begin = 11;
    parts->clock_end = static_cast<uint32_t>(p);
  }
  double t = day_seconds + *clock;
  // Zone: Z, +HH:MM, +HHMM, +HH, optionally after one space.
  size_t q = p;
  if (q < s.size() && s[q] == ' ' && q + 1 < s.size() && (s[q + 1] == '+' || s[q + 1] == '-')) ++q;
  if (q < s.size() && (s[q] == 'Z' || s[q] == 'z')) {
    p = q + 1;
    if (zoned) *zoned = true;
  } else if (q < s.size() && (s[q] == '+' || s[q] == '-')) {
    int zh, zm = 0;
    if (Digits(s, q + 1, 2, &zh)) {
      size_t r = q + 3;
      if (r < s.size() && s[r] == ':' && Digits(s, r + 1, 2, &zm)) r += 3;
      else if (Digits(s, r, 2, &zm)) r += 2;
      const double off = (zh * 3600.0 + zm * 60.0) * (s[q] == '-' ? -1 : 1);
      t -= off;
      if (parts) {
        parts->offset = off;
        parts->has_offset = true;
      }
      p = r;
      if (zoned) *zoned = true;
    }
  }
  if (consumed) *consumed = p;
  return t;
}

std::optional<double> ParseSyslogTime(std::string_view s, int year, size_t* consumed) {
  int mo = MonthFromAbbrev(s);
  if (mo == 0 || s.size() < 15 || s[3] != ' ') return std::nullopt;
  size_t p = 4;
  if (s[p] == ' ') ++p;  // "Nov  3"
  int d = 0;
  size_t nd = 0;
  while (p + nd < s.size() && nd < 2 && s[p + nd] >= '0' && s[p + nd] <= '9') d = d * 10 + (s[p + nd++] - '0');
  if (nd == 0 || d < 1 || d > 31 || p + nd >= s.size() || s[p + nd] != ' ') return std::nullopt;
  p += nd + 1;
  auto clock = ReadClock(s, &p);
  if (!clock) return std::nullopt;
  if (consumed) *consumed = p;
  return DaysFromCivil(year, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400.0 + *clock;
}

std::optional<double> ParseCtime(std::string_view s, size_t* consumed) {
  // "Mon Nov 30 10:11:12 2026" / "Fri Apr  5 21:29:39 2024"
  if (s.size() < 24 || s[3] != ' ') return std::nullopt;
  size_t used = 0;
  auto t = ParseSyslogTime(s.substr(4), 1970, &used);
  if (!t) return std::nullopt;
  size_t p = 4 + used;
  int y;
  if (p >= s.size() || s[p] != ' ' || !Digits(s, p + 1, 4, &y)) return std::nullopt;
  p += 5;
  // Re-base from 1970 to the real year: same month/day/time.
  const long long d1970 = static_cast<long long>(std::floor(*t / 86400.0));
  const double tod = *t - d1970 * 86400.0;
  const int mo = MonthFromAbbrev(s.substr(4));
  const long long day_of_month = d1970 - DaysFromCivil(1970, static_cast<unsigned>(mo), 1) + 1;
  if (consumed) *consumed = p;
  return DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(day_of_month)) * 86400.0 + tod;
}

}  // namespace aegis
