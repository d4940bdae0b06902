#include "logs/scanner.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include "common/text.h"
#include "logs/line_prefix.h"

namespace aegis {

// What a log's records need from before the piece being matched.
struct LogStream::State {
  double boot = NAN;          // epoch time of kernel uptime 0, learnt from lines carrying both
  bool boot_zoned = false;
  int boot_probe_lines = 0;   // lines examined for it (the first few hundred of the log)
  double last_ts = NAN;       // newest time seen on a matched line (for lines without one)
  bool last_zoned = false;
  uint64_t skip_through = 0;  // candidates up to this line were folded into an earlier event
  std::map<std::string, std::pair<uint64_t, LogEvent>> last_by_device;  // for inherit rules
};

namespace {

constexpr int kMaxFoldLines = 16;
constexpr int kMaxTracebackLines = 400;
constexpr int kTimeLookback = 64;
constexpr int kBootProbeLines = 256;
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
  size_t nl = buf.rfind('\n', end - 1);
  return nl == std::string_view::npos ? 0 : nl + 1;
}

// Offset of the line after the one starting at `begin` (buf.size() at the end).
size_t NextLineStart(std::string_view buf, size_t begin) {
  size_t nl = buf.find('\n', begin);
  return nl == std::string_view::npos ? buf.size() : nl + 1;
}

bool Indented(std::string_view line) { return !line.empty() && (line[0] == ' ' || line[0] == '\t'); }

// A record folded from a candidate line and its continuation lines.
struct Record {
  std::string message;
  std::vector<uint32_t> rules;
  uint64_t first = 0, last = 0;
  LinePrefix prefix;  // of the candidate line, with the time of the record's head line
};

}  // namespace

LogStream::LogStream(const Matcher& matcher, ScanOptions options)
    : matcher_(matcher), options_(options), scratch_(matcher.NewScratch()), st_(std::make_unique<State>()) {}

LogStream::~LogStream() = default;

void LogStream::Reset() {
  size_ = 0;  // keeps the buffer's memory
  processed_ = 0;
  line_no_ = 1;
  skipping_ = false;
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
  const size_t end = HoldBackFrom(last_nl + 1);
  if (end > processed_) MatchRegion(end, sink);
  TrimLookback();
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
  TrimLookback();
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
  if (processed_ <= options_.lookback_bytes) return;
  size_t cut = processed_ - options_.lookback_bytes;
  cut = NextLineStart(View(processed_), cut);
  std::memmove(buf_.get(), buf_.get() + cut, size_ - cut);
  size_ -= cut;
  processed_ -= cut;
}

void LogStream::LearnBootTime(std::string_view region) {
  // Kernel logs: the boot time from any early line that has a wall time and an uptime.
  for (size_t b = 0; b < region.size() && st_->boot_probe_lines < kBootProbeLines && std::isnan(st_->boot);
       b = NextLineStart(region, b)) {
    ++st_->boot_probe_lines;
    LinePrefix p = ParsePrefix(LineAt(region, b), options_);
    if (!std::isnan(p.ts) && !std::isnan(p.uptime)) {
      st_->boot = p.ts - p.uptime;
      st_->boot_zoned = p.zoned;
    }
  }
}

namespace {

// Folds the record around the candidate at `begin` (line `line_no`): indented lines
// before it that it continues, and indented lines after it (up to `limit`) that continue
// it, with the candidate rules of those lines.
Record FoldRecord(std::string_view buf, size_t limit, const CandidateLine& cand, uint64_t line_no, size_t next_ci,
                  const std::vector<CandidateLine>& candidates, size_t region_begin, const ScanOptions& o) {
  Record r;
  std::string_view raw = LineAt(buf, cand.begin);
  r.prefix = ParsePrefix(raw, o);
  r.rules = cand.rules;
  r.message.assign(raw.substr(r.prefix.message_offset));
  r.first = r.last = line_no;
  if (r.prefix.continuation) {
    std::vector<std::string_view> before;
    size_t b = cand.begin;
    for (int k = 0; k < kMaxFoldLines; ++k) {
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
    r.message = head + r.message;
  }
  size_t b = cand.end + 1;
  for (int k = 0; k < kMaxFoldLines && b < limit; ++k) {
    std::string_view nl = LineAt(buf, b);
    if (!Indented(nl)) break;
    LinePrefix np = ParsePrefix(nl, o);
    if (!np.continuation) break;
    r.message += ' ';
    r.message.append(nl.substr(np.message_offset));
    ++r.last;
    while (next_ci < candidates.size() && candidates[next_ci].begin + region_begin < b) ++next_ci;
    if (next_ci < candidates.size() && candidates[next_ci].begin + region_begin == b)
      for (uint32_t rule : candidates[next_ci].rules)
        if (std::find(r.rules.begin(), r.rules.end(), rule) == r.rules.end()) r.rules.push_back(rule);
    b = NextLineStart(buf, b);
  }
  return r;
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

void LogStream::MatchRegion(size_t end, const Sink& sink) {
  const std::string_view buf = View(end);
  const std::string_view region = buf.substr(processed_);
  const size_t region_begin = processed_;
  if (std::isnan(st_->boot)) LearnBootTime(region);
  const auto& rules = matcher_.catalog().rules();
  State& st = *st_;
  candidates_.clear();
  matcher_.Scan(region, scratch_, candidates_);
  size_t counted_to = 0;
  uint64_t line_no = line_no_;
  for (size_t ci = 0; ci < candidates_.size(); ++ci) {
    const CandidateLine& cand = candidates_[ci];
    line_no += CountNewlines(region.data() + counted_to, region.data() + cand.begin);
    counted_to = cand.begin;
    if (line_no <= st.skip_through) continue;
    CandidateLine at = cand;  // offsets in buf
    at.begin += static_cast<uint32_t>(region_begin);
    at.end += static_cast<uint32_t>(region_begin);
    Record rec = FoldRecord(buf, end, at, line_no, ci + 1, candidates_, region_begin, options_);

    RuleMatch m;
    if (!matcher_.Confirm(rec.message, rec.rules, &m)) continue;
    if (rec.last > line_no) st.skip_through = rec.last;
    const Rule& rule = rules[m.rule];

    LogEvent ev;
    ev.rule = m.rule;
    ev.rule_id = rule.id;
    ev.line_class = rule.line_class;
    ev.component = ParseComponent(rule.component).value_or(Component::kHost);
    ev.cascade = rule.cascade;
    ev.yields_to_user = rule.yields_to_user;
    ev.fallback = rule.fallback;
    ev.config_key = rule.config_key;
    ev.line = line_no;
    ev.first_line = rec.first;
    ev.last_line = rec.last;
    ev.rank = rec.prefix.rank;
    ev.nccl_device = rec.prefix.nccl_device;
    ev.fields = std::move(m.fields);
    if (auto r = ev.Field("rank"); !r.empty() && ev.rank < 0)
      if (auto v = ParseInt(r)) ev.rank = static_cast<int>(*v);
    if (auto x = ev.Field("xid"); !x.empty())
      if (auto v = ParseInt(x)) ev.xid = static_cast<int>(*v);

    // Time: the record's own, else kernel uptime on the learnt boot clock (both exact);
    // else inherited from the nearest earlier line that has one (a lower bound only).
    const LinePrefix& prefix = rec.prefix;
    if (!std::isnan(prefix.ts) && !std::isnan(prefix.uptime)) {
      st.boot = prefix.ts - prefix.uptime;
      st.boot_zoned = prefix.zoned;
    }
    ev.ts = prefix.ts;
    ev.ts_zoned = prefix.zoned;
    if (std::isnan(ev.ts) && !std::isnan(prefix.uptime) && !std::isnan(st.boot)) {
      ev.ts = st.boot + prefix.uptime;
      ev.ts_zoned = st.boot_zoned;
    }
    ev.ts_exact = !std::isnan(ev.ts);
    if (std::isnan(ev.ts)) {
      size_t b = at.begin;
      for (int k = 0; k < kTimeLookback; ++k) {
        size_t pb = PrevLineStart(buf, b);
        if (pb == std::string_view::npos) break;
        LinePrefix pp = ParsePrefix(LineAt(buf, pb), options_);
        if (!std::isnan(pp.ts)) {
          ev.ts = pp.ts;
          ev.ts_zoned = pp.zoned;
          break;
        }
        if (!std::isnan(pp.uptime) && !std::isnan(st.boot)) {
          ev.ts = st.boot + pp.uptime;
          ev.ts_zoned = st.boot_zoned;
          break;
        }
        b = pb;
      }
      if (std::isnan(ev.ts)) {
        ev.ts = st.last_ts;
        ev.ts_zoned = st.last_zoned;
      }
    }
    if (!std::isnan(ev.ts)) {
      st.last_ts = ev.ts;
      st.last_zoned = ev.ts_zoned;
    }

    if (rule.xid_table != Rule::XidTable::kNone) {
      if (rule.xid_table == Rule::XidTable::kXid) ev.rule_id = "xid-" + std::to_string(ev.xid);
      XidDecision d = matcher_.catalog().ClassifyXid(rule.xid_table, ev.xid, rec.message, rule.line_class, rule.component);
      ev.line_class = d.line_class;
      ev.component = ParseComponent(d.component).value_or(ev.component);
    }
    std::string pci = ToLower(ev.Field("pci"));
    if (rule.inherit) {
      // A detail line takes the class of the report it belongs to; without one (the
      // report's own line unknown or not kept), the rule's own class, if it has one.
      auto it = st.last_by_device.find(pci);
      const bool has_report = !pci.empty() && it != st.last_by_device.end() && line_no - it->second.first <= kInheritWindow;
      if (has_report) {
        ev.line_class = it->second.second.line_class;
        ev.component = it->second.second.component;
      } else if (rule.line_class == LineClass::kNone) {
        continue;
      }
    }
    if (rule.fold_traceback) ev.traceback_line = TracebackHeader(buf, at.begin, line_no, prefix.rank, options_);
    if (!pci.empty()) st.last_by_device[pci] = {line_no, ev};
    ev.text = SanitizeForOutput(rec.message, 1024);
    sink(std::move(ev));
  }
  const uint64_t lines = line_no - line_no_ + CountNewlines(region.data() + counted_to, region.data() + region.size());
  line_no_ += lines;
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
