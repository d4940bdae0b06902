// Log scanning. A LogStream reads one log as its bytes arrive (a whole file at once, or a
// followed file in small appends) and emits a LogEvent for every record a rule confirms,
// exactly once, in line order, whatever the sizes of the pieces it is fed. It keeps what
// a record needs from before the piece (a look-back window for folding continued kernel
// messages and Python tracebacks, for times inherited from earlier lines; the learnt boot
// time; the last event per device) and holds back the last record until the next line
// shows it complete (or Flush). Memory stays bounded (chunk, look-back and line limits);
// a line longer than max_line_bytes is cut (its head is still matched) and counted.
// Repeats are cheap (a log storm): a candidate line that repeats one seen a moment ago but
// for the digits of its time stamp is that line again, and only its time is read; a
// message the rules confirmed a moment ago skips RE2; the event handed to the sink is
// built in buffers reused from the last one (a sink that does not move from it costs no
// allocation); with fold_repeats the repeats are added to their line's event here.
// Never throws on content. Thread-compatible: one LogStream per thread.
// Scanner reads whole files through a LogStream it reuses (one per thread).
#pragma once
#include <sys/types.h>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "common/status.h"
#include "logs/event.h"
#include "logs/line_prefix.h"
#include "match/matcher.h"

namespace aegis {

struct ScanOptions {
  int year = 1970;                    // for timestamps without a year
  double ref_time = NAN;              // when known: a yearless time more than half a year after it is last year's
  size_t chunk_bytes = 4u << 20;      // most bytes matched in one pass
  size_t max_line_bytes = 1u << 20;   // longer lines are cut to this many bytes
  size_t lookback_bytes = 64u << 10;  // kept from before a piece, for folding and inherited times
  bool host_labels = false;           // the job's output: pdsh's "host: " may lead any line (line_prefix.h)
  // A log storm folded as it is scanned: a record that repeats a line seen a moment ago
  // (the same bytes but for the digits of its times) and is the same evidence as that
  // line's event (logs/event_aggregate.h) is added to it (a count, its last line and time,
  // the first few as samples) instead of being handed out. Such an event reaches the sink
  // when its run ends, at the latest at Flush: events then come in order of their first
  // line only per run. Off where each record is needed on its own, in line order (the
  // agent's streams, `aegis classify`).
  bool fold_repeats = false;
  // With fold_repeats: the side of the job's time window a time is on (engine/job_window.h's
  // WindowSide); records on different sides are not folded together. Empty: no job known.
  std::function<int(double ts, bool exact, bool zoned)> window_side;
};

struct ScanStats {
  uint64_t bytes = 0;
  uint64_t lines = 0;
  uint64_t cut_lines = 0;  // lines longer than max_line_bytes
  double last_uptime = NAN;  // the kernel uptime of the log's newest line that has one (at its end)
  Status status;           // an I/O error; ok when the whole input was read
};

class LogStream {
 public:
  using Sink = std::function<void(LogEvent&&)>;
  LogStream(const Matcher& matcher, ScanOptions options);
  ~LogStream();
  LogStream(const LogStream&) = delete;
  LogStream& operator=(const LogStream&) = delete;

  // The next bytes of the log (any size, any split). Events of complete records reach
  // `sink` in line order. The sink may move from the event it is given, or leave it
  // (its buffers then serve the next one).
  void Feed(std::string_view bytes, const Sink& sink);
  // Reads everything `fd` has now (to its end) into the stream. An I/O error is returned.
  Status FeedFd(int fd, const Sink& sink);
  // One whole line (no '\n') whose prefix its reader already knows (a kernel record: the
  // wall time, the uptime and where the message starts, as decoded from kmsg or the
  // journal): appended as Feed would append it, and matched with `prefix` instead of a
  // prefix parsed back from the line's text. A stream is fed by Feed / FeedFd or by
  // FeedRecord, not both (the known prefixes are kept by the stream's line numbers).
  void FeedRecord(std::string_view line, const LinePrefix& prefix, const Sink& sink);
  // The log ended (end_of_input), or paused long enough: the record held back for
  // continuation lines is emitted, and at the end also a last line without '\n'.
  void Flush(const Sink& sink, bool end_of_input = true);
  // Starts a new log, keeping the buffers' memory.
  void Reset();

  const ScanStats& stats() const { return stats_; }

 private:
  struct State;
  struct Confirmed;
  struct Reuse;
  // The bytes [old_size, size_) were just added to the buffer: cut an overlong last line,
  // then match every record that is complete.
  void Appended(size_t old_size, const Sink& sink);
  char* Tail(size_t n);  // room for n more bytes at the end of the buffer
  // Cuts each line of buf_[processed_, last_nl] longer than max_line_bytes to its head
  // (counted in cut_lines); returns where last_nl is afterwards.
  size_t CutLongLines(size_t last_nl);
  // Matches the lines of buf_[processed_, end) and advances processed_.
  void MatchRegion(size_t end, const Sink& sink);
  void TrimLookback();
  // Where the record that may still get continuation lines starts (npos: none held).
  size_t HoldBackFrom(size_t end) const;
  void LearnBootTime(std::string_view region);
  void NoteLastUptime(size_t end);  // stats_.last_uptime from the lines before `end`
  // What the rules make of the record being built: remembered for its message, or
  // confirmed now (null when no rule matches).
  const Confirmed* ConfirmRecord();
  // `whole` confirmed the record being built: the record ends before a continuation line
  // that is a message of its own, when the head is one too (scanner.cc says when).
  const Confirmed* SplitAtOwnMatch(const Confirmed* whole);
  // An untimed record's time, inherited from the nearest earlier line that has one.
  void InheritTime(std::string_view buf, size_t line_begin, uint64_t line_no, double* ts, bool* zoned);
  // The events being folded (ScanOptions::fold_repeats) go to the sink.
  void EmitFolded(const Sink& sink);
  // The prefix FeedRecord was given for line `line_no` when it still fits the line as
  // buffered (`line`: a cut line may have lost the message); null: parse the line.
  const LinePrefix* KnownPrefix(uint64_t line_no, std::string_view line) const;

  const Matcher& matcher_;
  ScanOptions options_;
  Matcher::Scratch scratch_;
  std::vector<CandidateLine> candidates_;
  // [look-back | lines not matched yet | partial line]; grown without zero-filling.
  std::unique_ptr<char[]> buf_;
  size_t size_ = 0, cap_ = 0;
  std::string_view View(size_t end) const { return std::string_view(buf_.get(), end); }
  size_t processed_ = 0;    // buf_ before this offset was matched (look-back only)
  uint64_t line_no_ = 1;    // line number of the line at processed_
  bool skipping_ = false;   // inside a cut line: drop bytes until its '\n'
  // FeedRecord's prefixes of the lines not matched yet, by line number (ascending).
  std::deque<std::pair<uint64_t, LinePrefix>> known_;
  uint64_t fed_lines_ = 0;  // lines FeedRecord appended
  ScanStats stats_;
  std::unique_ptr<State> st_;
  std::unique_ptr<Reuse> reuse_;  // kept by Reset
};

class Scanner {
 public:
  using Sink = LogStream::Sink;
  Scanner(const Matcher& matcher, ScanOptions options);
  // Scans the file at `path`; events reach `sink` in line order.
  ScanStats ScanFile(const std::string& path, const Sink& sink);
  ScanStats ScanFd(int fd, const Sink& sink);
  // Scans text held in memory (tests, fuzzing, the CLI's standard input).
  ScanStats ScanText(std::string_view text, const Sink& sink);

 private:
  LogStream stream_;
};

}  // namespace aegis
