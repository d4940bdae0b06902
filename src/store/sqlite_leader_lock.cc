#include "store/sqlite_leader_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

namespace aegis::store {

namespace {

class FileLeaderLock final : public LeaderLock {
 public:
  explicit FileLeaderLock(std::string path) : path_(std::move(path)) {}
  ~FileLeaderLock() override { Release(); }

  Status TryAcquire(bool* acquired) override {
    std::lock_guard<std::mutex> lock(mu_);
    *acquired = false;
    if (fd_ >= 0 && StillOursLocked()) {
      *acquired = true;
      return Status::Ok();
    }
    CloseLocked();
    const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return Status::IOError("leader lock " + path_ + ": " + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(fd);
      if (err == EWOULDBLOCK) return Status::Ok();  // another process leads
      return Status::IOError("leader lock " + path_ + ": " + std::strerror(err));
    }
    fd_ = fd;
    // The file may have been removed and made anew between open() and flock(): a lock on
    // an unlinked file excludes nobody.
    if (!StillOursLocked()) {
      CloseLocked();
      return Status::Ok();
    }
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd_, 0) == 0 && ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
      // Only informative: leadership does not depend on the file's text.
    }
    *acquired = true;
    return Status::Ok();
  }

  bool IsHeld() override {
    std::lock_guard<std::mutex> lock(mu_);
    return fd_ >= 0 && StillOursLocked();
  }

  void Release() override {
    std::lock_guard<std::mutex> lock(mu_);
    CloseLocked();
  }

 private:
  // Whether the path still names the file this descriptor locked.
  bool StillOursLocked() const {
    struct stat held{}, named{};
    if (::fstat(fd_, &held) != 0 || ::stat(path_.c_str(), &named) != 0) return false;
    return held.st_dev == named.st_dev && held.st_ino == named.st_ino;
  }

  void CloseLocked() {
    if (fd_ >= 0) ::close(fd_);  // releases the flock
    fd_ = -1;
  }

  const std::string path_;
  std::mutex mu_;
  int fd_ = -1;
};

}  // namespace

std::unique_ptr<LeaderLock> NewFileLeaderLock(std::string path) {
  return std::make_unique<FileLeaderLock>(std::move(path));
}

}  // namespace aegis::store
