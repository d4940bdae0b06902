// The agent's on-disk queue of events waiting for the controller. Nothing already queued
// is lost while the controller is down or restarting, nor when the agent is killed at any
// moment; only a full queue drops data, oldest first, counted.
//
// Layout under `dir`: segment files NNNNNNNNNNNNNNNNNNNN.seg (20-digit increasing ids),
// each a sequence of records
//   u32 magic "AEQ1" | u32 payload length | u64 enqueue time (ms since the epoch)
//   | u32 CRC-32C of (length, time, payload) | payload
// (little-endian), and `ack`, the text "SEGMENT OFFSET\n" of the first record not yet
// delivered, replaced atomically. Append writes all its records with one write() at the
// end of the newest segment and then fdatasync()s it (with `sync`), so a record is durable
// once Append returns; a record torn by a crash mid-write fails its length or CRC and is
// cut off when the queue is reopened. The ack file is renamed into place without fsync: a
// power loss may resend events already delivered, which the controller recognises by
// their ids. Segments entirely before the ack position are deleted, and so is the segment
// appended to once all it holds is delivered (DiskQueueOptions::reclaim_bytes; at once
// when the disk was found full, and when the queue is opened), so that a disk filled while
// the controller was away clears itself once the queue is delivered. When a new append
// would take the queue past max_bytes, whole segments are dropped from the front (the
// oldest events), counted in stats().dropped_records.
//
// Errors: every file operation goes through options.env. A failed write or fdatasync
// fails that Append (IOError; ResourceExhausted when the disk is full) and cuts the
// segment back to its last whole record, so nothing appended before is lost or torn and
// the next Append writes where the failed one began. A failed read fails that Peek
// (IOError) and changes nothing; the same records are read once the disk answers again.
// Only records that read back damaged are skipped. No error aborts the process.
//
// One appender thread and one reader thread (Peek / Ack) may use it at the same time.
#pragma once
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/status.h"
#include "env/env.h"

namespace aegis::agent {

struct DiskQueueOptions {
  uint64_t max_bytes = 1ull << 30;       // bound of the whole queue on disk
  uint64_t segment_bytes = 64ull << 20;  // a segment is closed past this size (at most max_bytes / 4)
  // Once everything queued is delivered, the segment appended to is replaced by an empty
  // one when it holds at least this much, or whatever it holds once an append found the
  // disk full: delivered events never keep a disk full.
  uint64_t reclaim_bytes = 1ull << 20;
  bool sync = true;                      // fdatasync after every Append
  Env* env = Env::Default();             // clock and files (not owned; outlives the queue)
};

struct QueuedRecord {
  std::string payload;
  uint64_t enqueued_ms = 0;
};

struct DiskQueueStats {
  uint64_t records = 0;          // queued, not yet acknowledged
  uint64_t bytes = 0;            // on disk from the ack position on
  uint64_t dropped_records = 0;  // dropped because the queue was full (this process)
  uint64_t corrupt_records = 0;  // unreadable records skipped (damaged disk), this process
  uint64_t oldest_enqueued_ms = 0;  // of the first queued record; 0 when empty
  uint64_t segments = 0;

  // How long the oldest queued record has waited at `now` (epoch seconds): the shipping
  // lag; 0 when the queue is empty.
  double OldestAgeSeconds(double now) const {
    return oldest_enqueued_ms ? std::max(0.0, now - static_cast<double>(oldest_enqueued_ms) / 1000.0) : 0.0;
  }
};

class DiskQueue {
 public:
  static Status Open(const std::string& dir, DiskQueueOptions options, std::unique_ptr<DiskQueue>* out);
  ~DiskQueue();
  DiskQueue(const DiskQueue&) = delete;
  DiskQueue& operator=(const DiskQueue&) = delete;

  // Appends the payloads as records (one write, then fdatasync). On an error (IOError,
  // ResourceExhausted for a full disk, InvalidArgument for a payload over 64 MiB) nothing
  // of this call is kept and the queue stays usable.
  Status Append(const std::vector<std::string>& payloads);
  // Reads, without consuming, up to max_records records from the acknowledged position,
  // together at most max_payload_bytes (but at least one record when any is queued).
  // A read that fails: IOError, *out empty, nothing changed (call again later).
  Status Peek(size_t max_records, size_t max_payload_bytes, std::vector<QueuedRecord>* out);
  // The first n records of the last Peek are done with (delivered, or given up): they are
  // acknowledged and never returned again. Records dropped meanwhile are skipped.
  Status Ack(size_t n);
  // Waits until a record is queued, `timeout` passes or Wake() is called; true when
  // records are queued.
  bool WaitForData(std::chrono::milliseconds timeout);
  void Wake();

  DiskQueueStats stats() const;
  uint64_t queued() const;  // records not yet acknowledged (cheap)

 private:
  struct Segment {
    uint64_t id = 0;
    uint64_t size = 0;     // bytes of valid records
    uint64_t records = 0;  // valid records
    std::unique_ptr<RandomAccessFile> reader;  // opened on first read
  };
  struct Position {
    uint64_t seg = 0, off = 0;
    bool operator<=(const Position& o) const { return seg < o.seg || (seg == o.seg && off <= o.off); }
  };

  DiskQueue(std::string dir, DiskQueueOptions options);
  Status Load();
  std::string SegmentPath(uint64_t id) const;
  Status OpenActive();
  Status RollSegment();
  // Everything queued is delivered: the segment appended to (all of it delivered) is
  // removed and an empty one started in its place. False when there was nothing to reclaim
  // or its file could not be removed.
  bool ReclaimDelivered();
  void DropFront(bool count_as_dropped);
  Status PersistAck();
  Status Reader(Segment& s, RandomAccessFile** out);
  // Reads the record at `off` of `s`: *found false at the end of its valid records or when
  // it is damaged (then the segment's valid part ends there). A read that fails is an
  // error and changes nothing.
  Status ReadRecord(Segment& s, uint64_t off, QueuedRecord* rec, uint64_t* next, bool* found);
  uint64_t NowMs() const;
  uint64_t QueuedRecordsLocked() const;

  const std::string dir_;
  const DiskQueueOptions options_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool woken_ = false;
  std::deque<Segment> segs_;  // oldest first; back() is the one appended to
  std::unique_ptr<WritableFile> writer_;  // of segs_.back()
  Position ack_;
  uint64_t acked_in_front_ = 0;  // records of segs_.front() before ack_
  uint64_t total_records_ = 0;   // in segs_
  uint64_t total_bytes_ = 0;     // in segs_
  std::vector<Position> peeked_;  // end position of each record of the last Peek
  uint64_t dropped_records_ = 0, corrupt_records_ = 0;
  bool short_of_space_ = false;  // an append found the disk full since the last reclaim
};

}  // namespace aegis::agent
