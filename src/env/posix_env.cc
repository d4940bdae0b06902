// Env::Default(): the POSIX system calls behind env.h.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "env/env.h"

namespace aegis {

namespace {

Status PosixError(std::string_view what, const std::string& path, int err) {
  std::string msg = std::string(what) + " " + path + ": " + std::strerror(err);
  switch (err) {
    case ENOENT: return Status::NotFound(std::move(msg));
    case ENOSPC:
    case EDQUOT: return Status::ResourceExhausted(std::move(msg));
    default: return Status::IOError(std::move(msg));
  }
}

class PosixWritableFile final : public WritableFile {
 public:
  PosixWritableFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixWritableFile() override {
    if (fd_ >= 0) ::close(fd_);
  }

  Status WriteAt(uint64_t offset, std::string_view data) override {
    while (!data.empty()) {
      const ssize_t r = ::pwrite(fd_, data.data(), data.size(), static_cast<off_t>(offset));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return PosixError("cannot write", path_, errno);
      data.remove_prefix(static_cast<size_t>(r));
      offset += static_cast<uint64_t>(r);
    }
    return Status::Ok();
  }
  Status Sync() override {
    if (::fdatasync(fd_) != 0) return PosixError("cannot fdatasync", path_, errno);
    return Status::Ok();
  }
  Status Truncate(uint64_t size) override {
    if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) return PosixError("cannot truncate", path_, errno);
    return Status::Ok();
  }
  Status Close() override {
    if (fd_ < 0) return Status::IOError("already closed: " + path_);
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) return PosixError("cannot close", path_, errno);
    return Status::Ok();
  }

 private:
  const std::string path_;
  int fd_;
};

class PosixRandomAccessFile final : public RandomAccessFile {
 public:
  PosixRandomAccessFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixRandomAccessFile() override { ::close(fd_); }

  Status ReadAt(uint64_t offset, size_t n, char* scratch, size_t* got) override {
    *got = 0;
    while (*got < n) {
      const ssize_t r = ::pread(fd_, scratch + *got, n - *got, static_cast<off_t>(offset + *got));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return PosixError("cannot read", path_, errno);
      if (r == 0) break;
      *got += static_cast<size_t>(r);
    }
    return Status::Ok();
  }

 private:
  const std::string path_;
  const int fd_;
};

class PosixSequentialFile final : public SequentialFile {
 public:
  PosixSequentialFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixSequentialFile() override { ::close(fd_); }

  Status Read(size_t n, char* scratch, size_t* got) override {
    *got = 0;
    for (;;) {
      const ssize_t r = ::read(fd_, scratch, n);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return PosixError("cannot read", path_, errno);
      *got = static_cast<size_t>(r);
      return Status::Ok();
    }
  }

 private:
  const std::string path_;
  const int fd_;
};

class PosixEnv final : public Env {
 public:
  double NowEpochSeconds() override {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  }
  double NowMonotonicSeconds() override {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  void SleepFor(double seconds) override {
    if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  }

  Status NewWritableFile(const std::string& path, unsigned mode, std::unique_ptr<WritableFile>* out) override {
    return OpenForWriting(path, O_TRUNC, mode, out);
  }
  Status ReopenWritableFile(const std::string& path, unsigned mode, std::unique_ptr<WritableFile>* out) override {
    return OpenForWriting(path, 0, mode, out);
  }
  Status NewRandomAccessFile(const std::string& path, std::unique_ptr<RandomAccessFile>* out) override {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return PosixError("cannot open", path, errno);
    *out = std::make_unique<PosixRandomAccessFile>(path, fd);
    return Status::Ok();
  }
  Status NewSequentialFile(const std::string& path, std::unique_ptr<SequentialFile>* out) override {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return PosixError("cannot open", path, errno);
    *out = std::make_unique<PosixSequentialFile>(path, fd);
    return Status::Ok();
  }
  Status GetFileSize(const std::string& path, uint64_t* size) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return PosixError("cannot stat", path, errno);
    *size = static_cast<uint64_t>(st.st_size);
    return Status::Ok();
  }
  Status RenameFile(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) return PosixError("cannot rename " + from + " to", to, errno);
    return Status::Ok();
  }
  Status RemoveFile(const std::string& path) override {
    if (::unlink(path.c_str()) != 0) return PosixError("cannot remove", path, errno);
    return Status::Ok();
  }
  Status GetChildren(const std::string& dir, std::vector<std::string>* names) override {
    names->clear();
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return PosixError("cannot list", dir, errno);
    while (const dirent* e = ::readdir(d)) {
      const std::string_view name = e->d_name;
      if (name != "." && name != "..") names->emplace_back(name);
    }
    ::closedir(d);
    return Status::Ok();
  }
  Status CreateDir(const std::string& path, unsigned mode) override {
    if (::mkdir(path.c_str(), static_cast<mode_t>(mode)) == 0) return Status::Ok();
    const int err = errno;
    struct stat st;
    if (err == EEXIST && ::stat(path.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) return Status::Ok();
      return Status::IOError(path + " is not a directory");
    }
    return PosixError("cannot create directory", path, err);
  }
  Status SyncDir(const std::string& dir) override {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return PosixError("cannot open directory", dir, errno);
    Status s;
    // EINVAL: a file system whose directories cannot be synced (nothing to wait for).
    if (::fsync(fd) != 0 && errno != EINVAL) s = PosixError("cannot fsync directory", dir, errno);
    ::close(fd);
    return s;
  }

 private:
  static Status OpenForWriting(const std::string& path, int extra_flags, unsigned mode,
                               std::unique_ptr<WritableFile>* out) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | extra_flags, static_cast<mode_t>(mode));
    if (fd < 0) return PosixError("cannot open for writing", path, errno);
    *out = std::make_unique<PosixWritableFile>(path, fd);
    return Status::Ok();
  }
};

}  // namespace

Env* Env::Default() {
  static Env* const env = new PosixEnv();  // never deleted: components may use it during exit
  return env;
}

}  // namespace aegis
