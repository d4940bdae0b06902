// The store's schema, written once for both engines so that they hold the same tables,
// keys and checks; only two column types are spelled differently. Times are epoch
// seconds (floating point), NULL where unknown. Version N of a database is the result of
// the first N migrations; SqlStore applies the missing ones when a store is opened.
//
//   events        seq (assigned, increasing in commit order), id (agent's, unique), node,
//                 type, at (NULL: unknown), t (at, else received_at: what ranges use),
//                 received_at, body (JSON)
//   jobs          id, state, body (job.json), started_at, ended_at, updated_at
//   incidents     id, job, triggered_by, opened_at, decided_at, verdict (JSON),
//                 decided_by; one per (job, triggered_by)
//                 (version 2: triggered_by may be critical_error)
//   actions       key (idempotency), incident, host, op, backend, dry_run, at, result,
//                 detail, updated_at
//   hosts         host, state, since, incident, reason (no row: in service)
//   host_history  id (order), host, at, from_state, to_state, incident, reason,
//                 changed_by (decision / person), actor; indexed by at (version 2)
//   topology      one row: body (JSON), updated_at
//   counters      name, value (the last store-assigned incident number)
//   schema_version one row: version (created by SqlStore itself)
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace aegis::store {

struct SqlTypes {
  std::string_view real;        // a double column ("REAL", "DOUBLE PRECISION")
  std::string_view serial_key;  // an integer primary key the engine assigns in increasing order
  // SQLite cannot change a table's CHECK: a migration that widens one rebuilds the table
  // there, and alters the constraint on PostgreSQL.
  bool sqlite = false;
};

// migrations[i]: the statements that take the schema from version i to version i + 1.
std::vector<std::vector<std::string>> SchemaMigrations(const SqlTypes& types);

}  // namespace aegis::store
