#include "agent/file_follower.h"

#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "agent/fs_util.h"
#include "agent/log.h"

namespace aegis::agent {

namespace {

constexpr size_t kReadChunk = 64u << 10;
constexpr double kForgetAfterS = 7 * 86400.0;  // states of files gone for a week are dropped

}  // namespace

FileFollower::FileFollower(std::string path, FileStates* states, std::set<std::string>* open_ids,
                           ConsumerFactory factory, FollowOptions options)
    : path_(std::move(path)), states_(states), open_ids_(open_ids), factory_(std::move(factory)), options_(options) {
  if (!options_.env) options_.env = Env::Default();
}

FileFollower::~FileFollower() { CloseFile(); }

void FileFollower::CloseFile() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!identity_.empty()) open_ids_->erase(identity_);
}

bool FileFollower::TryOpen(double now) {
  const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    if (errno != ENOENT) LogOnce("open:" + path_, "cannot read " + path_ + ": " + std::strerror(errno));
    done_ = true;
    return false;
  }
  struct statx sx {};
  if (::statx(fd, "", AT_EMPTY_PATH, STATX_INO | STATX_TYPE | STATX_SIZE | STATX_BTIME, &sx) != 0 ||
      !S_ISREG(sx.stx_mode)) {
    LogOnce("notreg:" + path_, path_ + " is not a regular file: not followed");
    ::close(fd);
    done_ = true;
    return false;
  }
  const uint64_t btime_ns = (sx.stx_mask & STATX_BTIME)
                                ? static_cast<uint64_t>(sx.stx_btime.tv_sec) * 1000000000ull + sx.stx_btime.tv_nsec
                                : 0;
  std::string identity = Hex64(sx.stx_ino).substr(8) + "-" + Hex64(btime_ns);
  if (open_ids_->count(identity)) {  // another name of a file followed (or drained) already
    ::close(fd);
    return false;
  }
  FileState& st = (*states_)[identity];
  if (st.cp.pos.offset > sx.stx_size) {  // truncated while nobody looked
    ++st.gen;
    st.cp = Checkpoint();
  }
  st.path = path_;
  st.seen = options_.env->NowEpochSeconds();
  if (::lseek(fd, static_cast<off_t>(st.cp.pos.offset), SEEK_SET) < 0) {
    ::close(fd);
    done_ = true;
    return false;
  }
  fd_ = fd;
  ino_ = sx.stx_ino;
  identity_ = std::move(identity);
  open_ids_->insert(identity_);
  last_data_ = now;
  StartGeneration(st.cp);
  return true;
}

void FileFollower::StartGeneration(const Checkpoint& start) {
  consumer_.reset();
  consumer_ = factory_(identity_ + "." + std::to_string((*states_)[identity_].gen), start);
  offset_ = start.pos.offset;
  idle_done_ = false;
}

bool FileFollower::Poll(double now) {
  if (done_) return false;
  if (fd_ < 0) {
    if (rotated_ || !TryOpen(now)) return false;
  }
  size_t got = 0;
  bool more = false;
  buf_.resize(kReadChunk);
  while (true) {
    const ssize_t n = ::read(fd_, buf_.data(), buf_.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) LogOnce("read:" + path_, "cannot read " + path_ + ": " + std::strerror(errno));
    if (n <= 0) break;
    consumer_->Feed(std::string_view(buf_.data(), static_cast<size_t>(n)));
    offset_ += static_cast<uint64_t>(n);
    got += static_cast<size_t>(n);
    if (got >= options_.read_budget) {
      more = true;
      break;
    }
  }
  bytes_read_ += got;
  if (got) {
    last_data_ = now;
    idle_done_ = false;
  }
  if (more) return true;

  struct stat st;
  if (::fstat(fd_, &st) == 0 && static_cast<uint64_t>(st.st_size) < offset_) {
    // copytruncate: what was read is complete; the file starts again.
    consumer_->Finish();
    FileState& s = (*states_)[identity_];
    ++s.gen;
    s.cp = Checkpoint();
    ::lseek(fd_, 0, SEEK_SET);
    last_data_ = now;
    StartGeneration(Checkpoint());
    return true;
  }
  if (!rotated_) {
    struct stat ps;
    if (::stat(path_.c_str(), &ps) != 0 || ps.st_ino != ino_) {
      rotated_ = true;
      last_data_ = now;  // the writer may still append to the old file for a moment
    }
  }
  if (rotated_) {
    if (now - last_data_ >= options_.rotate_wait_s) {
      consumer_->Finish();
      SaveState();
      CloseFile();
      done_ = true;
    }
    return false;
  }
  if (!idle_done_ && now - last_data_ >= options_.idle_s) {
    consumer_->Idle();
    idle_done_ = true;
  }
  return false;
}

void FileFollower::SaveState() {
  if (!consumer_ || identity_.empty()) return;
  FileState& s = (*states_)[identity_];
  s.path = path_;
  s.cp = consumer_->checkpoint();
  s.seen = options_.env->NowEpochSeconds();
}

void FileFollower::Flush() {
  if (consumer_ && !idle_done_) {
    consumer_->Idle();
    idle_done_ = true;
  }
}

void FileFollower::Stop() {
  Flush();
  SaveState();
}

FollowedFiles::FollowedFiles(std::vector<std::string> patterns, FileStates* states, ConsumerFactory factory,
                             FollowOptions options)
    : patterns_(std::move(patterns)), states_(states), factory_(std::move(factory)), options_(options) {
  if (!options_.env) options_.env = Env::Default();
}

void FollowedFiles::Expand(double now) {
  missing_.clear();
  for (const auto& pattern : patterns_) {
    glob_t g{};
    const int rc = ::glob(pattern.c_str(), GLOB_NOSORT | GLOB_BRACE, nullptr, &g);
    if (rc == GLOB_NOMATCH && pattern.find_first_of("*?[{") == std::string::npos) {
      missing_.push_back(pattern);
      LogOnce("missing:" + pattern, "waiting for " + pattern + ": it does not exist (on /healthz and /metrics until it does)");
    }
    if (rc == 0) {
      for (size_t i = 0; i < g.gl_pathc; ++i) {
        std::string path = g.gl_pathv[i];
        if (followers_.count(path)) continue;
        auto f = std::make_unique<FileFollower>(path, states_, &open_ids_, factory_, options_);
        f->Poll(now);
        if (!f->done()) followers_.emplace(std::move(path), std::move(f));
      }
    } else if (rc != GLOB_NOMATCH) {
      LogOnce("glob:" + pattern, "cannot expand " + pattern);
    }
    ::globfree(&g);
  }
}

bool FollowedFiles::Poll(double now) {
  bool more = false;
  for (auto it = draining_.begin(); it != draining_.end();) {
    more |= (*it)->Poll(now);
    if ((*it)->done()) {
      bytes_done_ += (*it)->bytes_read();
      it = draining_.erase(it);
    } else {
      ++it;
    }
  }
  std::vector<std::string> reopen;
  for (auto it = followers_.begin(); it != followers_.end();) {
    FileFollower& f = *it->second;
    more |= f.Poll(now);
    if (f.rotated() && !f.done()) {
      reopen.push_back(it->first);
      draining_.push_back(std::move(it->second));
      it = followers_.erase(it);
    } else if (f.done()) {
      bytes_done_ += f.bytes_read();
      reopen.push_back(it->first);  // rotated and drained at once, or vanished
      it = followers_.erase(it);
    } else {
      ++it;
    }
  }
  // The new file at a rotated path is followed at once (from byte 0).
  for (auto& path : reopen) {
    auto f = std::make_unique<FileFollower>(path, states_, &open_ids_, factory_, options_);
    more |= f->Poll(now);
    if (!f->done()) followers_.emplace(std::move(path), std::move(f));
  }
  return more;
}

void FollowedFiles::SaveStates() {
  for (auto& d : draining_) d->SaveState();
  for (auto& [path, f] : followers_) f->SaveState();
  const double now = options_.env->NowEpochSeconds();
  for (auto it = states_->begin(); it != states_->end();) {
    if (!open_ids_.count(it->first) && now - it->second.seen > kForgetAfterS) it = states_->erase(it);
    else ++it;
  }
}

void FollowedFiles::Flush() {
  for (auto& d : draining_) d->Flush();
  for (auto& [path, f] : followers_) f->Flush();
}

void FollowedFiles::Stop() {
  for (auto& d : draining_) d->Stop();
  for (auto& [path, f] : followers_) f->Stop();
}

uint64_t FollowedFiles::bytes_read() const {
  uint64_t n = bytes_done_;
  for (const auto& d : draining_) n += d->bytes_read();
  for (const auto& [path, f] : followers_) n += f->bytes_read();
  return n;
}

}  // namespace aegis::agent
