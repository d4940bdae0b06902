#include "agent/sources/ccl/ccl_intake.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "agent/fs_util.h"
#include "agent/log.h"
#include "common/json_check.h"
#include "wire/ccl_event.h"

namespace aegis::agent {

namespace {

constexpr size_t kMaxRecord = 4u << 20;

std::string SafeName(std::string_view s) {
  std::string out;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    out += ok ? c : '_';
    if (out.size() >= 128) break;
  }
  return out;
}

}  // namespace

bool ParseCclRecord(simdjson::dom::parser& parser, std::string_view text, CclKey* out) {
  if (text.size() > kMaxRecord) return false;
  simdjson::dom::element doc;
  if (parser.parse(text.data(), text.size(), /*realloc_if_needed=*/true).get(doc)) return false;
  simdjson::dom::object o;
  if (doc.get_object().get(o)) return false;
  std::string_view comm;
  int64_t rank = 0;
  double ts = 0;
  if (o["comm"].get_string().get(comm) || o["rank"].get_int64().get(rank) || o["ts"].get_double().get(ts)) return false;
  if (!std::isfinite(ts)) return false;
  out->comm = std::string(comm);
  out->rank = rank;
  out->ts = ts;
  std::string_view host;
  int64_t pid = 0;
  if (!o["host"].get_string().get(host) && !o["pid"].get_int64().get(pid) && !host.empty()) {
    out->file_name = SafeName(host) + "-" + std::to_string(pid);
  } else {
    out->file_name = "probe";
  }
  return true;
}

bool CclCoalescer::Add(std::string_view text) {
  // Tolerate what line readers leave: trailing "\r" or blanks.
  while (!text.empty() && (text.back() == '\r' || text.back() == ' ' || text.back() == '\n')) text.remove_suffix(1);
  CclKey key;
  // A record is shipped as it came: one nested deeper than the controller takes would get
  // its whole batch refused, again and again (the sender never drops a batch).
  if (text.empty() || !CheckJsonDepth(text, "ccl record").ok() || !ParseCclRecord(parser_, text, &key)) {
    counters_->Add(counters_->ccl_invalid);
    return false;
  }
  auto k = std::make_pair(key.comm, key.rank);
  auto it = entries_.find(k);
  if (it == entries_.end()) {
    if (entries_.size() >= max_keys_) {  // forget the (comm, rank) not heard from longest
      auto oldest = entries_.begin();
      for (auto e = entries_.begin(); e != entries_.end(); ++e)
        if (e->second.touched < oldest->second.touched) oldest = e;
      entries_.erase(oldest);
    }
    it = entries_.emplace(std::move(k), Entry()).first;
  }
  Entry& e = it->second;
  e.touched = ++clock_;
  if (key.ts <= e.shipped_ts || (e.pending && key.ts <= e.ts)) return true;  // not newer
  e.raw.assign(text);
  e.ts = key.ts;
  e.file_name = std::move(key.file_name);
  e.pending = true;
  return true;
}

void CclCoalescer::Flush(EventOutput* out) {
  for (auto& [key, e] : entries_) {
    if (!e.pending) continue;
    char ts[64];
    std::snprintf(ts, sizeof ts, "%.6f", e.ts);
    const std::string id = node_ + ":ccl:" + IdPart(key.first) + ":" + std::to_string(key.second) + ":" + ts;
    // The record: validated JSON, exactly as the probe wrote it.
    out->Add(EventType::kCcl, wire::EncodeCclEvent(id, node_, wire::CclFileOf(node_, e.file_name), e.raw));
    e.pending = false;
    e.shipped_ts = e.ts;
    std::string().swap(e.raw);
  }
}

CclSocket::~CclSocket() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(path_.c_str());
  }
}

Status CclSocket::Bind(const std::string& path) {
  sockaddr_un addr{};
  if (path.size() >= sizeof addr.sun_path) return Status::InvalidArgument("socket path too long: " + path);
  if (size_t slash = path.rfind('/'); slash != std::string::npos && slash > 0) MakeDirs(path.substr(0, slash), 0755);
  fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return Status::IOError(std::string("socket: ") + std::strerror(errno));
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) {
    // A socket file: another agent's (connect works: refuse), or left by a crash (replace).
    const int probe = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    const bool alive = probe >= 0 && ::connect(probe, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    if (probe >= 0) ::close(probe);
    if (alive) {
      ::close(fd_);
      fd_ = -1;
      return Status::FailedPrecondition("another process receives on " + path);
    }
    ::unlink(path.c_str());
  }
  if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    Status s = Status::IOError("cannot bind " + path + ": " + std::strerror(errno));
    ::close(fd_);
    fd_ = -1;
    return s;
  }
  path_ = path;
  ::chmod(path.c_str(), 0666);
  int rcvbuf = 4 << 20;  // a burst of snapshots at finalize
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  buf_.resize(kMaxRecord + 1);
  return Status::Ok();
}

bool CclSocket::OnReadable(CclCoalescer* coalescer, AgentCounters* counters) {
  if (fd_ < 0) return false;
  for (int n = 0; n < 4096; ++n) {
    const ssize_t got = ::recv(fd_, buf_.data(), buf_.size(), MSG_TRUNC);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return false;  // EAGAIN: drained
    counters->Add(counters->ccl_datagrams);
    counters->Add(counters->bytes_read[static_cast<int>(InputKind::kCcl)], static_cast<uint64_t>(got));
    counters->Add(counters->lines_read[static_cast<int>(InputKind::kCcl)]);
    if (static_cast<size_t>(got) > kMaxRecord) {
      counters->Add(counters->ccl_invalid);
      continue;
    }
    coalescer->Add(std::string_view(buf_.data(), static_cast<size_t>(got)));
  }
  return true;
}

namespace {

class CclConsumer : public FollowConsumer {
 public:
  CclConsumer(CclCoalescer* coalescer, AgentCounters* counters, const Checkpoint& start)
      : coalescer_(coalescer), counters_(counters), cp_(start), offset_(start.pos.offset) {}

  void Feed(std::string_view bytes) override {
    counters_->Add(counters_->bytes_read[static_cast<int>(InputKind::kCcl)], bytes.size());
    while (!bytes.empty()) {
      const size_t nl = bytes.find('\n');
      if (nl == std::string_view::npos) {
        if (partial_.size() + bytes.size() <= kMaxRecord) partial_.append(bytes);
        else overlong_ = true;
        offset_ += bytes.size();
        return;
      }
      if (!overlong_) {
        if (partial_.empty()) {
          Line(bytes.substr(0, nl));
        } else {
          partial_.append(bytes.substr(0, nl));
          Line(partial_);
        }
      } else {
        counters_->Add(counters_->ccl_invalid);
      }
      partial_.clear();
      overlong_ = false;
      offset_ += nl + 1;
      bytes.remove_prefix(nl + 1);
      cp_.pos.offset = offset_;
      ++cp_.line;
    }
  }
  void Idle() override {}
  void Finish() override {
    if (!partial_.empty() && !overlong_) Line(partial_);
    partial_.clear();
    cp_.pos.offset = offset_;
  }
  Checkpoint checkpoint() const override { return cp_; }

 private:
  void Line(std::string_view line) {
    counters_->Add(counters_->lines_read[static_cast<int>(InputKind::kCcl)]);
    if (!line.empty()) coalescer_->Add(line);
  }
  CclCoalescer* coalescer_;
  AgentCounters* counters_;
  Checkpoint cp_;
  uint64_t offset_;
  std::string partial_;
  bool overlong_ = false;
};

}  // namespace

ConsumerFactory MakeCclConsumerFactory(CclCoalescer* coalescer, AgentCounters* counters) {
  return [=](const std::string&, const Checkpoint& start) -> std::unique_ptr<FollowConsumer> {
    return std::make_unique<CclConsumer>(coalescer, counters, start);
  };
}

}  // namespace aegis::agent
