// FaultPlan: the faults a test arms against a file system, and the failures handed out:
// the next N writes, fdatasyncs or reads fail with an I/O error (nothing done), or the disk
// fills once K more bytes have been written (the write that crosses it writes what fits,
// then fails as a full disk does). One plan, two users: FaultInjectionEnv (an Env's files)
// and the store tests' SQLite VFS, each turning the plan's answer into its own error.
// Thread-safe; lives as long as its owner.
#pragma once
#include <cstdint>
#include <mutex>

namespace aegis {

class FaultPlan {
 public:
  enum class Fault { kNone, kIo, kDiskFull };

  void FailWrites(int n);           // the next n writes fail (nothing written)
  void FailSyncs(int n);            // the next n fdatasyncs fail
  void FailReads(int n);            // the next n reads fail
  void SetSpaceLeft(uint64_t bytes);  // from now on, at most `bytes` more are written
  void Freed(uint64_t bytes);         // a file of this size was removed: room again (when limited)
  void ClearFaults();               // disarms every fault (the disk has room again)

  struct Injected {
    uint64_t writes = 0, syncs = 0, reads = 0, disk_full = 0;  // failures handed out
  };
  Injected injected() const;
  void ResetCounts();

  // For the file wrappers, before each call: whether it fails; for a write of n bytes,
  // *allowed is how much of it to write first (all of it, or what fits on a full disk).
  Fault BeforeWrite(uint64_t n, uint64_t* allowed);
  Fault BeforeSync();
  Fault BeforeRead();

 private:
  mutable std::mutex mu_;
  int fail_writes_ = 0, fail_syncs_ = 0, fail_reads_ = 0;
  bool space_limited_ = false;
  uint64_t space_left_ = 0;
  Injected injected_;
};

}  // namespace aegis
