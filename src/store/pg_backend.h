// The PostgreSQL backend: a pool of connections (pg_connection.h), opened as needed up to
// pg_pool_size, each leased to one call at a time; a lost connection is dropped and the
// next lease opens a new one. Transactions run at READ COMMITTED (reads: REPEATABLE READ,
// read only, so that an incident and its actions are read from one snapshot); event
// appends take a transaction-scoped advisory lock so that seq values commit in order, and
// host rows are locked (FOR UPDATE) before they change.
// Leadership: a session advisory lock on a connection of its own (pg_leader_lock.h).
#pragma once
#include <memory>
#include <string>

#include "common/status.h"
#include "store/sql_connection.h"
#include "store/store.h"

namespace aegis::store {

// url: "postgresql://..." or "postgres://...". Connects once to check that the server is
// there (Unavailable if not).
Status OpenPgBackend(const std::string& url, const StoreOptions& options, std::unique_ptr<SqlBackend>* out);

}  // namespace aegis::store
