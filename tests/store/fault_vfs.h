// FaultVfs: an SQLite VFS for tests that opens every file through SQLite's default VFS and
// fails the calls a test arms: the next N xWrite / xSync / xRead calls answer
// SQLITE_IOERR_WRITE / _FSYNC / _READ (nothing done), or the disk fills up once K more
// bytes have been written (the xWrite that crosses it writes what fits and answers
// SQLITE_FULL, as a full disk does). A store opened with StoreOptions::sqlite_vfs =
// FaultVfs::kName goes through it.
//
// Lifetime: one per process (Get()), registered with SQLite on first use and never
// unregistered. Threads: thread-safe; the faults are shared by every file opened through
// it (the database, its WAL and journals), and counted in injected().
#pragma once
#include <cstdint>

namespace aegis::store::test {

class FaultVfs {
 public:
  static constexpr const char* kName = "aegis-fault";
  static FaultVfs& Get();

  void FailWrites(int n);
  void FailSyncs(int n);
  void FailReads(int n);
  void SetSpaceLeft(uint64_t bytes);
  void ClearFaults();

  struct Injected {
    uint64_t writes = 0, syncs = 0, reads = 0, disk_full = 0;  // failures handed out
  };
  Injected injected() const;
  void ResetCounts();

  // Used by the VFS's files. Returns the SQLite result code to give instead of doing the
  // call (SQLITE_OK: do it); for a write, *allowed is how much of it to write first.
  int BeforeWrite(uint64_t n, uint64_t* allowed);
  int BeforeSync();
  int BeforeRead();

 private:
  FaultVfs() = default;
};

}  // namespace aegis::store::test
