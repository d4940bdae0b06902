#include "agent/disk_queue.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "agent/fs_util.h"
#include "agent/log.h"
#include "bundle/bundle_reader.h"
#include "common/fixed_int.h"
#include "common/text.h"

namespace aegis::agent {

namespace {

constexpr uint32_t kMagic = 0x31514541;  // "AEQ1" little-endian
constexpr size_t kHeader = 20;
constexpr uint32_t kMaxPayload = 64u << 20;

uint32_t RecordCrc(const char* header, std::string_view payload) {
  uint32_t crc = Crc32c(header + 4, 12);
  return Crc32c(payload.data(), payload.size(), crc);
}

uint64_t NowMs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

bool PreadAll(int fd, char* buf, size_t n, uint64_t off) {
  while (n > 0) {
    ssize_t r = ::pread(fd, buf, n, static_cast<off_t>(off));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    buf += r;
    n -= static_cast<size_t>(r);
    off += static_cast<uint64_t>(r);
  }
  return true;
}

Status PwriteAll(int fd, std::string_view data, uint64_t off) {
  while (!data.empty()) {
    ssize_t r = ::pwrite(fd, data.data(), data.size(), static_cast<off_t>(off));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Status::IOError(std::string("queue write failed: ") + std::strerror(errno));
    data.remove_prefix(static_cast<size_t>(r));
    off += static_cast<uint64_t>(r);
  }
  return Status::Ok();
}

// Walks the records of a segment file from offset 0: their count and the end of the last
// valid one. With `verify`, payloads are read and checked against their CRC.
void ScanSegment(int fd, uint64_t file_size, bool verify, uint64_t* valid_size, uint64_t* records,
                 std::vector<uint64_t>* boundaries) {
  uint64_t off = 0, n = 0;
  std::string payload;
  char h[kHeader];
  while (off + kHeader <= file_size) {
    if (!PreadAll(fd, h, kHeader, off)) break;
    const uint32_t len = GetU32(h + 4);
    if (GetU32(h) != kMagic || len > kMaxPayload || off + kHeader + len > file_size) break;
    if (verify) {
      payload.resize(len);
      if (len && !PreadAll(fd, payload.data(), len, off + kHeader)) break;
      if (RecordCrc(h, payload) != GetU32(h + 16)) break;
    }
    off += kHeader + len;
    ++n;
    if (boundaries) boundaries->push_back(off);
  }
  *valid_size = off;
  *records = n;
}

}  // namespace

DiskQueue::DiskQueue(std::string dir, DiskQueueOptions options) : dir_(std::move(dir)), options_([&] {
  DiskQueueOptions o = options;
  o.max_bytes = std::max<uint64_t>(o.max_bytes, 64u << 10);
  o.segment_bytes = std::clamp<uint64_t>(o.segment_bytes, 4096, o.max_bytes / 4);
  return o;
}()) {}

DiskQueue::~DiskQueue() {
  if (write_fd_ >= 0) ::close(write_fd_);
  for (auto& s : segs_)
    if (s.read_fd >= 0) ::close(s.read_fd);
}

std::string DiskQueue::SegmentPath(uint64_t id) const {
  char name[32];
  std::snprintf(name, sizeof name, "%020llu.seg", static_cast<unsigned long long>(id));
  return dir_ + "/" + name;
}

Status DiskQueue::Open(const std::string& dir, DiskQueueOptions options, std::unique_ptr<DiskQueue>* out) {
  if (Status s = MakeDirs(dir, 0700); !s.ok()) return s;
  std::unique_ptr<DiskQueue> q(new DiskQueue(dir, options));
  if (Status s = q->Load(); !s.ok()) return s;
  *out = std::move(q);
  return Status::Ok();
}

Status DiskQueue::Load() {
  std::vector<uint64_t> ids;
  DIR* d = ::opendir(dir_.c_str());
  if (!d) return Status::IOError("cannot list " + dir_ + ": " + std::strerror(errno));
  while (dirent* e = ::readdir(d)) {
    std::string_view name = e->d_name;
    if (name.size() != 24 || name.substr(20) != ".seg") continue;
    if (auto v = ParseInt(name.substr(0, 20)); v && *v >= 0) ids.push_back(static_cast<uint64_t>(*v));
  }
  ::closedir(d);
  std::sort(ids.begin(), ids.end());

  Position ack;
  std::string text;
  if (ReadSmallFile(dir_ + "/ack", &text, 4096).ok()) {
    auto parts = Split(Trim(text), ' ');
    if (parts.size() == 2) {
      auto seg = ParseInt(parts[0]), off = ParseInt(parts[1]);
      if (seg && off && *seg >= 0 && *off >= 0) ack = {static_cast<uint64_t>(*seg), static_cast<uint64_t>(*off)};
    }
  }

  for (size_t k = 0; k < ids.size(); ++k) {
    const uint64_t id = ids[k];
    const std::string path = SegmentPath(id);
    if (id < ack.seg) {  // delivered entirely; a crash came before it was deleted
      ::unlink(path.c_str());
      continue;
    }
    int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return Status::IOError("cannot open " + path + ": " + std::strerror(errno));
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      ::close(fd);
      return Status::IOError("cannot stat " + path);
    }
    const bool last = k + 1 == ids.size();
    Segment s;
    s.id = id;
    std::vector<uint64_t> bounds;
    ScanSegment(fd, static_cast<uint64_t>(st.st_size), /*verify=*/last, &s.size, &s.records,
                id == ack.seg ? &bounds : nullptr);
    if (s.size < static_cast<uint64_t>(st.st_size)) {
      Log("queue: " + path + ": " + std::to_string(static_cast<uint64_t>(st.st_size) - s.size) +
          " bytes after the last whole record cut off (a write torn by a crash, or damage)");
      if (last && ::ftruncate(fd, static_cast<off_t>(s.size)) != 0) {
        ::close(fd);
        return Status::IOError("cannot truncate " + path);
      }
    }
    ::close(fd);
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
    segs_.push_back(s);
  }
  if (segs_.empty()) {
    Segment s;
    s.id = std::max<uint64_t>(ack.seg, ids.empty() ? 0 : ids.back()) + 1;
    int fd = ::open(SegmentPath(s.id).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return Status::IOError("cannot create " + SegmentPath(s.id) + ": " + std::strerror(errno));
    ::close(fd);
    segs_.push_back(s);
    ack_ = {s.id, 0};
    acked_in_front_ = 0;
    if (options_.sync) SyncDir(dir_);
  }
  if (Status s = PersistAck(); !s.ok()) return s;
  return OpenActive();
}

Status DiskQueue::OpenActive() {
  if (write_fd_ >= 0) ::close(write_fd_);
  const std::string path = SegmentPath(segs_.back().id);
  write_fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (write_fd_ < 0) return Status::IOError("cannot open " + path + ": " + std::strerror(errno));
  return Status::Ok();
}

Status DiskQueue::RollSegment() {
  Segment s;
  s.id = segs_.back().id + 1;
  const std::string path = SegmentPath(s.id);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Status::IOError("cannot create " + path + ": " + std::strerror(errno));
  if (options_.sync) SyncDir(dir_);
  if (write_fd_ >= 0) ::close(write_fd_);
  write_fd_ = fd;
  segs_.push_back(s);
  return Status::Ok();
}

void DiskQueue::DropFront(bool count_as_dropped) {
  Segment s = segs_.front();
  segs_.pop_front();
  if (count_as_dropped) dropped_records_ += s.records - acked_in_front_;
  total_records_ -= s.records;
  total_bytes_ -= s.size;
  if (s.read_fd >= 0) ::close(s.read_fd);
  ::unlink(SegmentPath(s.id).c_str());
  ack_ = {segs_.front().id, 0};
  acked_in_front_ = 0;
}

Status DiskQueue::PersistAck() {
  return WriteFileAtomically(dir_ + "/ack", std::to_string(ack_.seg) + " " + std::to_string(ack_.off) + "\n",
                             /*sync=*/false);
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
    PersistAck();
  }

  Segment& active = segs_.back();
  Status s = PwriteAll(write_fd_, buf, active.size);
  if (s.ok() && options_.sync && ::fdatasync(write_fd_) != 0)
    s = Status::IOError(std::string("queue fdatasync failed: ") + std::strerror(errno));
  if (!s.ok()) {
    // Leave no torn record behind: the next append writes at the old end.
    if (::ftruncate(write_fd_, static_cast<off_t>(active.size)) != 0) {
      // The torn bytes stay; reopening cuts them off at their bad CRC.
    }
    return s;
  }
  active.size += buf.size();
  active.records += payloads.size();
  total_bytes_ += buf.size();
  total_records_ += payloads.size();
  cv_.notify_all();
  return Status::Ok();
}

int DiskQueue::ReadFd(Segment& s) {
  if (s.read_fd < 0) s.read_fd = ::open(SegmentPath(s.id).c_str(), O_RDONLY | O_CLOEXEC);
  return s.read_fd;
}

bool DiskQueue::ReadRecord(Segment& s, uint64_t off, QueuedRecord* rec, uint64_t* next) {
  const int fd = ReadFd(s);
  char h[kHeader];
  bool ok = fd >= 0 && off + kHeader <= s.size && PreadAll(fd, h, kHeader, off);
  const uint32_t len = ok ? GetU32(h + 4) : 0;
  ok = ok && GetU32(h) == kMagic && len <= kMaxPayload && off + kHeader + len <= s.size;
  if (ok) {
    rec->payload.resize(len);
    ok = (len == 0 || PreadAll(fd, rec->payload.data(), len, off + kHeader)) && RecordCrc(h, rec->payload) == GetU32(h + 16);
  }
  if (!ok) {
    // Damaged on disk: what follows in this segment cannot be framed any more.
    uint64_t before = 0, n = 0;
    if (fd >= 0) ScanSegment(fd, off, false, &before, &n, nullptr);
    const uint64_t lost = s.records > n ? s.records - n : 0;
    corrupt_records_ += lost;
    Log("queue: segment " + std::to_string(s.id) + " is damaged at byte " + std::to_string(off) + ": " +
        std::to_string(lost) + " events skipped");
    total_records_ -= lost;
    total_bytes_ -= s.size - off;
    s.records -= lost;
    s.size = off;
    if (&s == &segs_.back() && write_fd_ >= 0 && ::ftruncate(write_fd_, static_cast<off_t>(off)) != 0) {
      // Appends continue after the damage; the reader stops at it again.
    }
    return false;
  }
  rec->enqueued_ms = GetU64(h + 8);
  *next = off + kHeader + len;
  return true;
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
    if (!ReadRecord(s, off, &rec, &next)) continue;  // the segment now ends at `off`
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
  // A closed segment delivered to its end is deleted at once.
  while (segs_.size() > 1 && ack_.off >= segs_.front().size) {
    DropFront(false);
    moved = true;
  }
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
      int fd = ::open(SegmentPath(s.id).c_str(), O_RDONLY | O_CLOEXEC);
      char h[kHeader];
      if (fd >= 0 && PreadAll(fd, h, kHeader, off) && GetU32(h) == kMagic) st.oldest_enqueued_ms = GetU64(h + 8);
      if (fd >= 0) ::close(fd);
      break;
    }
  }
  return st;
}

}  // namespace aegis::agent
