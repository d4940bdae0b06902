#include "logs/line_prefix.h"

#include <cstring>
#include <optional>
#include <utility>

#include "common/text.h"
#include "common/time.h"

namespace aegis {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsSpace(char c) { return c == ' ' || c == '\t'; }

size_t SkipSpaces(std::string_view s, size_t p) {
  while (p < s.size() && IsSpace(s[p])) ++p;
  return p;
}

// Reads an unsigned integer at p; returns digits read.
size_t ReadUint(std::string_view s, size_t p, int* out) {
  size_t n = 0;
  long long v = 0;
  while (p + n < s.size() && IsDigit(s[p + n]) && n < 9) v = v * 10 + (s[p + n++] - '0');
  if (n) *out = static_cast<int>(v);
  return n;
}

// "host tag:" after a syslog / journal timestamp: a host token, then a tag token that
// ends with ':' (e.g. "kernel:", "python[123]:"). Returns the length consumed or 0.
size_t SyslogHostTag(std::string_view s, size_t p) {
  size_t q = SkipSpaces(s, p);
  size_t host_end = q;
  auto host_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || IsDigit(c) || c == '.' || c == '-' || c == '_';
  };
  while (host_end < s.size() && host_char(s[host_end])) ++host_end;
  if (host_end < s.size() && !IsSpace(s[host_end])) return 0;
  if (host_end == q || host_end >= s.size()) return 0;
  size_t tag = host_end + 1;
  size_t tag_end = tag;
  while (tag_end < s.size() && (host_char(s[tag_end]) || s[tag_end] == '[' || s[tag_end] == ']' || s[tag_end] == '/'))
    ++tag_end;
  if (tag_end == tag || tag_end >= s.size() || s[tag_end] != ':') return 0;
  if (tag_end - tag > 64) return 0;
  return tag_end + 1 - p;
}

// The length of "host: " at the start of r, or 0: a cluster host name (a letter and a
// digit or '-' in it, as in "worker-3", "gpu042", "ip-10-0-0-7.ec2.internal"), a colon, a
// blank. Python's "torch.distributed.DistBackendError: " has neither digit nor '-'.
size_t HostLabel(std::string_view r) {
  size_t e = 0;
  bool letter = false, digit_or_dash = false;
  for (; e < r.size() && e <= 64; ++e) {
    const char c = r[e];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!alpha && !IsDigit(c) && c != '.' && c != '-' && c != '_') break;
    letter |= alpha;
    digit_or_dash |= IsDigit(c) || c == '-';
  }
  return letter && digit_or_dash && e + 1 < r.size() && r[e] == ':' && r[e + 1] == ' ' ? e + 2 : 0;
}

// "[12] " (a bare bracketed number, which some launchers put before a line and some
// messages start with): too weak to confirm that what came before it was a host label.
bool BareBracketNumber(std::string_view m) {
  if (m.empty() || m[0] != '[') return false;
  size_t d = 1;
  while (d < m.size() && IsDigit(m[d])) ++d;
  return d > 1 && d + 1 < m.size() && m[d] == ']' && m[d + 1] == ' ';
}

// Where NCCL's own header "host:pid:tid [dev] " ends in m, or 0 when m does not start
// with one.
size_t NcclHeaderAt(std::string_view m) {
  size_t sp = m.find(' ');
  if (sp == std::string_view::npos || sp + 3 > m.size() || m[sp + 1] != '[') return 0;
  std::string_view head = m.substr(0, sp);
  size_t c2 = head.rfind(':');
  if (c2 == std::string_view::npos || c2 == 0) return 0;
  size_t c1 = head.rfind(':', c2 - 1);
  if (c1 == std::string_view::npos) return 0;
  int dev;
  size_t n = ReadUint(m, sp + 2, &dev);
  return n && sp + 2 + n < m.size() && m[sp + 2 + n] == ']' ? sp + 3 + n : 0;
}

// One prefix element at p. Returns the new position, or p when nothing was recognised.
// Host labels: whether a pdsh "host: " label may be taken here: kNever while looking past
// one (so that "a: a: a: ..." costs one look-ahead, not one per label), kBeforePrefix
// where such a label may also be a message's own word, kAlways in the job's output.
enum class HostLabels { kNever, kBeforePrefix, kAlways };

size_t StripOne(std::string_view s, size_t p, int year, LinePrefix* out,
                HostLabels host_labels = HostLabels::kBeforePrefix) {
  if (p >= s.size()) return p;
  std::string_view r = s.substr(p);
  size_t used = 0;

  // Syslog priority "<3>" and RFC 5424 "<3>1 ".
  if (r[0] == '<') {
    int pri;
    size_t n = ReadUint(r, 1, &pri);
    if (n && n <= 3 && 1 + n < r.size() && r[1 + n] == '>') {
      size_t q = 2 + n;
      if (q + 1 < r.size() && r[q] == '1' && r[q + 1] == ' ') q += 2;
      return p + q;
    }
  }
  // ISO timestamp, bare or in brackets, maybe followed by ':' and a syslog host/tag.
  {
    size_t q = 0;
    bool bracket = r[0] == '[';
    if (bracket) q = 1;
    bool zoned = false;
    IsoTimeParts parts;
    if (auto t = ParseIsoTime(r.substr(q), &used, &zoned, &parts)) {
      if (std::isnan(out->ts)) {
        out->ts_form = LinePrefix::TimeForm::kIso;
        out->ts_begin = static_cast<uint32_t>(p + q);
        out->ts_end = static_cast<uint32_t>(p + q + used);
        out->iso = parts;
      }
      q += used;
      if (bracket) {
        if (q < r.size() && r[q] == ']') ++q;
        else return p;
      }
      if (std::isnan(out->ts)) {
        out->ts = *t;
        out->zoned = zoned;
      }
      if (q < r.size() && r[q] == ':') ++q;
      // Kubernetes' container log files (CRI): "<time> stdout|stderr F|P msg".
      if (size_t c = SkipSpaces(r, q);
          (StartsWith(r.substr(c), "stdout ") || StartsWith(r.substr(c), "stderr ")) && c + 8 < r.size() &&
          (r[c + 7] == 'F' || r[c + 7] == 'P') && r[c + 8] == ' ')
        return p + c + 9;
      // journalctl -o short-iso: "<time> host kernel: msg"
      if (size_t h = SyslogHostTag(r, q); h && !bracket) {
        std::string_view tag = Trim(r.substr(q, h));
        if (tag.find(' ') != std::string_view::npos) q += h;
      }
      return p + q;
    }
  }
  // dmesg uptime "[ 8421.113902]" and dmesg -T "[Mon Nov 30 10:11:12 2026]".
  if (r[0] == '[') {
    size_t q = SkipSpaces(r, 1);
    size_t digits = q;
    while (digits < r.size() && IsDigit(r[digits])) ++digits;
    if (digits > q && digits < r.size() && r[digits] == '.') {
      size_t f = digits + 1;
      while (f < r.size() && IsDigit(r[f])) ++f;
      if (f < r.size() && r[f] == ']' && f > digits + 1) {
        if (auto v = ParseDouble(r.substr(q, f - q))) {  // the last uptime of the prefix counts
          out->uptime = *v;
          out->uptime_begin = static_cast<uint32_t>(p + q);
          out->uptime_end = static_cast<uint32_t>(p + f);
        }
        return p + f + 1;
      }
    }
    if (auto t = ParseCtime(r.substr(1), &used); t && 1 + used < r.size() && r[1 + used] == ']') {
      if (std::isnan(out->ts)) {
        out->ts = *t;
        out->ts_form = LinePrefix::TimeForm::kCtime;
        out->ts_begin = static_cast<uint32_t>(p + 1);
        out->ts_end = static_cast<uint32_t>(p + 1 + used);
      }
      return p + used + 2;
    }
    // Launcher tags: "[rank3]:", "[default3]:", "[trainer0|0]:", "[1,12]<stdout>:", "[0] ".
    size_t close = r.find(']');
    if (close != std::string_view::npos && close < 48) {
      std::string_view inner = r.substr(1, close - 1);
      std::string_view after = r.substr(close + 1);
      size_t skip = close + 1;
      bool tagged = false;
      if (StartsWith(after, "<stdout>:") || StartsWith(after, "<stderr>:")) {
        skip += 9;
        tagged = true;
      } else if (StartsWith(after, ":")) {
        skip += 1;
        tagged = true;
      } else if (StartsWith(after, " ") && !inner.empty()) {
        bool all_digits = true;
        for (char c : inner) all_digits &= IsDigit(c);
        tagged = all_digits;
      }
      if (tagged && !inner.empty()) {
        // The rank is the last run of digits before any '|' (trainer0|0 -> 0), or after a
        // comma (mpirun "[1,12]" -> 12).
        std::string_view num = inner;
        if (size_t bar = num.find('|'); bar != std::string_view::npos) num = num.substr(0, bar);
        if (size_t comma = num.rfind(','); comma != std::string_view::npos) num = num.substr(comma + 1);
        size_t e = num.size();
        size_t b = e;
        while (b > 0 && IsDigit(num[b - 1])) --b;
        bool word_ok = true;
        for (size_t i = 0; i < b; ++i) {
          char c = num[i];
          word_ok &= (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '-' || IsDigit(c);
        }
        if (b < e && word_ok) {
          int rank;
          if (ReadUint(num, b, &rank)) out->rank = rank;
          return p + skip;
        }
        if (StartsWith(after, "<std")) return p + skip;
      }
    }
  }
  // Syslog "Nov 30 10:11:12 host tag:".
  if (auto t = ParseSyslogTime(r, year, &used)) {
    if (std::isnan(out->ts)) {
      out->ts = *t;
      out->yearless = true;
      out->ts_form = LinePrefix::TimeForm::kSyslog;
      out->ts_begin = static_cast<uint32_t>(p);
      out->ts_end = static_cast<uint32_t>(p + used);
    }
    size_t q = used;
    if (size_t h = SyslogHostTag(r, q)) q += h;
    return p + q;
  }
  // dmesg -x "kern  :err   : " and Talos "10.0.0.1: kern:     err: ".
  {
    size_t q = 0;
    size_t colon = r.find(':');
    if (colon != std::string_view::npos && colon < 40 && !StartsWith(r, "kern")) {
      std::string_view host = r.substr(0, colon);
      if (host.find(' ') == std::string_view::npos && StartsWith(r.substr(colon), ": kern")) q = colon + 2;
    }
    if (StartsWith(r.substr(q), "kern")) {
      size_t a = q + 4;
      a = SkipSpaces(r, a);
      if (a < r.size() && r[a] == ':') {
        a = SkipSpaces(r, a + 1);
        size_t lvl = a;
        while (a < r.size() && r[a] >= 'a' && r[a] <= 'z') ++a;
        if (a > lvl) {
          a = SkipSpaces(r, a);
          if (a < r.size() && r[a] == ':') return p + a + 1;
        }
      }
    }
  }
  // srun --label "3: ".
  {
    int rank;
    size_t n = ReadUint(r, 0, &rank);
    if (n && n <= 6 && n + 1 < r.size() && r[n] == ':' && r[n + 1] == ' ') {
      out->rank = rank;
      return p + n + 2;
    }
  }
  // pdsh (DeepSpeed's multi-node launcher) "worker-3: ", only before another prefix or
  // NCCL's own header: "RuntimeError: msg" has the same shape.
  if (size_t h = host_labels != HostLabels::kNever ? HostLabel(r) : 0; h) {
    LinePrefix probe;
    const size_t next = SkipSpaces(s, p + h);
    if (host_labels == HostLabels::kAlways || NcclHeaderAt(s.substr(next)) ||
        (!BareBracketNumber(s.substr(next)) && StripOne(s, next, year, &probe, HostLabels::kNever) != next))
      return next;
  }
  return p;
}

// PyTorch / glog "[E1016 03:31:38.877368433 file.cpp:607]" or "I1016 03:31:38.877 ...":
// a time with month and day but no year. Only read, never stripped.
void ReadGlogTime(std::string_view m, int year, LinePrefix* out) {
  size_t p = 0;
  if (!m.empty() && m[0] == '[') p = 1;
  if (p >= m.size() || (m[p] != 'E' && m[p] != 'W' && m[p] != 'I' && m[p] != 'F')) return;
  ++p;
  size_t d = p;
  while (d < m.size() && IsDigit(m[d])) ++d;
  size_t nd = d - p;
  if ((nd != 3 && nd != 4) || d >= m.size() || m[d] != ' ') return;
  int md = 0;
  ReadUint(m, p, &md);
  int month = md / 100, day = md % 100;
  if (month < 1 || month > 12 || day < 1 || day > 31) return;
  size_t c = d + 1;
  int hh, mm, ss;
  if (ReadUint(m, c, &hh) != 2 || c + 8 > m.size() || m[c + 2] != ':' || ReadUint(m, c + 3, &mm) != 2 ||
      m[c + 5] != ':' || ReadUint(m, c + 6, &ss) != 2)
    return;
  double frac = 0;
  size_t f = c + 8;
  if (f < m.size() && m[f] == '.') {
    double scale = 0.1;
    for (++f; f < m.size() && IsDigit(m[f]); ++f, scale /= 10) frac += (m[f] - '0') * scale;
  }
  out->ts = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) * 86400.0 + hh * 3600.0 +
            mm * 60.0 + ss + frac;
  out->yearless = true;
}

// NCCL's own header "host:pid:tid [dev] NCCL ..." (the device is the process's CUDA index).
void ReadNcclDevice(std::string_view m, LinePrefix* out) {
  if (!NcclHeaderAt(m)) return;
  int dev = -1;
  ReadUint(m, m.find(' ') + 2, &dev);
  out->nccl_device = dev;
}

}  // namespace

LinePrefix ParseLineTime(std::string_view line, int year) {
  // ParseLinePrefix's loop, left as soon as an element gave a time: later elements never
  // change it (the first time wins; an uptime matters only without one).
  LinePrefix out;
  size_t p = SkipSpaces(line, 0);
  for (int i = 0; i < 8 && std::isnan(out.ts); ++i) {
    size_t q = StripOne(line, p, year, &out);
    if (q == p) break;
    p = SkipSpaces(line, q);
  }
  if (std::isnan(out.ts)) ReadGlogTime(line.substr(p), year, &out);
  return out;
}

LinePrefix ParseLinePrefix(std::string_view line, int year, bool host_labels) {
  LinePrefix out;
  out.continuation = !line.empty() && IsSpace(line[0]);
  size_t p = SkipSpaces(line, 0);
  for (int i = 0; i < 8; ++i) {
    // pdsh's label comes first, before anything the process printed.
    const HostLabels labels = host_labels && i == 0 ? HostLabels::kAlways : HostLabels::kBeforePrefix;
    size_t q = StripOne(line, p, year, &out, labels);
    if (q == p) break;
    p = SkipSpaces(line, q);
  }
  // A line that only looked indented because of a stripped stamp is no continuation.
  if (out.continuation && (!std::isnan(out.ts) || !std::isnan(out.uptime))) out.continuation = false;
  std::string_view msg = line.substr(p);
  if (std::isnan(out.ts)) ReadGlogTime(msg, year, &out);
  ReadNcclDevice(msg, &out);
  out.message_offset = p;
  return out;
}

TimeSigns LookForTimeSigns(std::string_view line, bool uptime_too) {
  TimeSigns signs;
  const char* s = line.data();
  const size_t n = line.size();
  auto digit = [&](size_t i) { return i < n && IsDigit(s[i]); };
  // "HH:MM:SS": a ':' with two digits before it, two after it, then ':' and two digits.
  for (size_t from = 2; from + 5 < n && !signs.clock;) {
    const void* hit = std::memchr(s + from, ':', n - from - 5);
    if (!hit) break;
    const size_t i = static_cast<size_t>(static_cast<const char*>(hit) - s);
    signs.clock = s[i + 3] == ':' && digit(i - 2) && digit(i - 1) && digit(i + 1) && digit(i + 2) && digit(i + 4) &&
                  digit(i + 5);
    from = i + 1;
  }
  // "[ 8421.113902]": '[', blanks, digits, '.', digits, ']'.
  for (size_t from = 0; uptime_too && from < n && !signs.uptime;) {
    const void* hit = std::memchr(s + from, '[', n - from);
    if (!hit) break;
    size_t i = static_cast<size_t>(static_cast<const char*>(hit) - s) + 1;
    while (i < n && IsSpace(s[i])) ++i;
    const size_t int_begin = i;
    while (digit(i)) ++i;
    if (i > int_begin && i < n && s[i] == '.') {
      const size_t frac_begin = ++i;
      while (digit(i)) ++i;
      signs.uptime = i > frac_begin && i < n && s[i] == ']';
    }
    from = int_begin;
  }
  return signs;
}

namespace {

// Offsets of the first and one past the last byte where a and b (of length n) differ;
// first >= last when they do not. Eight bytes at a time.
std::pair<size_t, size_t> DiffRange(const char* a, const char* b, size_t n) {
  size_t first = 0;
  for (; first + 8 <= n; first += 8) {
    uint64_t x, y;
    std::memcpy(&x, a + first, 8);
    std::memcpy(&y, b + first, 8);
    if (x != y) break;
  }
  while (first < n && a[first] == b[first]) ++first;
  if (first == n) return {n, 0};
  size_t last = n;
  for (; last >= first + 8; last -= 8) {
    uint64_t x, y;
    std::memcpy(&x, a + last - 8, 8);
    std::memcpy(&y, b + last - 8, 8);
    if (x != y) break;
  }
  while (last > first && a[last - 1] == b[last - 1]) --last;
  return {first, last};
}

}  // namespace

bool ReparseRepeatedPrefix(std::string_view line, std::string_view like_line, int year, LinePrefix* like) {
  if (line.size() != like_line.size()) return false;
  // Outside the times the bytes are the same. Inside a wall time anything may differ: it
  // is read again by its own parser, which must read it whole, to the same end, and the
  // rest of the prefix reads only bytes outside it.
  struct Field {
    uint32_t begin, end;
    bool ts;
  };
  Field fields[2] = {{like->ts_begin, like->ts_end, true}, {like->uptime_begin, like->uptime_end, false}};
  if (like->ts_form == LinePrefix::TimeForm::kNone) fields[0].end = fields[0].begin;
  if (fields[1].begin < fields[0].begin) std::swap(fields[0], fields[1]);
  size_t pos = 0;
  for (const Field& f : fields) {
    if (f.begin == f.end) continue;
    if (f.begin < pos || f.end > line.size()) return false;  // overlapping or stale: not a repeat we can tell
    if (std::memcmp(line.data() + pos, like_line.data() + pos, f.begin - pos) != 0) return false;
    pos = f.end;
  }
  if (std::memcmp(line.data() + pos, like_line.data() + pos, line.size() - pos) != 0) return false;
  for (const Field& f : fields) {
    if (f.begin == f.end || std::memcmp(line.data() + f.begin, like_line.data() + f.begin, f.end - f.begin) == 0)
      continue;
    const std::string_view at = line.substr(f.begin);
    const size_t want = f.end - f.begin;
    if (!f.ts) {  // an uptime is digits and a '.': only digits may differ
      for (size_t i = f.begin; i < f.end; ++i)
        if (line[i] != like_line[i] && !(IsDigit(line[i]) && IsDigit(like_line[i]))) return false;
      auto v = ParseDouble(at.substr(0, want));
      if (!v) return false;
      like->uptime = *v;
      continue;
    }
    size_t used = 0;
    bool zoned = like->zoned;
    std::optional<double> t;
    switch (like->ts_form) {
      case LinePrefix::TimeForm::kIso: {
        // Most repeats differ in the clock alone ("10:11:12.123456"): read only that.
        const auto [first, last] = DiffRange(line.data() + f.begin, like_line.data() + f.begin, want);
        if (first >= like->iso.clock_begin && last <= like->iso.clock_end) {
          t = IsoTimeWithClock(like->iso, at);
          used = want;
        } else {
          t = ParseIsoTime(at, &used, &zoned, &like->iso);
        }
        break;
      }
      case LinePrefix::TimeForm::kSyslog: t = ParseSyslogTime(at, year, &used); break;
      case LinePrefix::TimeForm::kCtime: t = ParseCtime(at, &used); break;
      case LinePrefix::TimeForm::kNone: break;
    }
    if (!t || used != want) return false;
    like->ts = *t;
    like->zoned = zoned;
  }
  return true;
}

}  // namespace aegis
