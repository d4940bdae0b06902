// The kernel log from the systemd journal, through a `journalctl` child process:
//   journalctl -k -f --no-tail -o json --output-fields=MESSAGE,_SOURCE_MONOTONIC_TIMESTAMP,_HOSTNAME
//              [--after-cursor=CURSOR]
// One JSON object per line; the agent keeps the cursor of the last entry it has matched
// (in its own checkpoint, never journalctl's --cursor-file, which would run ahead of what
// the agent queued) and resumes after it. An entry goes to the scanner as a KernelRecord
// (log_consumer.h; the same line form as a kmsg record, "<ISO time> <host> kernel:
// [uptime] message"). MESSAGE may be a string, an
// array of byte values (not UTF-8) or null. When journalctl exits or is missing, it is
// started again after 10 s (60 s once it failed right away), said once. Event ids:
// "<node>:kernel:journal:<hash of the entry's cursor>".
#pragma once
#include <sys/types.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "agent/counters.h"
#include "agent/event_output.h"
#include "agent/log_consumer.h"
#include "agent/tracked_stream.h"
#include "match/live_rules.h"

namespace aegis::agent {

struct JournalEntry {
  std::string cursor;
  double realtime = 0;   // epoch seconds
  double monotonic = -1; // kernel uptime in seconds, -1 when absent
  std::string message;
};

// One line of `journalctl -o json`. False when it is not an object with __CURSOR,
// __REALTIME_TIMESTAMP and MESSAGE.
bool ParseJournalJson(std::string_view line, JournalEntry* out);
// The record for the scanner (the message is the entry's), and the line it reads of it.
KernelRecord ToKernelRecord(const JournalEntry& e);
std::string JournalLine(const JournalEntry& e, std::string_view host);

class JournaldSource {
 public:
  JournaldSource(std::string journalctl, LogTarget target, LiveRules* rules, EventOutput* out,
                 AgentCounters* counters, Checkpoint* state);
  ~JournaldSource();
  JournaldSource(const JournaldSource&) = delete;
  JournaldSource& operator=(const JournaldSource&) = delete;

  // The pipe from the child, -1 while none runs.
  int fd() const { return fd_; }
  // Starts the child when due; idle flush.
  void Poll(double now);
  // The held-back record emitted now (the controller asked for a flush).
  void Flush();
  // Reads the child's output; true when the read budget ran out.
  bool OnReadable(double now);
  // One line of JSON as if read from journalctl (tests, fuzzing).
  void FeedJsonLine(std::string_view line, double now);
  void SaveState();
  void Stop();
  // journalctl could not be started, or exited: how many times.
  uint64_t failures() const { return failures_; }

 private:
  void Start(double now);
  void Reap(double now);

  std::string journalctl_;
  LogTarget target_;
  LiveRules* rules_;
  EventOutput* out_;
  AgentCounters* counters_;
  Checkpoint* state_;
  std::unique_ptr<KernelRecordStream> stream_;
  pid_t child_ = -1;
  int fd_ = -1;
  double started_ = 0, next_start_ = 0;
  std::string partial_;
  std::string buf_;
  uint64_t failures_ = 0;
};

}  // namespace aegis::agent
