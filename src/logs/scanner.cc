#include "logs/scanner.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include "common/text.h"
#include "learn/rule_reading.h"
#include "logs/event_aggregate.h"
#include "logs/line_prefix.h"
#include "rules/catalog.h"

namespace aegis {

namespace {

constexpr int kMaxFoldLines = 16;
constexpr int kMaxTracebackLines = 400;
constexpr int kTimeLookback = 64;
constexpr int kBootProbeLines = 256;
constexpr int kLastUptimeLines = 64;  // lines looked at, from the end, for the newest uptime
constexpr uint64_t kInheritWindow = 32;
constexpr double kHalfYear = 183 * 86400.0;

std::string_view LineAt(std::string_view buf, size_t begin) {
  size_t end = buf.find('\n', begin);
  if (end == std::string_view::npos) end = buf.size();
  std::string_view l = buf.substr(begin, end - begin);
  if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  return l;
}

// Start offset of the line before the one starting at `begin`, or npos at buffer start.
size_t PrevLineStart(std::string_view buf, size_t begin) {
  if (begin == 0) return std::string_view::npos;
  size_t end = begin - 1;  // the '\n' ending the previous line
  if (end == 0) return 0;
  const void* nl = memrchr(buf.data(), '\n', end);  // vectorised, unlike string_view::rfind
  return nl ? static_cast<size_t>(static_cast<const char*>(nl) - buf.data()) + 1 : 0;
}

// A line of the buffer: the offsets of its first byte and of its '\n'.
struct LineSpan {
  size_t begin = 0, end = 0;
};

// Offset of the line after the one starting at `begin` (buf.size() at the end).
size_t NextLineStart(std::string_view buf, size_t begin) {
  size_t nl = buf.find('\n', begin);
  return nl == std::string_view::npos ? buf.size() : nl + 1;
}

bool Indented(std::string_view line) { return !line.empty() && (line[0] == ' ' || line[0] == '\t'); }

// A record folded from a candidate line and its continuation lines. One is kept from
// record to record so that its buffers are reused.
struct Record {
  std::string message;
  std::vector<uint32_t> rules;
  uint64_t first = 0, last = 0;
  LinePrefix prefix;  // of the candidate line, with the time of the record's head line
  // The lines up to the candidate's: their bytes of `message`, and how many of `rules`
  // are the candidate's own.
  size_t head_end = 0, head_rules = 0;
  // Continuation lines after the candidate that some rule may match on their own: where
  // each one's text lies in `message` ([begin, end)), the number of `rules` gathered
  // before it, and its index among the scanned candidates.
  struct Part {
    uint64_t line = 0;
    size_t begin = 0, end = 0, rules_before = 0, candidate = 0;
  };
  std::vector<Part> parts;
};

// Where the last search back for an inherited time ended, so that the next untimed
// candidate searches only the lines in between (a storm of untimed lines would otherwise
// parse up to 64 lines back for every one of them).
struct InheritedTime {
  bool valid = false;
  uint64_t line = 0;        // the candidate line searched for (a line without a usable time)
  double boot = NAN;        // the boot time then: lines with an uptime count once it is known
  bool found = false;
  uint64_t found_line = 0;  // the line whose time it inherited
  uint64_t found_at = 0;    // that line's first byte, counted from the start of the log
  double ts = NAN;
  bool zoned = false;
};

bool SameBoot(double a, double b) { return std::isnan(a) ? std::isnan(b) : a == b; }

}  // namespace

// What the rules made of a message. The same message with the same candidate rules is
// always confirmed the same way, so a record that repeats one seen before skips RE2 and
// the making of its text: only its line, its time and its prefix are its own.
struct LogStream::Confirmed {
  bool used = false;
  uint64_t used_at = 0;  // Reuse::clock when last looked up (the least recent way is replaced)
  uint64_t stamp = 0;   // counts the messages this slot has held (a repeat remembers which)
  uint64_t hash = 0;
  std::string message;
  std::vector<uint32_t> rules;
  bool matched = false;
  uint32_t rule = 0;
  std::string rule_id;
  LineClass line_class = LineClass::kNone;  // after the Xid table's decoding, before inheritance
  Component component = Component::kHost;
  int xid = -1;
  int field_rank = -1;  // a rank the rule captured, -1 when none
  std::vector<std::pair<std::string, std::string>> fields;
  std::string pci;      // the "pci" field in lower case (for inherit rules)
  std::string text;     // the event's text
};

// What a log's records need from before the piece being matched.
struct LogStream::State {
  double boot = NAN;          // epoch time of kernel uptime 0, learnt from lines carrying both
  bool boot_zoned = false;
  int boot_probe_lines = 0;   // lines examined for it (the first few hundred of the log)
  double last_ts = NAN;       // newest time seen on a matched line (for lines without one)
  bool last_zoned = false;
  uint64_t skip_through = 0;  // candidates up to this line were folded into an earlier event
  uint64_t fold_floor = 0;    // a record split off its head here: no later line folds back over it
  struct DeviceReport {
    uint64_t line = 0;
    LineClass line_class = LineClass::kNone;
    Component component = Component::kHost;
  };
  std::map<std::string, DeviceReport, std::less<>> last_by_device;  // for inherit rules
  uint64_t trimmed = 0;       // bytes of the log cut from the front of the buffer so far
  InheritedTime inherited;
  // Candidate lines seen a moment ago, in sets by a hash of their length, candidate rules
  // and last bytes (several ways each: the ranks of a job print the same line with their
  // own prefixes): a line that repeats one (a storm) takes its prefix and what the rules
  // made of it without parsing or matching again; only its times are read.
  struct Repeatable {
    bool used = false;
    uint64_t used_at = 0;        // repeat_clock when last used (the least recent way is replaced)
    uint64_t key = 0;
    std::string raw;             // the line
    std::vector<uint32_t> rules;  // its candidate rules
    LinePrefix prefix;
    const Confirmed* confirmed = nullptr;
    uint64_t stamp = 0;          // confirmed->stamp then
    DeviceReport* device = nullptr;  // last_by_device's entry of its "pci" field, once known
    // ScanOptions::fold_repeats: the event of this line being folded (held until the run
    // ends), and the side of the job's window it is on.
    bool folding = false;
    LogEvent folded;
    int folded_side = 0;
  };
  static constexpr size_t kRepeatSets = 8, kRepeatWays = 16;
  std::vector<Repeatable> repeatable = std::vector<Repeatable>(kRepeatSets * kRepeatWays);
  uint64_t repeat_clock = 0;
};

// Kept across logs: buffers reused from record to record, and what the rules made of
// recent messages (a line repeated in one log is usually repeated in its neighbours).
struct LogStream::Reuse {
  // Messages remembered, in sets by hash with several ways each: a storm of a few dozen
  // distinct messages must not evict one another by sharing a slot.
  static constexpr size_t kSets = 64, kWays = 4;
  static constexpr size_t kMaxMessage = 4096;  // longer ones are confirmed every time
  Record record;
  LogEvent event;
  RuleMatch match;
  std::vector<uint32_t> part_rules;  // SplitAtOwnMatch's
  std::vector<uint32_t> part_matched;
  std::vector<Confirmed> confirmed = std::vector<Confirmed>(kSets * kWays);
  uint64_t clock = 0;
  Confirmed uncached;
};

LogStream::LogStream(const Matcher& matcher, ScanOptions options)
    : matcher_(matcher),
      options_(options),
      scratch_(matcher.NewScratch()),
      st_(std::make_unique<State>()),
      reuse_(std::make_unique<Reuse>()) {}

LogStream::~LogStream() = default;

void LogStream::Reset() {
  size_ = 0;  // keeps the buffer's memory
  processed_ = 0;
  line_no_ = 1;
  skipping_ = false;
  known_.clear();
  fed_lines_ = 0;
  stats_ = ScanStats();
  *st_ = State();
}

namespace {

// The prefix of a line; a yearless time more than half a year after the reference is
// last year's (a log from late December read in January).
LinePrefix ParsePrefix(std::string_view line, const ScanOptions& o) {
  LinePrefix p = ParseLinePrefix(line, o.year, o.host_labels);
  if (p.yearless && !std::isnan(o.ref_time) && p.ts > o.ref_time + kHalfYear)
    p = ParseLinePrefix(line, o.year - 1, o.host_labels);
  return p;
}

// Where a candidate line is looked for among the lines seen a moment ago: its length, its
// candidate rules and its last 16 bytes (the end of its message: the same in a repeat,
// whose prefix differs in its times).
uint64_t RepeatKey(std::string_view raw, const CandidateRules& rules) {
  uint64_t tail[2] = {0, 0};
  const size_t n = std::min<size_t>(raw.size(), sizeof tail);
  std::memcpy(tail, raw.data() + raw.size() - n, n);
  uint64_t h = raw.size() * 0x9E3779B97F4A7C15ull;
  for (uint32_t r : rules) h = (h ^ r) * 0xFF51AFD7ED558CCDull;
  h = (h ^ tail[0]) * 0xC4CEB9FE1A85EC53ull;
  h = (h ^ tail[1]) * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

// ParsePrefix's time alone (ParseLineTime), with the same year.
LinePrefix ParseTime(std::string_view line, const ScanOptions& o) {
  LinePrefix p = ParseLineTime(line, o.year);
  if (p.yearless && !std::isnan(o.ref_time) && p.ts > o.ref_time + kHalfYear) p = ParseLineTime(line, o.year - 1);
  return p;
}

// A line whose prefix its reader gave (`prefix`) repeats `like_line` (prefix `like`) when
// their messages are the same bytes: it is then that line again, at its own times.
bool SameMessage(std::string_view line, const LinePrefix& prefix, std::string_view like_line, const LinePrefix& like,
                 LinePrefix* out) {
  if (like.message_offset > like_line.size() ||
      line.substr(prefix.message_offset) != like_line.substr(like.message_offset))
    return false;
  *out = prefix;
  return true;
}

// ParsePrefix of a line that repeats `like_line` (whose prefix was `like`) but for the
// digits of its times; false when it does not.
bool ReparseRepeat(std::string_view line, std::string_view like_line, const LinePrefix& like, const ScanOptions& o,
                   LinePrefix* out) {
  if (line.size() != like_line.size()) return false;
  *out = like;
  if (!ReparseRepeatedPrefix(line, like_line, o.year, out)) return false;
  if (out->yearless && !std::isnan(o.ref_time) && out->ts > o.ref_time + kHalfYear) {
    *out = like;
    return ReparseRepeatedPrefix(line, like_line, o.year - 1, out);
  }
  return true;
}

}  // namespace

char* LogStream::Tail(size_t n) {
  if (size_ + n > cap_) {
    const size_t cap = std::max(size_ + n, cap_ * 2);
    std::unique_ptr<char[]> grown(new char[cap]);  // not zero-filled: every byte is written before it is read
    if (size_) std::memcpy(grown.get(), buf_.get(), size_);
    buf_ = std::move(grown);
    cap_ = cap;
  }
  return buf_.get() + size_;
}

void LogStream::Feed(std::string_view bytes, const Sink& sink) {
  while (!bytes.empty()) {
    const size_t n = std::min(bytes.size(), options_.chunk_bytes);
    const size_t old_size = size_;
    std::memcpy(Tail(n), bytes.data(), n);
    size_ += n;
    Appended(old_size, sink);
    bytes.remove_prefix(n);
  }
}

void LogStream::FeedRecord(std::string_view line, const LinePrefix& prefix, const Sink& sink) {
  known_.emplace_back(fed_lines_ + 1, prefix);
  fed_lines_ += 1 + CountNewlines(line.data(), line.data() + line.size());  // a message with '\n' in it
  if (std::isnan(st_->boot) && !std::isnan(prefix.ts) && !std::isnan(prefix.uptime)) {
    st_->boot = prefix.ts - prefix.uptime;  // what LearnBootTime would read from the line
    st_->boot_zoned = prefix.zoned;
  }
  const size_t old_size = size_;
  char* dst = Tail(line.size() + 1);
  std::memcpy(dst, line.data(), line.size());
  dst[line.size()] = '\n';
  size_ += line.size() + 1;
  Appended(old_size, sink);
}

const LinePrefix* LogStream::KnownPrefix(uint64_t line_no, std::string_view line) const {
  auto it = std::lower_bound(known_.begin(), known_.end(), line_no,
                             [](const std::pair<uint64_t, LinePrefix>& k, uint64_t n) { return k.first < n; });
  if (it == known_.end() || it->first != line_no || it->second.message_offset > line.size()) return nullptr;
  return &it->second;
}

Status LogStream::FeedFd(int fd, const Sink& sink) {
  while (true) {
    char* dst = Tail(options_.chunk_bytes);
    ssize_t n = ::read(fd, dst, options_.chunk_bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::IOError(std::strerror(errno));
    if (n == 0) return Status::Ok();
    const size_t old_size = size_;
    size_ += static_cast<size_t>(n);
    Appended(old_size, sink);
  }
}

void LogStream::Appended(size_t old_size, const Sink& sink) {
  stats_.bytes += size_ - old_size;
  if (skipping_) {  // inside a cut line: drop up to its '\n'
    const void* nl = std::memchr(buf_.get() + old_size, '\n', size_ - old_size);
    if (!nl) {
      size_ = old_size;
      return;
    }
    const size_t after = static_cast<size_t>(static_cast<const char*>(nl) - buf_.get()) + 1;
    std::memmove(buf_.get() + old_size, buf_.get() + after, size_ - after);
    size_ -= after - old_size;
    skipping_ = false;
  }
  // A line longer than the limit: its head is matched as a line of its own, and the rest
  // dropped until its '\n'.
  size_t last_nl = View(size_).rfind('\n');
  const size_t partial = last_nl == std::string_view::npos || last_nl < processed_ ? processed_ : last_nl + 1;
  if (size_ - partial > options_.max_line_bytes) {
    size_ = partial + options_.max_line_bytes;
    buf_[size_++] = '\n';
    ++stats_.cut_lines;
    skipping_ = true;
    last_nl = size_ - 1;
  }
  if (last_nl == std::string_view::npos || last_nl + 1 <= processed_) return;
  last_nl = CutLongLines(last_nl);
  const size_t end = HoldBackFrom(last_nl + 1);
  if (end > processed_) MatchRegion(end, sink);
  TrimLookback();
}

size_t LogStream::CutLongLines(size_t last_nl) {
  // Whole lines arrive in one read as well as in pieces: a line that ends inside this read
  // is held to the same limit as one cut above. Each step looks at the next max + 1 bytes
  // for their last '\n' (memrchr stops near the window's end), so a read of ordinary lines
  // costs a few calls, not one per line.
  const size_t max = options_.max_line_bytes;
  char* buf = buf_.get();
  for (size_t start = processed_; start <= last_nl && last_nl - start >= max;) {
    if (const void* nl = memrchr(buf + start, '\n', max + 1)) {
      start = static_cast<size_t>(static_cast<const char*>(nl) - buf) + 1;
      continue;
    }
    // The line at `start` is longer than max: keep its head, drop the rest up to its '\n'.
    const auto* end = static_cast<const char*>(std::memchr(buf + start + max, '\n', last_nl + 1 - (start + max)));
    const size_t dropped = static_cast<size_t>(end - buf) - (start + max);
    std::memmove(buf + start + max, end, size_ - static_cast<size_t>(end - buf));
    size_ -= dropped;
    last_nl -= dropped;
    ++stats_.cut_lines;
    start += max + 1;
  }
  return last_nl;
}

void LogStream::Flush(const Sink& sink, bool end_of_input) {
  size_t end = size_;
  if (!end_of_input) {  // the writer may be in the middle of the last line
    const size_t nl = View(size_).rfind('\n');
    end = nl == std::string_view::npos ? 0 : nl + 1;
  } else if (size_ > processed_ && buf_[size_ - 1] != '\n') {
    *Tail(1) = '\n';  // the last line, unterminated
    end = ++size_;
  }
  if (end > processed_) MatchRegion(end, sink);
  if (end_of_input) NoteLastUptime(end);
  TrimLookback();
  EmitFolded(sink);
}

void LogStream::NoteLastUptime(size_t end) {
  // The newest line with an uptime, among the last few of the log.
  std::string_view buf = View(end);
  size_t b = PrevLineStart(buf, end);
  for (int k = 0; k < kLastUptimeLines && b != std::string_view::npos; ++k, b = PrevLineStart(buf, b)) {
    std::string_view line = LineAt(buf, b);
    if (!LookForTimeSigns(line).uptime) continue;
    const LinePrefix p = ParseLineTime(line, options_.year);
    if (!std::isnan(p.uptime)) {
      stats_.last_uptime = p.uptime;
      return;
    }
  }
}

size_t LogStream::HoldBackFrom(size_t end) const {
  // The last record (a line and the indented lines that continue it) may still grow.
  std::string_view buf = View(end);
  size_t b = PrevLineStart(buf, end);
  for (int k = 0; k <= kMaxFoldLines && b != std::string_view::npos && b >= processed_; ++k) {
    std::string_view line = LineAt(buf, b);
    if (!Indented(line) || !ParsePrefix(line, options_).continuation) return b;
    b = PrevLineStart(buf, b);
  }
  return b == std::string_view::npos || b < processed_ ? processed_ : b;
}

void LogStream::TrimLookback() {
  // Only once a chunk beyond the look-back was matched: a log that fits one chunk (most
  // of a bundle's) is never moved, a longer one about once a chunk.
  if (processed_ <= options_.lookback_bytes + options_.chunk_bytes) return;
  size_t cut = processed_ - options_.lookback_bytes;
  cut = NextLineStart(View(processed_), cut);
  std::memmove(buf_.get(), buf_.get() + cut, size_ - cut);
  size_ -= cut;
  processed_ -= cut;
  st_->trimmed += cut;
}

void LogStream::LearnBootTime(std::string_view region) {
  // Kernel logs: the boot time from any early line that has a wall time and an uptime.
  for (size_t b = 0; b < region.size() && st_->boot_probe_lines < kBootProbeLines && std::isnan(st_->boot);
       b = NextLineStart(region, b)) {
    ++st_->boot_probe_lines;
    const std::string_view line = LineAt(region, b);
    // A wall time and an uptime to learn from, else nothing to parse.
    if (!LookForTimeSigns(line, false).clock || !LookForTimeSigns(line).uptime) continue;
    LinePrefix p = ParsePrefix(line, options_);
    if (!std::isnan(p.ts) && !std::isnan(p.uptime)) {
      st_->boot = p.ts - p.uptime;
      st_->boot_zoned = p.zoned;
    }
  }
}

namespace {

// Folds the record around the candidate at `begin` (line `line_no`, whose prefix is
// `known` when its reader gave it, else parsed): indented lines before it that it
// continues, and indented lines after it (up to `limit`) that continue it, with the
// candidate rules of those lines.
void FoldRecord(std::string_view buf, size_t limit, LineSpan cand, const CandidateRules& cand_rules,
                uint64_t line_no, const LinePrefix* known, uint64_t fold_floor, size_t next_ci,
                const std::vector<CandidateLine>& candidates, size_t region_begin, const ScanOptions& o, Record& r) {
  std::string_view raw = LineAt(buf, cand.begin);
  r.prefix = known ? *known : ParsePrefix(raw, o);
  r.rules.assign(cand_rules.begin(), cand_rules.end());
  r.message.assign(raw.substr(r.prefix.message_offset));
  r.first = r.last = line_no;
  r.parts.clear();
  if (r.prefix.continuation) {
    std::vector<std::string_view> before;
    size_t b = cand.begin;
    for (int k = 0; k < kMaxFoldLines && r.first - 1 > fold_floor; ++k) {
      size_t pb = PrevLineStart(buf, b);
      if (pb == std::string_view::npos) break;
      std::string_view pl = LineAt(buf, pb);
      LinePrefix pp = ParsePrefix(pl, o);
      before.push_back(pl.substr(pp.message_offset));
      --r.first;
      b = pb;
      if (!pp.continuation) {
        if (std::isnan(r.prefix.ts)) {
          r.prefix.ts = pp.ts;
          r.prefix.zoned = pp.zoned;
        }
        if (std::isnan(r.prefix.uptime)) r.prefix.uptime = pp.uptime;
        break;
      }
    }
    std::string head;
    for (auto it = before.rbegin(); it != before.rend(); ++it) {
      head.append(*it);
      head += ' ';
    }
    r.message.insert(0, head);
  }
  r.head_end = r.message.size();
  r.head_rules = r.rules.size();
  size_t b = cand.end + 1;
  for (int k = 0; k < kMaxFoldLines && b < limit; ++k) {
    std::string_view nl = LineAt(buf, b);
    if (!Indented(nl)) break;
    LinePrefix np = ParsePrefix(nl, o);
    if (!np.continuation) break;
    r.message += ' ';
    const size_t text_begin = r.message.size();
    r.message.append(nl.substr(np.message_offset));
    ++r.last;
    while (next_ci < candidates.size() && candidates[next_ci].begin + region_begin < b) ++next_ci;
    if (next_ci < candidates.size() && candidates[next_ci].begin + region_begin == b) {
      r.parts.push_back({r.last, text_begin, r.message.size(), r.rules.size(), next_ci});
      for (uint32_t rule : candidates[next_ci].rules)
        if (std::find(r.rules.begin(), r.rules.end(), rule) == r.rules.end()) r.rules.push_back(rule);
    }
    b = NextLineStart(buf, b);
  }
}

// The Python traceback header of the same process that leads to the line at `begin`, or 0.
uint64_t TracebackHeader(std::string_view buf, size_t begin, uint64_t line_no, int rank, const ScanOptions& o) {
  size_t b = begin;
  uint64_t ln = line_no;
  for (int k = 0; k < kMaxTracebackLines; ++k) {
    size_t pb = PrevLineStart(buf, b);
    if (pb == std::string_view::npos) break;
    --ln;
    std::string_view pl = LineAt(buf, pb);
    LinePrefix pp = ParsePrefix(pl, o);
    b = pb;
    if (pp.rank != rank) continue;  // another process's line, interleaved
    std::string_view pm = pl.substr(pp.message_offset);
    if (StartsWith(pm, "Traceback (most recent call last)")) return ln;
    bool frame = StartsWith(pm, "File \"") || StartsWith(pm, "^") || StartsWith(pm, "~") ||
                 (pp.message_offset > 0 && pp.message_offset < pl.size() &&
                  (pl[pp.message_offset - 1] == ' ' || pl[pp.message_offset - 1] == '\t')) ||
                 pm.empty();
    if (!frame) break;
  }
  return 0;
}

}  // namespace

const LogStream::Confirmed* LogStream::ConfirmRecord() {
  Reuse& re = *reuse_;
  const Record& rec = re.record;
  Confirmed* slot = nullptr;
  uint64_t h = 0;
  if (rec.message.size() <= Reuse::kMaxMessage) {
    h = HashBytes(rec.message, HashBytes(std::string_view(reinterpret_cast<const char*>(rec.rules.data()),
                                                          rec.rules.size() * sizeof(uint32_t))));
    Confirmed* set = &re.confirmed[(h % Reuse::kSets) * Reuse::kWays];
    ++re.clock;
    for (size_t w = 0; w < Reuse::kWays; ++w) {
      Confirmed& way = set[w];
      if (way.used && way.hash == h && way.message == rec.message && way.rules == rec.rules) {
        way.used_at = re.clock;
        return &way;
      }
    }
    slot = set;  // the way looked up least recently takes this message
    for (size_t w = 1; w < Reuse::kWays; ++w)
      if (set[w].used_at < slot->used_at) slot = &set[w];
    slot->used_at = re.clock;
  }
  Confirmed& c = slot ? *slot : re.uncached;
  c.used = slot != nullptr;
  ++c.stamp;
  c.hash = h;
  if (slot) {
    c.message.assign(rec.message);
    c.rules = rec.rules;
  }
  c.matched = matcher_.Confirm(rec.message, rec.rules, &re.match);
  if (!c.matched) return &c;
  const Rule& rule = matcher_.catalog().rules()[re.match.rule];
  c.rule = re.match.rule;
  c.fields = re.match.fields;
  c.xid = -1;
  if (auto x = re.match.Field("xid"); !x.empty())
    if (auto v = ParseInt(x)) c.xid = static_cast<int>(*v);
  c.field_rank = -1;
  if (auto r = re.match.Field("rank"); !r.empty())
    if (auto v = ParseInt(r)) c.field_rank = static_cast<int>(*v);
  c.rule_id = rule.id;
  if (rule.xid_table == Rule::XidTable::kXid) c.rule_id = "xid-" + std::to_string(c.xid);
  c.pci = ToLower(re.match.Field("pci"));
  c.text = SanitizeForOutput(rec.message, 1024);
  // Read from the text the controller will see, as its check does (controller/event_classes.cc).
  const RuleReading reading = ReadLineByRule(matcher_.catalog(), rule, c.xid, c.text);
  c.line_class = reading.line_class;
  c.component = reading.component;
  if (rule.learned && c.line_class == LineClass::kNone) c.matched = false;  // the model saw nothing
  return &c;
}

// A record is its head line (the candidate) with the indented lines after it. Where a
// continuation line is a message of its own (a rule matches it alone: a table row printed
// under a driver's line, a second process's "what():" under the first's) and the head is
// one too, the record ends before that line, which starts its own: a rule that matches
// only the continuation never takes the head's line, and the continuation keeps its own
// class (a continuation that only the learned catch-alls match, by its words, is not a
// message of its own). The head is a message of its own when a specific rule
// (kDefaultPriority or more) matches it alone; a wrapper's or catch-all's head ("terminate called after throwing
// ...", explained by its what() line) keeps its continuation lines. Lines that only make
// sense together stay one record: when the rule that wins the whole record matches
// neither the head nor any such line alone, the record is kept whole; and records whose
// head is no candidate (a traceback's frames under their header) never split here.
const LogStream::Confirmed* LogStream::SplitAtOwnMatch(const Confirmed* whole) {
  Reuse& re = *reuse_;
  Record& rec = re.record;
  const uint32_t winner = whole->rule;
  const std::string_view message(rec.message);
  re.part_rules.assign(rec.rules.begin(), rec.rules.begin() + static_cast<std::ptrdiff_t>(rec.head_rules));
  if (!matcher_.Confirm(message.substr(0, rec.head_end), re.part_rules, &re.match)) return whole;
  if (matcher_.catalog().rules()[re.match.rule].priority < kDefaultPriority) return whole;
  bool winner_alone = re.match.rule == winner;
  re.part_matched.assign(rec.parts.size(), UINT32_MAX);  // the rule each part matches alone
  for (size_t i = 0; i < rec.parts.size(); ++i) {
    const Record::Part& p = rec.parts[i];
    const CandidateRules& own = candidates_[p.candidate].rules;
    re.part_rules.assign(own.begin(), own.end());
    if (!matcher_.Confirm(message.substr(p.begin, p.end - p.begin), re.part_rules, &re.match)) continue;
    if (matcher_.catalog().rules()[re.match.rule].learned) continue;  // words alone: no message of its own
    re.part_matched[i] = re.match.rule;
    winner_alone = winner_alone || re.match.rule == winner;
  }
  if (!winner_alone) return whole;
  for (size_t i = 0; i < rec.parts.size(); ++i) {
    if (re.part_matched[i] == UINT32_MAX) continue;
    const Record::Part p = rec.parts[i];
    rec.message.resize(p.begin - 1);  // without the blank that joined the line
    rec.rules.resize(p.rules_before);
    rec.last = p.line - 1;
    rec.parts.clear();
    st_->fold_floor = rec.last;
    return ConfirmRecord();
  }
  return whole;
}

void LogStream::InheritTime(std::string_view buf, size_t line_begin, uint64_t line_no, double* ts, bool* zoned) {
  State& st = *st_;
  InheritedTime& memo = st.inherited;
  // Lines between the last untimed candidate and this one are searched; beyond it, what
  // that search found holds (the candidate itself had no usable time).
  const bool memo_usable = memo.valid && memo.line < line_no && line_no - memo.line <= kTimeLookback &&
                           SameBoot(memo.boot, st.boot);
  const uint64_t steps = memo_usable ? line_no - memo.line - 1 : kTimeLookback;
  bool found = false, hit_start = false;
  uint64_t found_line = 0, found_at = 0;
  size_t b = line_begin;
  for (uint64_t k = 0; k < steps; ++k) {
    size_t pb = PrevLineStart(buf, b);
    if (pb == std::string_view::npos) {
      hit_start = true;
      break;
    }
    std::string_view line = buf.substr(pb, b - 1 - pb);  // LineAt: it ends where the last one began
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const bool boot_known = !std::isnan(st.boot);  // an uptime counts only then
    const TimeSigns signs = LookForTimeSigns(line, boot_known);
    if (signs.clock || signs.uptime) {  // else it certainly has no time (that counts)
      LinePrefix pp = ParseTime(line, options_);
      if (!std::isnan(pp.ts)) {
        *ts = pp.ts;
        *zoned = pp.zoned;
        found = true;
      } else if (!std::isnan(pp.uptime) && !std::isnan(st.boot)) {
        *ts = st.boot + pp.uptime;
        *zoned = st.boot_zoned;
        found = true;
      }
    }
    if (found) {
      found_line = line_no - k - 1;
      found_at = st.trimmed + pb;
      break;
    }
    b = pb;
  }
  if (!found && !hit_start && memo_usable && memo.found && line_no - memo.found_line <= kTimeLookback &&
      memo.found_at >= st.trimmed) {  // still in the buffer, where the search would have reached it
    *ts = memo.ts;
    *zoned = memo.zoned;
    found = true;
    found_line = memo.found_line;
    found_at = memo.found_at;
  }
  memo.valid = true;
  memo.line = line_no;
  memo.boot = st.boot;
  memo.found = found;
  memo.found_line = found_line;
  memo.found_at = found_at;
  memo.ts = *ts;
  memo.zoned = *zoned;
  if (!found) {
    *ts = st.last_ts;
    *zoned = st.last_zoned;
  }
}

void LogStream::EmitFolded(const Sink& sink) {
  for (auto& seen : st_->repeatable)
    if (seen.folding) {
      seen.folding = false;
      sink(std::move(seen.folded));
    }
}

void LogStream::MatchRegion(size_t end, const Sink& sink) {
  const std::string_view buf = View(end);
  const std::string_view region = buf.substr(processed_);
  const size_t region_begin = processed_;
  if (std::isnan(st_->boot) && known_.empty()) LearnBootTime(region);  // FeedRecord's are learnt as given
  const auto& rules = matcher_.catalog().rules();
  State& st = *st_;
  Reuse& re = *reuse_;
  candidates_.clear();
  matcher_.Scan(region, scratch_, candidates_);
  size_t counted_to = 0;
  uint64_t line_no = line_no_;
  for (size_t ci = 0; ci < candidates_.size(); ++ci) {
    const CandidateLine& cand = candidates_[ci];
    line_no += CountNewlines(region.data() + counted_to, region.data() + cand.begin);
    counted_to = cand.begin;
    if (line_no <= st.skip_through) continue;
    const LineSpan at{cand.begin + region_begin, cand.end + region_begin};  // offsets in buf
    Record& rec = re.record;
    std::string_view raw = buf.substr(at.begin, at.end - at.begin);  // LineAt, the end known
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    // A repeat of a line seen a moment ago (the same bytes but for the digits of its times)
    // is what that line was: only its times are read. A record of one line qualifies (the
    // next line is no indented continuation).
    const bool next_indented = at.end + 1 < end && (buf[at.end + 1] == ' ' || buf[at.end + 1] == '\t');
    const LinePrefix* known = KnownPrefix(line_no, raw);
    const uint64_t key = RepeatKey(raw, cand.rules);
    State::Repeatable* set = &st.repeatable[(key % State::kRepeatSets) * State::kRepeatWays];
    State::Repeatable* seen = nullptr;  // the line this record's is, once known
    const Confirmed* c = nullptr;
    bool repeat = false;
    for (size_t w = 0; w < State::kRepeatWays && !next_indented; ++w) {
      State::Repeatable& r = set[w];
      if (r.used && r.key == key && r.raw.size() == raw.size() && r.confirmed->stamp == r.stamp &&
          std::equal(r.rules.begin(), r.rules.end(), cand.rules.begin(), cand.rules.end()) &&
          (known ? SameMessage(raw, *known, r.raw, r.prefix, &rec.prefix)
                 : ReparseRepeat(raw, r.raw, r.prefix, options_, &rec.prefix))) {
        rec.first = rec.last = line_no;
        c = r.confirmed;
        seen = &r;
        repeat = true;
        break;
      }
    }
    if (!repeat) {
      FoldRecord(buf, end, at, cand.rules, line_no, known, st.fold_floor, ci + 1, candidates_, region_begin, options_,
                 rec);
      c = ConfirmRecord();
      if (c->matched && rec.first == line_no && !rec.parts.empty()) c = SplitAtOwnMatch(c);
      if (c->used && rec.first == line_no && rec.last == line_no && !rec.prefix.continuation && !next_indented) {
        seen = set;  // the way used least recently takes this line
        for (size_t w = 1; w < State::kRepeatWays; ++w)
          if (set[w].used_at < seen->used_at) seen = &set[w];
        if (seen->folding) {  // its line's run ends here
          seen->folding = false;
          sink(std::move(seen->folded));
        }
        seen->used = true;
        seen->key = key;
        seen->raw.assign(raw);
        seen->rules.assign(cand.rules.begin(), cand.rules.end());
        seen->prefix = rec.prefix;
        seen->confirmed = c;
        seen->stamp = c->stamp;
        seen->device = nullptr;
      }
    }
    if (seen) seen->used_at = ++st.repeat_clock;
    if (!c->matched) continue;
    if (rec.last > line_no) st.skip_through = rec.last;
    const Rule& rule = rules[c->rule];
    // `seen` describes this record's line: its events may be folded there.
    const bool own_slot = seen != nullptr;

    // Time: the record's own, else kernel uptime on the learnt boot clock (both exact);
    // else inherited from the nearest earlier line that has one (a lower bound only).
    const LinePrefix& prefix = rec.prefix;
    if (!std::isnan(prefix.ts) && !std::isnan(prefix.uptime)) {
      st.boot = prefix.ts - prefix.uptime;
      st.boot_zoned = prefix.zoned;
    }
    double ts = prefix.ts;
    bool zoned = prefix.zoned;
    if (std::isnan(ts) && !std::isnan(prefix.uptime) && !std::isnan(st.boot)) {
      ts = st.boot + prefix.uptime;
      zoned = st.boot_zoned;
    }
    const bool exact = !std::isnan(ts);
    if (!exact) InheritTime(buf, at.begin, line_no, &ts, &zoned);
    if (!std::isnan(ts)) {
      st.last_ts = ts;
      st.last_zoned = zoned;
    }

    // The class: a detail line takes the class of the report of its device it belongs to;
    // without one (the report's own line unknown or not kept), the rule's own, if any.
    LineClass line_class = c->line_class;
    Component component = c->component;
    State::DeviceReport* device = nullptr;
    if (!c->pci.empty()) {
      device = own_slot ? seen->device : nullptr;
      if (!device) {
        auto it = st.last_by_device.find(c->pci);
        if (it != st.last_by_device.end()) device = &it->second;
      }
    }
    if (rule.inherit) {
      const bool has_report = device && line_no - device->line <= kInheritWindow;
      if (has_report) {
        line_class = device->line_class;
        component = device->component;
      } else if (rule.line_class == LineClass::kNone) {
        continue;
      }
    }
    if (!c->pci.empty()) {
      if (!device) device = &st.last_by_device.emplace(c->pci, State::DeviceReport()).first->second;
      *device = {line_no, line_class, component};
      if (own_slot) seen->device = device;  // map nodes stay where they are
    }

    const int rank = prefix.rank >= 0 ? prefix.rank : c->field_rank;
    const int side = options_.window_side ? options_.window_side(ts, exact, zoned) : 0;
    if (options_.fold_repeats && own_slot && repeat && seen->folding && seen->folded.line_class == line_class &&
        seen->folded.component == component && seen->folded.ts_exact == exact && seen->folded.ts_zoned == zoned &&
        seen->folded.rank == rank && seen->folded.nccl_device == prefix.nccl_device && seen->folded_side == side) {
      AddRecord(seen->folded, line_no, ts, c->text);  // the same evidence once more
      continue;
    }

    // Every field is set: the event's buffers are reused from the last one when the sink
    // left them (an aggregating sink keeps only the first of each evidence).
    LogEvent& ev = re.event;
    ev.rule = c->rule;
    ev.rule_id.assign(c->rule_id);
    ev.line_class = line_class;
    ev.component = component;
    ev.cascade = rule.cascade;
    ev.yields_to_user = rule.yields_to_user;
    ev.fallback = rule.fallback;
    ev.config_key.assign(rule.config_key);
    ev.line = line_no;
    ev.first_line = rec.first;
    ev.last_line = rec.last;
    ev.traceback_line = rule.fold_traceback ? TracebackHeader(buf, at.begin, line_no, prefix.rank, options_) : 0;
    ev.ts = ts;
    ev.ts_exact = exact;
    ev.ts_zoned = zoned;
    ev.rank = rank;
    ev.nccl_device = prefix.nccl_device;
    ev.xid = c->xid;
    ev.fields = c->fields;
    ev.text.assign(c->text);
    ev.count = 1;
    ev.latest_line = 0;
    ev.latest_ts = NAN;
    ev.uptime = std::isnan(ts) ? prefix.uptime : NAN;
    ev.samples.clear();
    if (options_.fold_repeats && own_slot) {
      // The first record of what may become a run of repeats: held until the run ends.
      if (seen->folding) sink(std::move(seen->folded));
      seen->folded = ev;
      seen->folded_side = side;
      seen->folding = true;
      continue;
    }
    sink(std::move(ev));
  }
  const uint64_t lines = line_no - line_no_ + CountNewlines(region.data() + counted_to, region.data() + region.size());
  line_no_ += lines;
  while (!known_.empty() && known_.front().first < line_no_) known_.pop_front();
  stats_.lines += lines;
  processed_ = end;
}

Scanner::Scanner(const Matcher& matcher, ScanOptions options) : stream_(matcher, options) {}

ScanStats Scanner::ScanFile(const std::string& path, const Sink& sink) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    ScanStats s;
    s.status = err == ENOENT ? Status::NotFound(path + ": " + std::strerror(err))
                             : Status::IOError(path + ": " + std::strerror(err));
    return s;
  }
#ifdef POSIX_FADV_SEQUENTIAL
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  ScanStats s = ScanFd(fd, sink);
  ::close(fd);
  return s;
}

ScanStats Scanner::ScanText(std::string_view text, const Sink& sink) {
  stream_.Reset();
  stream_.Feed(text, sink);
  stream_.Flush(sink);
  return stream_.stats();
}

ScanStats Scanner::ScanFd(int fd, const Sink& sink) {
  stream_.Reset();
  Status status = stream_.FeedFd(fd, sink);
  stream_.Flush(sink);
  ScanStats stats = stream_.stats();
  stats.status = status;
  return stats;
}

}  // namespace aegis
