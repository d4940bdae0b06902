// The SQLite backend: one database file in WAL mode (readers never block the writer),
// foreign keys on, synchronous=FULL unless options say otherwise. One connection per
// store, behind a mutex: calls run one at a time. Several processes may open one file;
// a write transaction starts with BEGIN IMMEDIATE and waits up to busy_timeout_ms for
// another process's, and a wait that runs out is Unavailable (transient).
// Leadership: an flock() on the side file PATH + "-leader" (sqlite_leader_lock.h).
#pragma once
#include <memory>
#include <string>

#include "common/status.h"
#include "store/sql_connection.h"
#include "store/store.h"

namespace aegis::store {

// Opens (creating if missing) the database file at `path`. A file that is not an SQLite
// database: Corruption; one that cannot be opened or created: IOError.
Status OpenSqliteBackend(const std::string& path, const StoreOptions& options, std::unique_ptr<SqlBackend>* out);

}  // namespace aegis::store
