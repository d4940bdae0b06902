// Classifies log lines and turns what the rules find into "log" events.
//
// Followed log files (the kernel log as a file, the job's log files): events with ids
// "<node>:<kernel|train>:<file identity>.<generation>:<line of the file>", and line
// numbers of the node's bundle file (nodes/NODE/kernel.log or train.log: several job log
// files share one numbering, see TrackedLogStream). Takes up reloaded rules at the next
// idle point.
//
// Kernel log records (kmsg, journald): a KernelRecordStream takes each record as its
// reader decoded it (wall-clock time, uptime, message) with its position, and hands the
// scanner those fields as the line's prefix (LogStream::FeedRecord: nothing is parsed
// back) beside the line the bundle file holds (journalctl's short-iso-precise form, the
// one place that form is written); the reader names the event ids. Single thread.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "agent/counters.h"
#include "agent/event_output.h"
#include "agent/file_follower.h"
#include "agent/tracked_stream.h"
#include "match/live_rules.h"

namespace aegis::agent {

struct LogTarget {
  std::string node;
  SourceKind source = SourceKind::kTrain;
  std::string file;               // nodes/<node>/train.log
  VirtualLines* lines = nullptr;  // of that bundle file
  Env* env = nullptr;  // read times and the year of yearless times (not owned; null: Env::Default())
};

// The node's bundle file of `source`: nodes/<node>/kernel.log or nodes/<node>/train.log.
LogTarget NodeLogTarget(const std::string& node, SourceKind source, VirtualLines* lines, Env* env);

ConsumerFactory MakeLogConsumerFactory(LogTarget target, LiveRules* rules, EventOutput* out, AgentCounters* counters);

// One record of the kernel log.
struct KernelRecord {
  double epoch = 0;        // wall-clock time, seconds since the epoch
  bool has_uptime = false;
  uint64_t uptime_us = 0;  // the kernel's monotonic time, microseconds
  std::string_view message;
};
// "2026-11-30T10:11:12.123456+00:00"
std::string IsoTimeMicros(double epoch);
// The time IsoTimeMicros writes, as a number (to the microsecond; 0 out of range).
double MicrosecondTime(double epoch);
// "<ISO time> <host> kernel: [ 8421.113902] message" (no "[...] " without an uptime): the
// record's line in the bundle file, which an offline scan reads both times from.
std::string KernelLine(const KernelRecord& r, std::string_view host);

class KernelRecordStream {
 public:
  // The id of the event of a record (its position is in `after`).
  using IdOf = std::function<std::string(const TrackedEvent& t)>;
  KernelRecordStream(LogTarget target, LiveRules* rules, EventOutput* out, AgentCounters* counters,
                     const Checkpoint& start, IdOf id_of);
  // One record read at `now` (the reader's clock); `after`: where the next one starts.
  void Feed(const KernelRecord& r, const SourcePosition& after, double now);
  // The held-back record is emitted once no record came for a second.
  void Poll(double now);
  // ... or now (a flush, a stop).
  void Flush();
  Checkpoint checkpoint() const { return stream_.checkpoint(); }

 private:
  void Sink(TrackedEvent&& t);

  LogTarget target_;
  LiveRules* rules_;
  EventOutput* out_;
  AgentCounters* counters_;
  IdOf id_of_;
  uint64_t generation_;
  TrackedLogStream stream_;
  double last_data_ = 0;
  bool idle_done_ = true;
};

}  // namespace aegis::agent
