// Env: everything a component asks of the operating system for its clocks, its sleeping
// and its files (after leveldb's include/leveldb/env.h), behind one interface, so that
// tests give it a clock they move by hand (manual_clock_env.h) or files that fail on
// demand (fault_injection_env.h) without touching the code under test.
//
// Lifetime: Env::Default() is the POSIX one, created on first use and never deleted. Any
// other Env must outlive every file it opened and every component given it (components
// take an Env* in their options and never own it). A file object closes its descriptor
// when destroyed.
// Threads: Env methods are thread-safe. One file object is used by one thread at a time
// (its owner serialises), but different file objects may be used concurrently.
// Errors: every call returns a Status naming the operation and the path; the code follows
// the errno: ENOENT NotFound, ENOSPC / EDQUOT ResourceExhausted (a full disk or quota),
// anything else IOError. Nothing throws.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace aegis {

// A file opened for writing at chosen offsets (the agent's queue writes each batch at the
// end of the valid records it knows of, not at the file's end).
class WritableFile {
 public:
  virtual ~WritableFile() = default;
  // Writes all of `data` at `offset` (retrying short writes). On an error part of it may
  // have been written.
  virtual Status WriteAt(uint64_t offset, std::string_view data) = 0;
  // fdatasync: what was written is on the device when this returns ok.
  virtual Status Sync() = 0;
  // Cuts the file to `size` bytes.
  virtual Status Truncate(uint64_t size) = 0;
  // Closes the descriptor; later calls fail. The destructor closes it too, ignoring errors.
  virtual Status Close() = 0;
};

// A file read at chosen offsets.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  // Reads up to n bytes at `offset` into `scratch`; *got < n only at the end of the file.
  virtual Status ReadAt(uint64_t offset, size_t n, char* scratch, size_t* got) = 0;
};

// A file read from its start to its end.
class SequentialFile {
 public:
  virtual ~SequentialFile() = default;
  // Reads up to n bytes into `scratch`; *got == 0 at the end of the file.
  virtual Status Read(size_t n, char* scratch, size_t* got) = 0;
};

class Env {
 public:
  virtual ~Env() = default;
  // The POSIX Env (see the file comment).
  static Env* Default();

  // --- time ---
  // Wall clock: seconds since the Unix epoch (may jump when the system's time is set).
  virtual double NowEpochSeconds() = 0;
  // Monotonic clock: seconds since an arbitrary start; never goes back (intervals, timeouts).
  virtual double NowMonotonicSeconds() = 0;
  // Returns once `seconds` have passed on the monotonic clock (at once when <= 0).
  virtual void SleepFor(double seconds) = 0;

  // --- files ---
  // Creates `path`, or empties it when it exists, for writing (permissions `mode` when created).
  virtual Status NewWritableFile(const std::string& path, unsigned mode, std::unique_ptr<WritableFile>* out) = 0;
  // Opens `path` for writing, keeping what it holds; created (with `mode`) when missing.
  virtual Status ReopenWritableFile(const std::string& path, unsigned mode, std::unique_ptr<WritableFile>* out) = 0;
  virtual Status NewRandomAccessFile(const std::string& path, std::unique_ptr<RandomAccessFile>* out) = 0;
  virtual Status NewSequentialFile(const std::string& path, std::unique_ptr<SequentialFile>* out) = 0;
  virtual Status GetFileSize(const std::string& path, uint64_t* size) = 0;
  // Replaces `to` with `from` atomically (rename(2)).
  virtual Status RenameFile(const std::string& from, const std::string& to) = 0;
  virtual Status RemoveFile(const std::string& path) = 0;
  // The names (not paths) of the entries of `dir`, without "." and "..", in no order.
  virtual Status GetChildren(const std::string& dir, std::vector<std::string>* names) = 0;
  // Creates one directory; one that already exists is not an error (when it is a directory).
  virtual Status CreateDir(const std::string& path, unsigned mode) = 0;
  // fsync of a directory, so that files created, renamed or removed in it survive a power loss.
  virtual Status SyncDir(const std::string& dir) = 0;
};

// An Env that hands every call to another one (`target`, not owned): the base of test
// Envs that change a few calls and keep the rest.
class EnvWrapper : public Env {
 public:
  explicit EnvWrapper(Env* target) : target_(target) {}
  Env* target() const { return target_; }

  double NowEpochSeconds() override { return target_->NowEpochSeconds(); }
  double NowMonotonicSeconds() override { return target_->NowMonotonicSeconds(); }
  void SleepFor(double seconds) override { target_->SleepFor(seconds); }
  Status NewWritableFile(const std::string& path, unsigned mode, std::unique_ptr<WritableFile>* out) override {
    return target_->NewWritableFile(path, mode, out);
  }
  Status ReopenWritableFile(const std::string& path, unsigned mode, std::unique_ptr<WritableFile>* out) override {
    return target_->ReopenWritableFile(path, mode, out);
  }
  Status NewRandomAccessFile(const std::string& path, std::unique_ptr<RandomAccessFile>* out) override {
    return target_->NewRandomAccessFile(path, out);
  }
  Status NewSequentialFile(const std::string& path, std::unique_ptr<SequentialFile>* out) override {
    return target_->NewSequentialFile(path, out);
  }
  Status GetFileSize(const std::string& path, uint64_t* size) override { return target_->GetFileSize(path, size); }
  Status RenameFile(const std::string& from, const std::string& to) override { return target_->RenameFile(from, to); }
  Status RemoveFile(const std::string& path) override { return target_->RemoveFile(path); }
  Status GetChildren(const std::string& dir, std::vector<std::string>* names) override {
    return target_->GetChildren(dir, names);
  }
  Status CreateDir(const std::string& path, unsigned mode) override { return target_->CreateDir(path, mode); }
  Status SyncDir(const std::string& dir) override { return target_->SyncDir(dir); }

 private:
  Env* const target_;
};

// --- helpers built on any Env ---

// Reads a whole file of at most max_bytes (a larger one: ResourceExhausted).
Status ReadFileToString(Env* env, const std::string& path, size_t max_bytes, std::string* out);
// Replaces `path` with `content` so that a crash leaves either the old or the new file:
// written to path.tmp, synced when `sync`, renamed over `path` (and the directory synced
// when `sync`). On an error the temporary file is removed and `path` is as it was.
Status WriteFileAtomically(Env* env, const std::string& path, std::string_view content, bool sync,
                           unsigned mode = 0644);
// mkdir -p, with `mode` for the directories it creates; the end must be a directory.
Status CreateDirs(Env* env, const std::string& path, unsigned mode);

}  // namespace aegis
