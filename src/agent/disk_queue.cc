#include "agent/disk_queue.h"

#include <algorithm>
#include <cstdio>

#include "agent/log.h"
#include "agent/fs_util.h"
#include "common/fixed_int.h"
#include "common/text.h"

namespace aegis::agent {

namespace {

constexpr uint32_t kMagic = 0x31514541;  // "AEQ1" little-endian
constexpr size_t kHeader = 20;
constexpr uint32_t kMaxPayload = 64u << 20;
constexpr unsigned kFileMode = 0600;

uint32_t RecordCrc(const char* header, std::string_view payload) {
  uint32_t crc = Crc32c(header + 4, 12);
  return Crc32c(payload.data(), payload.size(), crc);
}

// `s` with "queue: " and `what` before its message, its code kept (the caller decides on
// the code: ResourceExhausted means the disk is full).
Status InQueue(const Status& s, std::string_view what) {
  std::string msg = "queue: " + std::string(what) + ": " + s.message();
  switch (s.code()) {
    case Status::Code::kResourceExhausted: return Status::ResourceExhausted(std::move(msg));
    case Status::Code::kNotFound: return Status::NotFound(std::move(msg));
    default: return Status::IOError(std::move(msg));
  }
}

// Reads n bytes at `off`; *whole false when the file ends first.
Status ReadExactly(RandomAccessFile* file, uint64_t off, size_t n, char* buf, bool* whole) {
  size_t got = 0;
  Status s = file->ReadAt(off, n, buf, &got);
  *whole = s.ok() && got == n;
  return s;
}

// Walks the records of a segment file from offset 0: their count and the end of the last
// valid one. With `verify`, payloads are read and checked against their CRC. A read that
// fails is an error (never taken for the end of the valid records).
Status ScanSegment(RandomAccessFile* file, uint64_t file_size, bool verify, uint64_t* valid_size, uint64_t* records,
                   std::vector<uint64_t>* boundaries) {
  uint64_t off = 0, n = 0;
  std::string payload;
  char h[kHeader];
  bool whole = false;
  while (off + kHeader <= file_size) {
    if (Status s = ReadExactly(file, off, kHeader, h, &whole); !s.ok()) return s;
    if (!whole) break;
    const uint32_t len = GetU32(h + 4);
    if (GetU32(h) != kMagic || len > kMaxPayload || off + kHeader + len > file_size) break;
    if (verify) {
      payload.resize(len);
      if (len) {
        if (Status s = ReadExactly(file, off + kHeader, len, payload.data(), &whole); !s.ok()) return s;
        if (!whole) break;
      }
      if (RecordCrc(h, payload) != GetU32(h + 16)) break;
    }
    off += kHeader + len;
    ++n;
    if (boundaries) boundaries->push_back(off);
  }
  *valid_size = off;
  *records = n;
  return Status::Ok();
}

}  // namespace

DiskQueue::DiskQueue(std::string dir, DiskQueueOptions options) : dir_(std::move(dir)), options_([&] {
  DiskQueueOptions o = options;
  o.max_bytes = std::max<uint64_t>(o.max_bytes, 64u << 10);
  o.segment_bytes = std::clamp<uint64_t>(o.segment_bytes, 4096, o.max_bytes / 4);
  return o;
}()) {}

DiskQueue::~DiskQueue() = default;

std::string DiskQueue::SegmentPath(uint64_t id) const {
  char name[32];
  std::snprintf(name, sizeof name, "%020llu.seg", static_cast<unsigned long long>(id));
  return dir_ + "/" + name;
}

uint64_t DiskQueue::NowMs() const { return static_cast<uint64_t>(options_.env->NowEpochSeconds() * 1000.0); }

Status DiskQueue::Open(const std::string& dir, DiskQueueOptions options, std::unique_ptr<DiskQueue>* out) {
  if (options.env == nullptr) options.env = Env::Default();
  if (Status s = CreateDirs(options.env, dir, 0700); !s.ok()) return InQueue(s, "cannot create its directory");
  std::unique_ptr<DiskQueue> q(new DiskQueue(dir, options));
  if (Status s = q->Load(); !s.ok()) return s;
  *out = std::move(q);
  return Status::Ok();
}

Status DiskQueue::Load() {
  Env* env = options_.env;
  std::vector<std::string> names;
  if (Status s = env->GetChildren(dir_, &names); !s.ok()) return InQueue(s, "cannot list its directory");
  std::vector<uint64_t> ids;
  for (const std::string& name : names) {
    if (name.size() != 24 || name.substr(20) != ".seg") continue;
    if (auto v = ParseInt(std::string_view(name).substr(0, 20)); v && *v >= 0) ids.push_back(static_cast<uint64_t>(*v));
  }
  std::sort(ids.begin(), ids.end());

  Position ack;
  std::string text;
  // A missing or garbled ack file means "nothing delivered" (events resent, which the
  // controller recognises); one the disk cannot read fails the open instead, since going
  // on would resend the whole queue.
  if (Status s = ReadFileToString(env, dir_ + "/ack", 4096, &text); s.ok()) {
    auto parts = Split(Trim(text), ' ');
    if (parts.size() == 2) {
      auto seg = ParseInt(parts[0]), off = ParseInt(parts[1]);
      if (seg && off && *seg >= 0 && *off >= 0) ack = {static_cast<uint64_t>(*seg), static_cast<uint64_t>(*off)};
    }
  } else if (s.code() == Status::Code::kIOError) {
    return InQueue(s, "cannot read the acknowledged position");
  }

  for (size_t k = 0; k < ids.size(); ++k) {
    const uint64_t id = ids[k];
    const std::string path = SegmentPath(id);
    if (id < ack.seg) {  // delivered entirely; a crash came before it was deleted
      (void)env->RemoveFile(path);
      continue;
    }
    uint64_t file_size = 0;
    std::unique_ptr<RandomAccessFile> file;
    Status st = env->GetFileSize(path, &file_size);
    if (st.ok()) st = env->NewRandomAccessFile(path, &file);
    if (!st.ok()) return InQueue(st, "cannot open a segment");
    const bool last = k + 1 == ids.size();
    Segment s;
    s.id = id;
    std::vector<uint64_t> bounds;
    st = ScanSegment(file.get(), file_size, /*verify=*/last, &s.size, &s.records, id == ack.seg ? &bounds : nullptr);
    if (!st.ok()) return InQueue(st, "cannot read a segment");
    if (s.size < file_size) {
      Log("queue: " + path + ": " + std::to_string(file_size - s.size) +
          " bytes after the last whole record cut off (a write torn by a crash, or damage)");
      if (last) {
        std::unique_ptr<WritableFile> w;
        st = env->ReopenWritableFile(path, kFileMode, &w);
        if (st.ok()) st = w->Truncate(s.size);
        if (!st.ok()) return InQueue(st, "cannot cut off a torn record");
      }
    }
    if (segs_.empty()) {
      if (id == ack.seg) {
        // Records wholly before the ack offset were delivered.
        uint64_t on = 0, n = 0;
        for (uint64_t b : bounds) {
          if (b > ack.off) break;
          on = b;
          ++n;
        }
        ack_ = {id, on};
        acked_in_front_ = n;
      } else {
        ack_ = {id, 0};
        acked_in_front_ = 0;
      }
    }
    total_records_ += s.records;
    total_bytes_ += s.size;
    segs_.push_back(std::move(s));
  }
  if (segs_.empty()) {
    Segment s;
    s.id = std::max<uint64_t>(ack.seg, ids.empty() ? 0 : ids.back()) + 1;
    std::unique_ptr<WritableFile> w;
    if (Status st = env->NewWritableFile(SegmentPath(s.id), kFileMode, &w); !st.ok())
      return InQueue(st, "cannot create a segment");
    segs_.push_back(std::move(s));
    ack_ = {segs_.back().id, 0};
    acked_in_front_ = 0;
    if (options_.sync) (void)env->SyncDir(dir_);  // at worst the empty segment is made again
  }
  // All of it delivered: nothing is kept for it (on a full disk, this is the room the ack
  // file below needs).
  (void)ReclaimDelivered();
  if (Status s = PersistAck(); !s.ok()) return InQueue(s, "cannot write the acknowledged position");
  return OpenActive();
}

Status DiskQueue::OpenActive() {
  writer_.reset();
  if (Status s = options_.env->ReopenWritableFile(SegmentPath(segs_.back().id), kFileMode, &writer_); !s.ok())
    return InQueue(s, "cannot open the segment appended to");
  return Status::Ok();
}

Status DiskQueue::RollSegment() {
  Segment s;
  s.id = segs_.back().id + 1;
  std::unique_ptr<WritableFile> w;
  if (Status st = options_.env->NewWritableFile(SegmentPath(s.id), kFileMode, &w); !st.ok())
    return InQueue(st, "cannot start a new segment");
  if (options_.sync) (void)options_.env->SyncDir(dir_);  // a segment lost with it held nothing yet
  writer_ = std::move(w);
  segs_.push_back(std::move(s));
  return Status::Ok();
}

bool DiskQueue::ReclaimDelivered() {
  if (QueuedRecordsLocked() != 0 || segs_.size() != 1 || segs_.back().size == 0) return false;
  Segment& s = segs_.back();
  writer_.reset();
  s.reader.reset();
  // Removed first: on a full disk that is what gives the new segment and the ack file room.
  // A crash after it leaves an ack naming a missing segment, which Load reads as "start at
  // the next one": nothing undelivered was in it.
  if (!options_.env->RemoveFile(SegmentPath(s.id)).ok()) {
    (void)OpenActive();
    return false;
  }
  const uint64_t id = s.id + 1;
  s = Segment();
  s.id = id;
  total_records_ = total_bytes_ = 0;
  ack_ = {id, 0};
  acked_in_front_ = 0;
  peeked_.clear();
  short_of_space_ = false;
  if (Status st = options_.env->NewWritableFile(SegmentPath(id), kFileMode, &writer_); st.ok()) {
    if (options_.sync) (void)options_.env->SyncDir(dir_);
  } else {
    writer_.reset();  // the next Append opens it (ReopenWritableFile creates it)
  }
  (void)PersistAck();  // not written: the next open starts at the new segment all the same
  return true;
}

void DiskQueue::DropFront(bool count_as_dropped) {
  Segment s = std::move(segs_.front());
  segs_.pop_front();
  if (count_as_dropped) dropped_records_ += s.records - acked_in_front_;
  total_records_ -= s.records;
  total_bytes_ -= s.size;
  s.reader.reset();
  (void)options_.env->RemoveFile(SegmentPath(s.id));  // one left behind is removed at the next open
  ack_ = {segs_.front().id, 0};
  acked_in_front_ = 0;
}

Status DiskQueue::PersistAck() {
  return WriteFileAtomically(options_.env, dir_ + "/ack",
                             std::to_string(ack_.seg) + " " + std::to_string(ack_.off) + "\n", /*sync=*/false);
}

Status DiskQueue::Append(const std::vector<std::string>& payloads) {
  if (payloads.empty()) return Status::Ok();
  std::string buf;
  size_t need = 0;
  for (const auto& p : payloads) need += kHeader + p.size();
  buf.reserve(need);
  const uint64_t now = NowMs();
  for (const auto& p : payloads) {
    if (p.size() > kMaxPayload) return Status::InvalidArgument("queue: an event of " + std::to_string(p.size()) + " bytes");
    char h[kHeader];
    PutU32(h, kMagic);
    PutU32(h + 4, static_cast<uint32_t>(p.size()));
    PutU64(h + 8, now);
    PutU32(h + 16, RecordCrc(h, p));
    buf.append(h, kHeader);
    buf.append(p);
  }

  std::lock_guard<std::mutex> lock(mu_);
  if (segs_.back().size > 0 && segs_.back().size + buf.size() > options_.segment_bytes) {
    if (Status s = RollSegment(); !s.ok()) return s;
  }
  // Bound: drop the oldest segments (never the one appended to).
  uint64_t dropped_before = dropped_records_;
  while (segs_.size() > 1 && total_bytes_ - ack_.off + buf.size() > options_.max_bytes) DropFront(true);
  if (dropped_records_ != dropped_before) {
    Log("queue: full (" + std::to_string(options_.max_bytes >> 20) + " MiB): dropped the " +
        std::to_string(dropped_records_ - dropped_before) + " oldest events");
    // Not persisted: the next Ack or open moves past the dropped segments all the same.
    (void)PersistAck();
  }

  Status s;
  for (int attempt = 0;; ++attempt) {
    s = writer_ ? Status::Ok() : OpenActive();
    Segment& active = segs_.back();
    if (s.ok()) s = writer_->WriteAt(active.size, buf);
    if (s.ok() && options_.sync) s = writer_->Sync();
    if (s.ok()) break;
    // Leave no torn record behind: the next append writes at the old end. Should the cut
    // fail too, that append overwrites the torn bytes, and reopening cuts off whatever
    // remains of them at their bad CRC.
    if (writer_) (void)writer_->Truncate(active.size);
    if (s.code() == Status::Code::kResourceExhausted) {
      short_of_space_ = true;
      // The disk is full of what was delivered already: make room, and try once more.
      if (attempt == 0 && ReclaimDelivered()) continue;
    }
    return InQueue(s, "cannot append " + std::to_string(payloads.size()) + " events");
  }
  Segment& active = segs_.back();
  active.size += buf.size();
  active.records += payloads.size();
  total_bytes_ += buf.size();
  total_records_ += payloads.size();
  cv_.notify_all();
  return Status::Ok();
}

Status DiskQueue::Reader(Segment& s, RandomAccessFile** out) {
  if (!s.reader) {
    if (Status st = options_.env->NewRandomAccessFile(SegmentPath(s.id), &s.reader); !st.ok()) return st;
  }
  *out = s.reader.get();
  return Status::Ok();
}

Status DiskQueue::ReadRecord(Segment& s, uint64_t off, QueuedRecord* rec, uint64_t* next, bool* found) {
  *found = false;
  const std::string where = "cannot read segment " + std::to_string(s.id);
  RandomAccessFile* file = nullptr;
  Status opened = Reader(s, &file);
  if (!opened.ok() && opened.code() != Status::Code::kNotFound) return InQueue(opened, where);
  bool ok = file != nullptr && off + kHeader <= s.size;
  char h[kHeader];
  if (ok) {
    if (Status st = ReadExactly(file, off, kHeader, h, &ok); !st.ok()) return InQueue(st, where);
  }
  const uint32_t len = ok ? GetU32(h + 4) : 0;
  ok = ok && GetU32(h) == kMagic && len <= kMaxPayload && off + kHeader + len <= s.size;
  if (ok) {
    rec->payload.resize(len);
    if (len) {
      if (Status st = ReadExactly(file, off + kHeader, len, rec->payload.data(), &ok); !st.ok())
        return InQueue(st, where);
    }
    ok = ok && RecordCrc(h, rec->payload) == GetU32(h + 16);
  }
  if (!ok) {
    // Damaged on disk (or the file is gone): what follows in this segment cannot be framed
    // any more. A file that is gone is first read at the segment's first queued record.
    uint64_t before = 0, n = &s == &segs_.front() ? acked_in_front_ : 0;
    if (file != nullptr) {
      if (Status st = ScanSegment(file, off, false, &before, &n, nullptr); !st.ok()) return InQueue(st, where);
    }
    const uint64_t lost = s.records > n ? s.records - n : 0;
    corrupt_records_ += lost;
    Log("queue: segment " + std::to_string(s.id) + " is damaged at byte " + std::to_string(off) + ": " +
        std::to_string(lost) + " events skipped");
    total_records_ -= lost;
    total_bytes_ -= s.size - off;
    s.records -= lost;
    s.size = off;
    // Appends continue after the damage; should the cut fail, the reader stops at it again.
    if (&s == &segs_.back() && writer_) (void)writer_->Truncate(off);
    return Status::Ok();
  }
  rec->enqueued_ms = GetU64(h + 8);
  *next = off + kHeader + len;
  *found = true;
  return Status::Ok();
}

Status DiskQueue::Peek(size_t max_records, size_t max_payload_bytes, std::vector<QueuedRecord>* out) {
  out->clear();
  std::lock_guard<std::mutex> lock(mu_);
  peeked_.clear();
  size_t bytes = 0;
  size_t k = 0;
  uint64_t off = ack_.off;
  while (k < segs_.size() && out->size() < max_records) {
    Segment& s = segs_[k];
    if (off >= s.size) {
      ++k;
      off = 0;
      continue;
    }
    QueuedRecord rec;
    uint64_t next = 0;
    bool found = false;
    if (Status st = ReadRecord(s, off, &rec, &next, &found); !st.ok()) {
      // Nothing handed out, nothing to acknowledge: the next Peek reads the same records.
      out->clear();
      peeked_.clear();
      return st;
    }
    if (!found) continue;  // the segment now ends at `off`
    if (!out->empty() && bytes + rec.payload.size() > max_payload_bytes) break;
    bytes += rec.payload.size();
    out->push_back(std::move(rec));
    peeked_.push_back({s.id, next});
    off = next;
  }
  return Status::Ok();
}

Status DiskQueue::Ack(size_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  n = std::min(n, peeked_.size());
  bool moved = false;
  for (size_t i = 0; i < n; ++i) {
    const Position p = peeked_[i];
    if (p.seg < segs_.front().id || p <= ack_) continue;  // dropped meanwhile
    while (segs_.front().id < p.seg) DropFront(false);    // delivered to its end
    ack_ = p;
    ++acked_in_front_;
    moved = true;
  }
  peeked_.erase(peeked_.begin(), peeked_.begin() + static_cast<ptrdiff_t>(n));
  // A closed segment delivered to its end is deleted at once; the one appended to, once it
  // is large or the disk was found full.
  while (segs_.size() > 1 && ack_.off >= segs_.front().size) {
    DropFront(false);
    moved = true;
  }
  if (moved && (segs_.back().size >= options_.reclaim_bytes || short_of_space_) && ReclaimDelivered()) return Status::Ok();
  return moved ? PersistAck() : Status::Ok();
}

bool DiskQueue::WaitForData(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, timeout, [&] { return woken_ || QueuedRecordsLocked() > 0; });
  woken_ = false;
  return QueuedRecordsLocked() > 0;
}

void DiskQueue::Wake() {
  std::lock_guard<std::mutex> lock(mu_);
  woken_ = true;
  cv_.notify_all();
}

uint64_t DiskQueue::queued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return QueuedRecordsLocked();
}

uint64_t DiskQueue::QueuedRecordsLocked() const { return total_records_ - acked_in_front_; }

DiskQueueStats DiskQueue::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  DiskQueueStats st;
  st.records = QueuedRecordsLocked();
  st.bytes = total_bytes_ - ack_.off;
  st.dropped_records = dropped_records_;
  st.corrupt_records = corrupt_records_;
  st.segments = segs_.size();
  if (st.records > 0) {
    // The first queued record's header: the ack position, or the start of a later segment.
    for (const Segment& s : segs_) {
      const uint64_t off = s.id == ack_.seg ? ack_.off : 0;
      if (off + kHeader > s.size) continue;
      std::unique_ptr<RandomAccessFile> file;
      char h[kHeader];
      bool whole = false;
      if (options_.env->NewRandomAccessFile(SegmentPath(s.id), &file).ok() &&
          ReadExactly(file.get(), off, kHeader, h, &whole).ok() && whole && GetU32(h) == kMagic)
        st.oldest_enqueued_ms = GetU64(h + 8);
      break;
    }
  }
  return st;
}

}  // namespace aegis::agent
