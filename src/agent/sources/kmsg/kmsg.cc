#include "agent/sources/kmsg/kmsg.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>

#include "agent/fs_util.h"
#include "agent/log.h"
#include "bundle/bundle_reader.h"
#include "common/text.h"
#include "env/env.h"

namespace aegis::agent {

namespace {

bool ParseU64(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 19) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = v;
  return true;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

double MonotonicNow() {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

}  // namespace

bool ParseKmsgRecord(std::string_view text, KmsgRecord* out) {
  const size_t semi = text.find(';');
  if (semi == std::string_view::npos) return false;
  std::string_view header = text.substr(0, semi);
  if (header.find('\n') != std::string_view::npos) return false;
  auto fields = Split(header, ',');
  if (fields.size() < 4) return false;
  uint64_t pri = 0, seq = 0, ts = 0;
  if (!ParseU64(fields[0], &pri) || !ParseU64(fields[1], &seq) || !ParseU64(fields[2], &ts)) return false;
  if (pri > 0xffffff) return false;
  out->facility = static_cast<int>(pri >> 3);
  out->level = static_cast<int>(pri & 7);
  out->seq = seq;
  out->ts_usec = ts;
  std::string_view msg = text.substr(semi + 1);
  if (size_t nl = msg.find('\n'); nl != std::string_view::npos) msg = msg.substr(0, nl);  // the dictionary follows
  out->message.clear();
  out->message.reserve(msg.size());
  for (size_t i = 0; i < msg.size(); ++i) {
    if (msg[i] == '\\' && i + 3 < msg.size() && msg[i + 1] == 'x') {
      const int hi = HexDigit(msg[i + 2]), lo = HexDigit(msg[i + 3]);
      if (hi >= 0 && lo >= 0) {
        char c = static_cast<char>(hi * 16 + lo);
        if (c == '\n' || c == '\r') c = ' ';  // one record, one line
        out->message += c;
        i += 3;
        continue;
      }
    }
    out->message += msg[i];
  }
  return true;
}

std::vector<std::string_view> SplitKmsgRecords(std::string_view text) {
  std::vector<std::string_view> out;
  size_t start = std::string_view::npos;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const bool dict = text[pos] == ' ';
    if (!dict) {
      if (start != std::string_view::npos) out.push_back(text.substr(start, pos - start));
      start = pos;
    }
    pos = nl + 1;
  }
  if (start != std::string_view::npos) out.push_back(text.substr(start, std::min(pos, text.size()) - start));
  return out;
}

KernelRecord ToKernelRecord(const KmsgRecord& r, double boot_epoch) {
  KernelRecord k;
  k.epoch = boot_epoch + static_cast<double>(r.ts_usec) / 1e6;
  k.has_uptime = true;
  k.uptime_us = r.ts_usec;
  k.message = r.message;
  return k;
}

std::string KmsgLine(const KmsgRecord& r, double boot_epoch, std::string_view host) {
  return KernelLine(ToKernelRecord(r, boot_epoch), host);
}

KmsgSource::KmsgSource(std::string path, std::string boot_id_path, LogTarget target, LiveRules* rules,
                       EventOutput* out, AgentCounters* counters, KmsgState* state)
    : path_(std::move(path)),
      boot_id_path_(std::move(boot_id_path)),
      target_(std::move(target)),
      rules_(rules),
      out_(out),
      counters_(counters),
      state_(state) {
  std::string boot;
  if (ReadSmallFile(boot_id_path_, &boot, 256).ok()) boot = std::string(Trim(boot));
  if (boot != state_->boot_id) {  // another boot: its sequence numbers start again at 0
    state_->boot_id = boot;
    state_->cp = Checkpoint();
  }
  std::string tag;
  for (char c : boot)
    if (std::isxdigit(static_cast<unsigned char>(c))) tag += c;
  boot_tag_ = tag.empty() ? "unknown" : tag.substr(0, 16);
  // The system's clocks, whatever the agent's Env: records carry the kernel's own uptime
  // (CLOCK_MONOTONIC), dated here by when this boot began on the wall clock.
  boot_epoch_ = Env::Default()->NowEpochSeconds() - MonotonicNow();
  next_seq_ = state_->cp.pos.offset;
  have_seq_ = next_seq_ > 0;
  stream_ = std::make_unique<KernelRecordStream>(target_, rules_, out_, counters_, state_->cp, [this](const TrackedEvent& t) {
    const uint64_t seq = t.after.offset > 0 ? t.after.offset - 1 : 0;
    std::string id = target_.node;
    id.append(":kernel:kmsg-").append(boot_tag_).append(":").append(std::to_string(seq));
    return id;
  });
}

KmsgSource::~KmsgSource() {
  if (fd_ >= 0) ::close(fd_);
}

Status KmsgSource::Open() {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) {
    const int e = errno;
    std::string msg = "cannot read " + path_ + ": " + std::strerror(e);
    return e == EACCES || e == EPERM ? Status::PermissionDenied(msg) : Status::IOError(msg);
  }
  buf_.resize(16u << 10);  // the kernel's record limit is below 8 KiB plus the dictionary
  return Status::Ok();
}

void KmsgSource::FeedRecord(std::string_view text, double now) {
  KmsgRecord r;
  if (!ParseKmsgRecord(text, &r)) return;
  if (r.seq < next_seq_) return;  // read already (before the checkpoint, or a repeat)
  if (have_seq_ && r.seq > next_seq_) counters_->Add(counters_->kmsg_lost, r.seq - next_seq_);
  have_seq_ = true;
  next_seq_ = r.seq + 1;
  SourcePosition after;
  after.offset = r.seq + 1;
  stream_->Feed(ToKernelRecord(r, boot_epoch_), after, now);
}

bool KmsgSource::OnReadable(double now) {
  if (fd_ < 0) return false;
  for (int n = 0; n < 4096; ++n) {
    const ssize_t got = ::read(fd_, buf_.data(), buf_.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && errno == EPIPE) {
      // Overwritten before it was read: the next read gives the oldest record left; the
      // gap in sequence numbers is counted there.
      continue;
    }
    if (got <= 0) return false;
    FeedRecord(std::string_view(buf_.data(), static_cast<size_t>(got)), now);
  }
  return true;
}

void KmsgSource::Poll(double now) { stream_->Poll(now); }

void KmsgSource::Flush() { stream_->Flush(); }

void KmsgSource::SaveState() { state_->cp = stream_->checkpoint(); }

void KmsgSource::Stop() {
  stream_->Flush();
  SaveState();
}

}  // namespace aegis::agent
