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

struct Scanner::State {
  double boot = NAN;        // epoch time of kernel uptime 0, learnt from lines carrying both
  bool boot_probed = false;
  double last_ts = NAN;     // newest time seen on a matched line (for lines without one)
  uint64_t skip_through = 0;  // candidates up to this line were folded into an earlier event
  std::map<std::string, std::pair<uint64_t, LogEvent>> last_by_device;  // for inherit rules
};

namespace {

constexpr int kMaxFoldLines = 16;
constexpr int kMaxTracebackLines = 400;
constexpr int kTimeLookback = 64;
// A time printed this close above an untimed line (PyTorch's warning, then NCCL's WARN)
// is taken as the line's own.
constexpr int kReliableLookback = 2;
constexpr uint64_t kInheritWindow = 32;

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

std::string NormalizePci(std::string_view pci) { return ToLower(pci); }

}  // namespace

Scanner::Scanner(const Matcher& matcher, ScanOptions options)
    : matcher_(matcher), options_(options), scratch_(matcher.NewScratch()) {}

ScanStats Scanner::ScanFile(const std::string& path, const Sink& sink) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    ScanStats s;
    s.error = std::strerror(errno);
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
  // The same streaming path as files, fed from memory.
  size_t pos = 0;
  return ScanSource(
      [&](char* dst, size_t max) {
        const size_t n = std::min(max, text.size() - pos);
        std::memcpy(dst, text.data() + pos, n);
        pos += n;
        return static_cast<ssize_t>(n);
      },
      sink);
}

ScanStats Scanner::ScanFd(int fd, const Sink& sink) {
  return ScanSource(
      [fd](char* dst, size_t max) {
        ssize_t n;
        do n = ::read(fd, dst, max);
        while (n < 0 && errno == EINTR);
        return n;
      },
      sink);
}

ScanStats Scanner::ScanSource(const Reader& read, const Sink& sink) {
  ScanStats stats;
  State st;
  std::string& buf = buffer_;
  buf.resize(options_.chunk_bytes + options_.max_line_bytes + 1);  // once per scanner: no memset per file
  size_t filled = 0;          // bytes in buf (carry of an unfinished line + new data)
  bool skipping = false;      // inside a cut line: drop bytes until its '\n'
  uint64_t line_no = 1;
  bool last_byte_newline = true;
  while (true) {
    ssize_t n = read(buf.data() + filled, options_.chunk_bytes);
    if (n < 0) {
      stats.error = std::strerror(errno);
      break;
    }
    if (n == 0) break;
    stats.bytes += static_cast<uint64_t>(n);
    last_byte_newline = buf[filled + static_cast<size_t>(n) - 1] == '\n';
    size_t start = filled;
    filled += static_cast<size_t>(n);
    if (skipping) {
      void* nl = memchr(buf.data() + start, '\n', filled - start);
      if (!nl) {
        filled = start;  // still inside the cut line
        continue;
      }
      size_t after = static_cast<size_t>(static_cast<char*>(nl) - buf.data()) + 1;
      std::memmove(buf.data() + start, buf.data() + after, filled - after);
      filled -= after - start;
      skipping = false;
      ++line_no;  // the cut line ended here; its head was already processed
    }
    std::string_view view(buf.data(), filled);
    size_t last_nl = view.rfind('\n');
    if (last_nl == std::string_view::npos) {
      if (filled > options_.max_line_bytes) {
        // A single line longer than the limit: match its head, drop the rest.
        ++stats.cut_lines;
        ProcessBuffer(view.substr(0, options_.max_line_bytes), line_no, st, sink);
        filled = 0;
        skipping = true;
      }
      continue;
    }
    std::string_view whole = view.substr(0, last_nl + 1);
    // Lines longer than the limit inside a chunk are matched whole: the chunk bounds them.
    line_no += ProcessBuffer(whole, line_no, st, sink);
    size_t rest = filled - (last_nl + 1);
    std::memmove(buf.data(), buf.data() + last_nl + 1, rest);
    filled = rest;
    if (filled > options_.max_line_bytes) {
      ++stats.cut_lines;
      ProcessBuffer(std::string_view(buf.data(), options_.max_line_bytes), line_no, st, sink);
      filled = 0;
      skipping = true;
    }
  }
  if (filled > 0 && !skipping) {
    line_no += ProcessBuffer(std::string_view(buf.data(), filled), line_no, st, sink);
  }
  stats.lines = line_no - 1 + ((!last_byte_newline || skipping) && stats.bytes > 0 ? 1 : 0);
  if (skipping && last_byte_newline) stats.lines = line_no - 1;
  return stats;
}

uint64_t Scanner::ProcessBuffer(std::string_view buf, uint64_t first_line_no, State& st, const Sink& sink) {
  const auto& rules = matcher_.catalog().rules();
  if (!st.boot_probed) {
    // Kernel logs: learn the boot time from any early line that has a wall time and an uptime.
    st.boot_probed = true;
    size_t b = 0;
    for (int i = 0; i < 256 && b < buf.size(); ++i) {
      std::string_view l = LineAt(buf, b);
      LinePrefix p = ParseLinePrefix(l, options_.year);
      if (!std::isnan(p.ts) && !std::isnan(p.uptime)) {
        st.boot = p.ts - p.uptime;
        break;
      }
      b += l.size() + 1;
      while (b < buf.size() && buf[b - 1] != '\n') ++b;
    }
  }
  candidates_.clear();
  matcher_.Scan(buf, scratch_, candidates_);
  size_t counted_to = 0;
  uint64_t line_no = first_line_no;
  for (size_t ci = 0; ci < candidates_.size(); ++ci) {
    const CandidateLine& cand = candidates_[ci];
    line_no += CountNewlines(buf.data() + counted_to, buf.data() + cand.begin);
    counted_to = cand.begin;
    if (line_no <= st.skip_through) continue;

    std::string_view raw = LineAt(buf, cand.begin);
    LinePrefix prefix = ParseLinePrefix(raw, options_.year);
    std::vector<uint32_t> rule_set = cand.rules;
    std::string message(raw.substr(prefix.message_offset));
    uint64_t first = line_no, last = line_no;

    // Fold an indented continuation into the record it continues ...
    if (prefix.continuation) {
      std::vector<std::string> before;
      size_t b = cand.begin;
      for (int k = 0; k < kMaxFoldLines; ++k) {
        size_t pb = PrevLineStart(buf, b);
        if (pb == std::string_view::npos) break;
        std::string_view pl = LineAt(buf, pb);
        LinePrefix pp = ParseLinePrefix(pl, options_.year);
        before.emplace_back(pl.substr(pp.message_offset));
        --first;
        b = pb;
        if (!pp.continuation) {
          if (std::isnan(prefix.ts)) prefix.ts = pp.ts;
          if (std::isnan(prefix.uptime)) prefix.uptime = pp.uptime;
          break;
        }
      }
      for (auto& s : before) message = s + " " + message;
    }
    // ... and the indented lines that continue this one into it.
    {
      size_t b = cand.end + 1;
      size_t next_ci = ci + 1;
      for (int k = 0; k < kMaxFoldLines && b < buf.size(); ++k) {
        std::string_view nl = LineAt(buf, b);
        if (nl.empty() || (nl[0] != ' ' && nl[0] != '\t')) break;
        LinePrefix np = ParseLinePrefix(nl, options_.year);
        if (!np.continuation) break;
        message += " ";
        message += nl.substr(np.message_offset);
        ++last;
        while (next_ci < candidates_.size() && candidates_[next_ci].begin < b) ++next_ci;
        if (next_ci < candidates_.size() && candidates_[next_ci].begin == b)
          for (uint32_t r : candidates_[next_ci].rules)
            if (std::find(rule_set.begin(), rule_set.end(), r) == rule_set.end()) rule_set.push_back(r);
        b += nl.size() + 1;
        while (b < buf.size() && buf[b - 1] != '\n') ++b;
      }
    }

    RuleMatch m;
    if (!matcher_.Confirm(message, rule_set, &m)) continue;
    if (last > line_no) st.skip_through = last;
    const Rule& rule = rules[m.rule];

    LogEvent ev;
    ev.rule = m.rule;
    ev.rule_id = rule.id;
    ev.line_class = rule.line_class;
    ev.component = rule.component;
    ev.cascade = rule.cascade;
    ev.yields_to_user = rule.yields_to_user;
    ev.config_key = rule.config_key;
    ev.line = line_no;
    ev.first_line = first;
    ev.last_line = last;
    ev.rank = prefix.rank;
    ev.nccl_device = prefix.nccl_device;
    ev.fields = std::move(m.fields);
    if (auto r = ev.Field("rank"); !r.empty() && ev.rank < 0)
      if (auto v = ParseInt(r)) ev.rank = static_cast<int>(*v);
    if (auto x = ev.Field("xid"); !x.empty())
      if (auto v = ParseInt(x)) ev.xid = static_cast<int>(*v);

    // Time: the line's own, else kernel uptime on the learnt boot clock, else the newest
    // time of a nearby earlier line.
    if (!std::isnan(prefix.ts) && !std::isnan(prefix.uptime)) st.boot = prefix.ts - prefix.uptime;
    ev.ts = prefix.ts;
    if (std::isnan(ev.ts) && !std::isnan(prefix.uptime) && !std::isnan(st.boot)) ev.ts = st.boot + prefix.uptime;
    ev.ts_reliable = !std::isnan(ev.ts);
    if (std::isnan(ev.ts)) {
      size_t b = cand.begin;
      for (int k = 0; k < kTimeLookback; ++k) {
        size_t pb = PrevLineStart(buf, b);
        if (pb == std::string_view::npos) break;
        LinePrefix pp = ParseLinePrefix(LineAt(buf, pb), options_.year);
        if (!std::isnan(pp.ts)) {
          ev.ts = pp.ts;
          ev.ts_reliable = k < kReliableLookback;
          break;
        }
        if (!std::isnan(pp.uptime) && !std::isnan(st.boot)) {
          ev.ts = st.boot + pp.uptime;
          break;
        }
        b = pb;
      }
      if (std::isnan(ev.ts)) ev.ts = st.last_ts;
    }
    if (!std::isnan(ev.ts)) st.last_ts = ev.ts;

    if (rule.xid_table != Rule::XidTable::kNone) {
      if (rule.xid_table == Rule::XidTable::kXid) ev.rule_id = "xid-" + std::to_string(ev.xid);
      XidDecision d = matcher_.catalog().ClassifyXid(rule.xid_table, ev.xid, message, rule.line_class, rule.component);
      ev.line_class = d.line_class;
      ev.component = std::move(d.component);
    }
    std::string pci = NormalizePci(ev.Field("pci"));
    if (rule.inherit) {
      auto it = st.last_by_device.find(pci);
      if (pci.empty() || it == st.last_by_device.end() || line_no - it->second.first > kInheritWindow) continue;
      ev.line_class = it->second.second.line_class;
      ev.component = it->second.second.component;
    }
    if (rule.fold_traceback) {
      // Walk back over the frames of the same process to the traceback header.
      size_t b = cand.begin;
      uint64_t ln = line_no;
      for (int k = 0; k < kMaxTracebackLines; ++k) {
        size_t pb = PrevLineStart(buf, b);
        if (pb == std::string_view::npos) break;
        --ln;
        std::string_view pl = LineAt(buf, pb);
        LinePrefix pp = ParseLinePrefix(pl, options_.year);
        b = pb;
        if (pp.rank != prefix.rank) continue;  // another process's line, interleaved
        std::string_view pm = pl.substr(pp.message_offset);
        if (StartsWith(pm, "Traceback (most recent call last)")) {
          ev.traceback_line = ln;
          break;
        }
        bool frame = StartsWith(pm, "File \"") || StartsWith(pm, "^") || StartsWith(pm, "~") ||
                     (pp.message_offset > 0 && pp.message_offset < pl.size() &&
                      (pl[pp.message_offset - 1] == ' ' || pl[pp.message_offset - 1] == '\t')) ||
                     pm.empty();
        if (!frame) break;
      }
    }
    if (!pci.empty()) st.last_by_device[pci] = {line_no, ev};
    ev.text = SanitizeForOutput(message, 1024);
    sink(std::move(ev));
  }
  // Newlines after the last candidate complete this buffer's line count.
  return line_no - first_line_no + CountNewlines(buf.data() + counted_to, buf.data() + buf.size());
}

}  // namespace aegis
