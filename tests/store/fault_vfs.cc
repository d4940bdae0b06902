#include "fault_vfs.h"

#include <sqlite3.h>

#include <cstdlib>

namespace aegis::store::test {

namespace {

sqlite3_vfs* Base() {
  static sqlite3_vfs* const base = sqlite3_vfs_find(nullptr);
  return base;
}

// Our file: the default VFS's file object follows it in the same allocation
// (szOsFile below), so that every call is handed on to it.
struct FaultFile {
  sqlite3_file header;
  sqlite3_file* real;
};

sqlite3_file* Real(sqlite3_file* f) { return reinterpret_cast<FaultFile*>(f)->real; }

int Close(sqlite3_file* f) { return Real(f)->pMethods->xClose(Real(f)); }

int Read(sqlite3_file* f, void* buf, int n, sqlite3_int64 off) {
  if (int rc = FaultVfs::Get().ReadCode(); rc != SQLITE_OK) return rc;
  return Real(f)->pMethods->xRead(Real(f), buf, n, off);
}

int Write(sqlite3_file* f, const void* buf, int n, sqlite3_int64 off) {
  uint64_t allowed = static_cast<uint64_t>(n);
  const int fault = FaultVfs::Get().WriteCode(static_cast<uint64_t>(n), &allowed);
  if (allowed > 0) {
    if (int rc = Real(f)->pMethods->xWrite(Real(f), buf, static_cast<int>(allowed), off); rc != SQLITE_OK) return rc;
  }
  return fault;
}

int Truncate(sqlite3_file* f, sqlite3_int64 size) { return Real(f)->pMethods->xTruncate(Real(f), size); }

int Sync(sqlite3_file* f, int flags) {
  if (int rc = FaultVfs::Get().SyncCode(); rc != SQLITE_OK) return rc;
  return Real(f)->pMethods->xSync(Real(f), flags);
}

int FileSize(sqlite3_file* f, sqlite3_int64* size) { return Real(f)->pMethods->xFileSize(Real(f), size); }
int Lock(sqlite3_file* f, int level) { return Real(f)->pMethods->xLock(Real(f), level); }
int Unlock(sqlite3_file* f, int level) { return Real(f)->pMethods->xUnlock(Real(f), level); }
int CheckReservedLock(sqlite3_file* f, int* out) { return Real(f)->pMethods->xCheckReservedLock(Real(f), out); }
int FileControl(sqlite3_file* f, int op, void* arg) { return Real(f)->pMethods->xFileControl(Real(f), op, arg); }
int SectorSize(sqlite3_file* f) { return Real(f)->pMethods->xSectorSize(Real(f)); }
int DeviceCharacteristics(sqlite3_file* f) { return Real(f)->pMethods->xDeviceCharacteristics(Real(f)); }

// Version 2 and 3 methods (shared memory of the WAL index, memory-mapped pages): handed on
// when the real file has them.
int ShmMap(sqlite3_file* f, int region, int size, int extend, void volatile** out) {
  if (Real(f)->pMethods->iVersion < 2) return SQLITE_IOERR_SHMMAP;
  return Real(f)->pMethods->xShmMap(Real(f), region, size, extend, out);
}
int ShmLock(sqlite3_file* f, int offset, int n, int flags) {
  if (Real(f)->pMethods->iVersion < 2) return SQLITE_IOERR_SHMLOCK;
  return Real(f)->pMethods->xShmLock(Real(f), offset, n, flags);
}
void ShmBarrier(sqlite3_file* f) {
  if (Real(f)->pMethods->iVersion >= 2) Real(f)->pMethods->xShmBarrier(Real(f));
}
int ShmUnmap(sqlite3_file* f, int remove) {
  if (Real(f)->pMethods->iVersion < 2) return SQLITE_OK;
  return Real(f)->pMethods->xShmUnmap(Real(f), remove);
}
int Fetch(sqlite3_file* f, sqlite3_int64 off, int n, void** out) {
  // No memory-mapped reads: every page is read through xRead, where reads can fail.
  (void)f;
  (void)off;
  (void)n;
  *out = nullptr;
  return SQLITE_OK;
}
int Unfetch(sqlite3_file* f, sqlite3_int64 off, void* p) {
  (void)f;
  (void)off;
  (void)p;
  return SQLITE_OK;
}

const sqlite3_io_methods kMethods = {
    3,           Close,       Read,     Write,    Truncate,    Sync,      FileSize,
    Lock,        Unlock,      CheckReservedLock,  FileControl, SectorSize, DeviceCharacteristics,
    ShmMap,      ShmLock,     ShmBarrier,         ShmUnmap,    Fetch,      Unfetch,
};

int Open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* f, int flags, int* out_flags) {
  auto* file = reinterpret_cast<FaultFile*>(f);
  file->real = reinterpret_cast<sqlite3_file*>(file + 1);
  const int rc = Base()->xOpen(Base(), name, file->real, flags, out_flags);
  // SQLite calls xClose whenever pMethods is set, even after a failed open.
  file->header.pMethods = file->real->pMethods != nullptr ? &kMethods : nullptr;
  return rc;
}
int Delete(sqlite3_vfs*, const char* name, int sync_dir) { return Base()->xDelete(Base(), name, sync_dir); }
int Access(sqlite3_vfs*, const char* name, int flags, int* out) { return Base()->xAccess(Base(), name, flags, out); }
int FullPathname(sqlite3_vfs*, const char* name, int n, char* out) {
  return Base()->xFullPathname(Base(), name, n, out);
}
void* DlOpen(sqlite3_vfs*, const char* name) { return Base()->xDlOpen(Base(), name); }
void DlError(sqlite3_vfs*, int n, char* out) { Base()->xDlError(Base(), n, out); }
void (*DlSym(sqlite3_vfs*, void* handle, const char* symbol))(void) { return Base()->xDlSym(Base(), handle, symbol); }
void DlClose(sqlite3_vfs*, void* handle) { Base()->xDlClose(Base(), handle); }
int Randomness(sqlite3_vfs*, int n, char* out) { return Base()->xRandomness(Base(), n, out); }
int Sleep(sqlite3_vfs*, int micros) { return Base()->xSleep(Base(), micros); }
int CurrentTime(sqlite3_vfs*, double* out) { return Base()->xCurrentTime(Base(), out); }
int GetLastError(sqlite3_vfs*, int n, char* out) { return Base()->xGetLastError(Base(), n, out); }
int CurrentTimeInt64(sqlite3_vfs*, sqlite3_int64* out) { return Base()->xCurrentTimeInt64(Base(), out); }

void Register() {
  static sqlite3_vfs vfs = {
      2,  // iVersion: up to xCurrentTimeInt64 (the system-call overrides are not handed on)
      static_cast<int>(sizeof(FaultFile)) + Base()->szOsFile,
      Base()->mxPathname,
      nullptr,
      FaultVfs::kName,
      nullptr,
      Open,
      Delete,
      Access,
      FullPathname,
      DlOpen,
      DlError,
      DlSym,
      DlClose,
      Randomness,
      Sleep,
      CurrentTime,
      GetLastError,
      CurrentTimeInt64,
      nullptr,
      nullptr,
      nullptr,
  };
  if (sqlite3_vfs_register(&vfs, /*makeDflt=*/0) != SQLITE_OK) std::abort();
}

}  // namespace

FaultVfs& FaultVfs::Get() {
  static FaultVfs* const vfs = [] {
    Register();
    return new FaultVfs();
  }();
  return *vfs;
}

int FaultVfs::WriteCode(uint64_t n, uint64_t* allowed) {
  switch (BeforeWrite(n, allowed)) {
    case Fault::kNone: return SQLITE_OK;
    case Fault::kIo: return SQLITE_IOERR_WRITE;
    case Fault::kDiskFull: return SQLITE_FULL;
  }
  return SQLITE_OK;
}

int FaultVfs::SyncCode() { return BeforeSync() == Fault::kNone ? SQLITE_OK : SQLITE_IOERR_FSYNC; }

int FaultVfs::ReadCode() { return BeforeRead() == Fault::kNone ? SQLITE_OK : SQLITE_IOERR_READ; }

}  // namespace aegis::store::test
