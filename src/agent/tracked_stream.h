// A LogStream that knows where it is in its source, so that a restart resumes without
// losing a line and without handing out an event twice.
//
// The scanner holds back the last record (a line and its indented continuation lines,
// at most 17 lines) until the next line shows it complete, and says nothing about how far
// it got. So a checkpoint (where to resume) is taken only where every line before it is
// known to be matched: after an idle flush, or 64 complete lines (well past the hold-back)
// before the newest line fed. Resuming there re-reads up to those lines; the events they
// give again are dropped here, because the checkpoint also carries the source line of the
// last event handed out (emitted_through). Line numbers are the source's own ("local":
// the file's lines from 1, or records since the checkpoint chain began); the events handed
// out carry line numbers of the bundle file the controller will export instead (one
// kernel.log and one train.log per node, fed by several sources), taken from a
// VirtualLines counter that never hands out a number twice, even across crashes.
//
// Rules reloads: the stream keeps the Rules it was built with (a shared_ptr) and moves
// to new ones at its next idle point with no partial line, losing only its look-back.
//
// Read times: each event carries when its record's first line was read (the Feed call
// that brought the line's first bytes), not when the held-back record was emitted: the
// controller places a line without a time of its own by it (docs/agent.md, "Stamps").
// Thread-compatible: one thread feeds a stream.
#pragma once
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>

#include "common/status.h"
#include "env/env.h"
#include "logs/event.h"
#include "logs/scanner.h"
#include "match/live_rules.h"

namespace aegis::agent {

// Where a source stands right after a line: a byte offset (files), the next sequence
// number (kmsg) or a journal cursor (journald).
struct SourcePosition {
  uint64_t offset = 0;
  std::string cursor;
  bool operator==(const SourcePosition&) const = default;
};

struct Checkpoint {
  SourcePosition pos;            // resume reading here
  uint64_t line = 1;             // local number of the line starting at pos
  uint64_t emitted_through = 0;  // local line of the last event handed out
};

// Line numbers of one bundle file (nodes/NODE/kernel.log or train.log). Numbers are
// reserved on disk in blocks before use, so a crash never hands one out twice (it skips
// the rest of the block instead). Thread-compatible.
class VirtualLines {
 public:
  explicit VirtualLines(std::string path, uint64_t block = 1u << 16) : path_(std::move(path)), block_(block) {}
  Status Load();
  // First of n consecutive new numbers.
  uint64_t Reserve(uint64_t n);
  // Clean shutdown: the unused rest of the block is given back.
  Status Close();
  uint64_t next() const { return next_; }

 private:
  Status Persist(uint64_t through);
  std::string path_;
  uint64_t block_;
  uint64_t next_ = 1;
  uint64_t reserved_through_ = 0;
};

struct TrackedEvent {
  LogEvent event;              // line numbers of the bundle file
  uint64_t local_line = 0;     // the matched line, in the source's numbering
  SourcePosition after;        // record mode: the position after the matched line
  double read_at = 0;          // epoch seconds: when the record's first line was read
};

class TrackedLogStream {
 public:
  using Sink = std::function<void(TrackedEvent&&)>;
  static constexpr uint64_t kSafetyLines = 64;

  // `job_output`: the source is the job's own output (pdsh's "host: " labels may lead any
  // line, ScanOptions::host_labels), not a kernel log. `env` (not owned; null:
  // Env::Default()): its wall clock stamps reads made "now" and gives the year of yearless
  // times.
  TrackedLogStream(std::shared_ptr<const Rules> rules, VirtualLines* lines, Checkpoint start, bool job_output = false,
                   Env* env = nullptr);
  ~TrackedLogStream();

  // Byte mode (files): the next bytes of the source, any split, read at `read_at` (epoch
  // seconds; NaN: now).
  void FeedBytes(std::string_view bytes, const Sink& sink, double read_at = NAN);
  // Record mode (kmsg, journald): one whole line of the bundle file, without '\n', the
  // prefix its reader decoded (times, where the message starts: the scanner takes them as
  // given, LogStream::FeedRecord) and the position after it.
  void FeedRecord(std::string_view line, const LinePrefix& prefix, const SourcePosition& after, const Sink& sink,
                  double read_at = NAN);
  // The source has been idle for a while: the held-back record is emitted (a partial
  // line is kept), and new rules are taken up.
  void IdleFlush(const Sink& sink);
  // The source ended (a rotated file read to its end): everything is emitted.
  void Finish(const Sink& sink);

  // Where a restart resumes; never ahead of what the sink was given.
  Checkpoint checkpoint() const;
  // Lines use these rules from the next idle point on (at once when the stream is at one:
  // idle-flushed, no partial line, nothing fed since).
  void UseRules(std::shared_ptr<const Rules> rules);

  uint64_t bytes_fed() const { return bytes_fed_; }
  uint64_t lines_fed() const { return next_line_ - start_.line; }
  uint64_t cut_lines() const;

 private:
  struct Segment {
    uint64_t local = 0, virt = 0, n = 0;
  };
  void NewStream(std::shared_ptr<const Rules> rules);
  void Emit(LogEvent&& ev, const Sink& sink);
  uint64_t ToVirtual(uint64_t local) const;
  void LinesCompleted(uint64_t n);
  void AddCandidate(const SourcePosition& pos);
  void MarkRead(double read_at);
  double ReadTimeOf(uint64_t local) const;

  std::shared_ptr<const Rules> rules_;  // outlives stream_ (declared first)
  std::unique_ptr<LogStream> stream_;
  std::shared_ptr<const Rules> pending_rules_;
  int year_ = 1970;
  bool job_output_ = false;
  Env* env_;
  VirtualLines* vlines_;
  const Checkpoint start_;
  uint64_t stream_base_ = 1;   // local line of the stream's line 1
  uint64_t next_line_ = 1;     // local line of the next line to start
  uint64_t emitted_through_ = 0;
  uint64_t bytes_fed_ = 0;
  bool partial_ = false;        // byte mode: bytes after the last '\n'
  bool at_idle_point_ = true;   // flushed, nothing fed since, no partial line
  SourcePosition line_end_;     // the position after the last complete line
  Checkpoint safe_;
  std::deque<std::pair<SourcePosition, uint64_t>> candidates_;  // (position, line) not yet safe
  std::deque<Segment> segments_;                                // local -> virtual, recent first at back
  std::deque<std::pair<uint64_t, SourcePosition>> record_pos_;  // record mode: line -> position after it
  std::deque<std::pair<uint64_t, double>> reads_;               // (first local line of a feed, its read time)
  uint64_t cut_lines_done_ = 0;  // cut lines of streams replaced
};

}  // namespace aegis::agent
