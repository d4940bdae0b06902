// FaultInjectionEnv: an Env that passes everything to another one, except the file
// failures a test arms: the next N writes, syncs or reads fail with EIO, or the disk
// fills up once K more bytes have been written (the write that crosses it writes what
// fits and fails with ENOSPC, as a real full disk does, leaving a torn tail). Only files
// opened through this Env are affected; the clocks are the wrapped Env's.
//
// It lives in src/env rather than under tests/ because the tests of every component that
// takes an Env (the agent's queue now, its loop, the controller and the sender later) use
// it, and an operator's fault drill could run a component on it; it does nothing unless
// constructed.
//
// Lifetime: must outlive the files opened through it. Threads: thread-safe; the faults
// are shared by all its files and counted in injected().
#pragma once
#include <cstdint>
#include <mutex>

#include "env/env.h"

namespace aegis {

class FaultInjectionEnv final : public EnvWrapper {
 public:
  explicit FaultInjectionEnv(Env* target = Env::Default());

  // The next n calls of WritableFile::WriteAt fail with EIO (nothing written).
  void FailWrites(int n);
  // The next n calls of WritableFile::Sync fail with EIO.
  void FailSyncs(int n);
  // The next n reads (RandomAccessFile::ReadAt, SequentialFile::Read) fail with EIO.
  void FailReads(int n);
  // From now on, at most `bytes` more are written; past them writes fail with ENOSPC.
  void SetSpaceLeft(uint64_t bytes);
  // Disarms every fault (the disk has room again).
  void ClearFaults();

  struct Injected {
    uint64_t writes = 0, syncs = 0, reads = 0, disk_full = 0;  // failures handed out
  };
  Injected injected() const;

  Status NewWritableFile(const std::string& path, unsigned mode, std::unique_ptr<WritableFile>* out) override;
  Status ReopenWritableFile(const std::string& path, unsigned mode, std::unique_ptr<WritableFile>* out) override;
  Status NewRandomAccessFile(const std::string& path, std::unique_ptr<RandomAccessFile>* out) override;
  Status NewSequentialFile(const std::string& path, std::unique_ptr<SequentialFile>* out) override;

  // Used by the file wrappers: whether this call fails, and how much of a write of n bytes
  // may be written first (*allowed, for a full disk).
  Status BeforeWrite(const std::string& path, uint64_t n, uint64_t* allowed);
  Status BeforeSync(const std::string& path);
  Status BeforeRead(const std::string& path);

 private:
  mutable std::mutex mu_;
  int fail_writes_ = 0, fail_syncs_ = 0, fail_reads_ = 0;
  bool space_limited_ = false;
  uint64_t space_left_ = 0;
  Injected injected_;
};

}  // namespace aegis
