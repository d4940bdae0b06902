// The CCL probe's records, from its Unix datagram socket (one JSON object per datagram,
// as src/probe/writer.cc sends them) and from its snapshot files (DIR/*.jsonl and the
// rotated *.jsonl.1, followed like logs). A record is valid when it is a JSON object with
// "comm" (string), "rank" (integer) and "ts" (number) (docs/formats.md). The coalescer
// keeps the newest record of each (comm, rank) and ships it at most once per Flush (the
// agent flushes every second), as a "ccl" event carrying the record exactly as the probe
// wrote it:
//   {"id": "<node>:ccl:<comm>:<rank>:<ts>", "type": "ccl", "node": ..., 
//    "file": "nodes/<node>/ccl/<host>-<pid>.jsonl", "record": {...}}
// A record no newer than the last one shipped for its (comm, rank) (the same record seen
// on the socket and in the file, or an old file read again) is not shipped again.
// Single thread.
#pragma once
#include <simdjson.h>

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "agent/counters.h"
#include "agent/event_output.h"
#include "agent/file_follower.h"
#include "common/status.h"

namespace aegis::agent {

struct CclKey {
  std::string comm;
  int64_t rank = -1;
  double ts = 0;
  std::string file_name;  // "<host>-<pid>" (the probe's file name), or "probe"
};

// Validates a probe record; `parser` is reused between calls.
bool ParseCclRecord(simdjson::dom::parser& parser, std::string_view text, CclKey* out);

class CclCoalescer {
 public:
  CclCoalescer(std::string node, AgentCounters* counters, size_t max_keys = 8192)
      : node_(std::move(node)), counters_(counters), max_keys_(max_keys) {}
  // False when the record is invalid (counted).
  bool Add(std::string_view text);
  // Ships every record newer than the last one shipped for its (comm, rank).
  void Flush(EventOutput* out);
  size_t keys() const { return entries_.size(); }

 private:
  struct Entry {
    std::string raw;
    double ts = 0;
    std::string file_name;
    bool pending = false;
    double shipped_ts = -std::numeric_limits<double>::infinity();  // nothing shipped yet: any time is newer
    uint64_t touched = 0;
  };
  std::string node_;
  AgentCounters* counters_;
  size_t max_keys_;
  simdjson::dom::parser parser_;
  std::map<std::pair<std::string, int64_t>, Entry> entries_;
  uint64_t clock_ = 0;
};

// The probe's socket: bound at `path` (a stale socket file is replaced; the directory is
// made; mode 0666 so that training processes of any user can send).
class CclSocket {
 public:
  ~CclSocket();
  Status Bind(const std::string& path);
  int fd() const { return fd_; }
  // Receives every datagram waiting; true when the budget ran out.
  bool OnReadable(CclCoalescer* coalescer, AgentCounters* counters);

 private:
  int fd_ = -1;
  std::string path_;
  std::string buf_;
};

// Follows DIR/*.jsonl and DIR/*.jsonl.1: complete lines go to the coalescer. The agent
// flushes the coalescer before it persists positions, so a position never runs ahead of
// what was queued.
ConsumerFactory MakeCclConsumerFactory(CclCoalescer* coalescer, AgentCounters* counters);

}  // namespace aegis::agent
