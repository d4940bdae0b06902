// FaultVfs: an SQLite VFS for tests that opens every file through SQLite's default VFS and
// fails the calls a test arms (through FaultPlan): the next N xWrite / xSync / xRead calls answer
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

#include "env/fault_plan.h"

namespace aegis::store::test {

class FaultVfs : public FaultPlan {  // armed and counted through FaultPlan
 public:
  static constexpr const char* kName = "aegis-fault";
  static FaultVfs& Get();

  // Used by the VFS's files: the SQLite result code to give instead of doing the call
  // (SQLITE_OK: do it); for a write, *allowed is how much of it to write first.
  int WriteCode(uint64_t n, uint64_t* allowed);
  int SyncCode();
  int ReadCode();

 private:
  FaultVfs() = default;
};

}  // namespace aegis::store::test
