// The kernel log from /dev/kmsg. A read of /dev/kmsg returns one record,
//   "PRI,SEQ,TS_USEC,FLAGS[,...];MESSAGE\n[ KEY=VALUE\n]..."
// (Documentation/ABI/testing/dev-kmsg): PRI is facility * 8 + level, SEQ the record's
// sequence number (64-bit, increasing, from 0 at boot), TS_USEC the monotonic time in
// microseconds, bytes of MESSAGE below 0x20, from 0x7f and '\' escaped as \xNN, and the
// indented lines after it the record's dictionary. A record goes to the scanner as a
// KernelRecord (log_consumer.h): its wall-clock time (boot time + TS_USEC), its uptime
// and its message, read as the line
//   "2026-11-30T10:11:12.123456+00:00 node-0007 kernel: [ 8421.113902] NVRM: Xid ..."
// Reading resumes after the sequence number of the checkpoint when the boot id is the one
// it was taken in, else from the oldest record in the ring buffer. Records overwritten
// before they were read (EPIPE, a gap in SEQ) are counted. Reading /dev/kmsg needs root
// (or CAP_SYSLOG with dmesg_restrict). Event ids: "<node>:kernel:kmsg-<boot>:<seq>".
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "agent/agent_state.h"
#include "agent/counters.h"
#include "agent/event_output.h"
#include "agent/log_consumer.h"
#include "agent/tracked_stream.h"
#include "common/status.h"
#include "match/live_rules.h"

namespace aegis::agent {

struct KmsgRecord {
  int facility = 0;
  int level = 0;
  uint64_t seq = 0;
  uint64_t ts_usec = 0;
  std::string message;  // unescaped; an embedded newline becomes a space
};

// One record (a dictionary after the message is ignored). False when the header is not
// "number,number,number,flags;".
bool ParseKmsgRecord(std::string_view text, KmsgRecord* out);
// Splits saved records (a fixture, a dump): a record starts on every line that does not
// begin with a space.
std::vector<std::string_view> SplitKmsgRecords(std::string_view text);
// The record for the scanner; boot_epoch is the wall-clock time of monotonic 0.
KernelRecord ToKernelRecord(const KmsgRecord& r, double boot_epoch);
// Its line in the bundle file (KernelLine).
std::string KmsgLine(const KmsgRecord& r, double boot_epoch, std::string_view host);

class KmsgSource {
 public:
  KmsgSource(std::string path, std::string boot_id_path, LogTarget target, LiveRules* rules, EventOutput* out,
             AgentCounters* counters, KmsgState* state);
  ~KmsgSource();
  KmsgSource(const KmsgSource&) = delete;
  KmsgSource& operator=(const KmsgSource&) = delete;

  // Opens the device; IOError / PermissionDenied when it cannot.
  Status Open();
  int fd() const { return fd_; }
  // Reads every record available now; true when the read budget ran out.
  bool OnReadable(double now);
  // Idle flush when nothing came for a second.
  void Poll(double now);
  // The held-back record emitted now (the controller asked for a flush).
  void Flush();
  void SaveState();
  void Stop();
  // Test hook: the wall-clock time of monotonic 0 (taken from the clocks at Open).
  void set_boot_epoch(double e) { boot_epoch_ = e; }
  // Feeds one record text as if read from the device (tests, fuzzing).
  void FeedRecord(std::string_view text, double now);

 private:
  std::string path_, boot_id_path_;
  LogTarget target_;
  LiveRules* rules_;
  EventOutput* out_;
  AgentCounters* counters_;
  KmsgState* state_;
  int fd_ = -1;
  double boot_epoch_ = 0;
  std::string boot_tag_;
  std::unique_ptr<KernelRecordStream> stream_;
  uint64_t next_seq_ = 0;
  bool have_seq_ = false;
  std::string buf_;
};

}  // namespace aegis::agent
