// Timestamp parsing for the forms logs print. All results are seconds since the Unix
// epoch (UTC; a time without a zone is taken as UTC). Pure functions, thread-safe.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace aegis {

// Days since 1970-01-01 of a proleptic Gregorian date.
long long DaysFromCivil(int year, unsigned month, unsigned day);
// 1..12 for "Jan".."Dec" (case-insensitive), 0 otherwise.
int MonthFromAbbrev(std::string_view s);
// Year of an epoch time.
int YearOf(double epoch_seconds);

// "2026-11-30T10:11:12", "2026-11-30 10:11:12.123", with ",123" fractions and a zone
// "Z", "+00:00", "+0800" or " +08:00". On success *consumed is the length read and *zoned
// says whether a zone was given (without one the time is local, taken as UTC).
std::optional<double> ParseIsoTime(std::string_view s, size_t* consumed = nullptr, bool* zoned = nullptr);

// An ISO time taken apart, so that a stamp that differs from it only in its clock
// ("10:11:12.123456") is read again from the clock alone, to the very same value.
struct IsoTimeParts {
  double day_seconds = 0;  // the date, as seconds since the epoch
  double offset = 0;       // the zone's, subtracted when has_offset
  bool has_offset = false;
  uint32_t clock_begin = 0, clock_end = 0;  // where the clock is, from the stamp's start
};
std::optional<double> ParseIsoTime(std::string_view s, size_t* consumed, bool* zoned, IsoTimeParts* parts);
// The time of `s`, a stamp like the one `parts` came from but for its clock's digits;
// nullopt when its clock does not read to the same end.
std::optional<double> IsoTimeWithClock(const IsoTimeParts& parts, std::string_view s);
// "Nov 30 10:11:12" (syslog, no year: `year` is used), *consumed as above.
std::optional<double> ParseSyslogTime(std::string_view s, int year, size_t* consumed = nullptr);
// "Mon Nov 30 10:11:12 2026" (dmesg -T, ctime).
std::optional<double> ParseCtime(std::string_view s, size_t* consumed = nullptr);

}  // namespace aegis
