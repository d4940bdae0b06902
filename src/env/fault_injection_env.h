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
#include "env/fault_plan.h"

namespace aegis {

class FaultInjectionEnv final : public EnvWrapper, public FaultPlan {
 public:
  explicit FaultInjectionEnv(Env* target = Env::Default());

  // The faults are armed through FaultPlan (FailWrites, FailSyncs, FailReads,
  // SetSpaceLeft, ClearFaults, injected): writes go through WritableFile::WriteAt, syncs
  // through WritableFile::Sync, reads through RandomAccessFile::ReadAt and
  // SequentialFile::Read.
  Status NewWritableFile(const std::string& path, unsigned mode, std::unique_ptr<WritableFile>* out) override;
  Status ReopenWritableFile(const std::string& path, unsigned mode, std::unique_ptr<WritableFile>* out) override;
  Status NewRandomAccessFile(const std::string& path, std::unique_ptr<RandomAccessFile>* out) override;
  Status NewSequentialFile(const std::string& path, std::unique_ptr<SequentialFile>* out) override;
  // A removed file gives its bytes back to a disk limited by SetSpaceLeft, as a real one
  // does (a queue that deletes what it delivered makes room).
  Status RemoveFile(const std::string& path) override;

  // Used by the file wrappers: the plan's answer as a Status naming the file (EIO, or
  // ENOSPC for a full disk); for a write, *allowed is how much may be written first.
  Status WriteFault(const std::string& path, uint64_t n, uint64_t* allowed);
  Status SyncFault(const std::string& path);
  Status ReadFault(const std::string& path);
};

}  // namespace aegis
