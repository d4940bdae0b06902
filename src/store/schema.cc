#include "store/schema.h"

namespace aegis::store {

namespace {

// Replaces every "{REAL}" and "{SERIAL_KEY}".
std::string Spell(std::string_view sql, const SqlTypes& types) {
  std::string out;
  for (size_t i = 0; i < sql.size();) {
    if (sql.substr(i, 6) == "{REAL}") {
      out += types.real;
      i += 6;
    } else if (sql.substr(i, 12) == "{SERIAL_KEY}") {
      out += types.serial_key;
      i += 12;
    } else {
      out += sql[i++];
    }
  }
  return out;
}

constexpr std::string_view kHostStates = "('in_service', 'isolated', 'repair', 'offline', 'held')";

std::string IncidentsTable(std::string_view triggers) {
  return "CREATE TABLE incidents ("
         " id TEXT PRIMARY KEY,"
         " job TEXT NOT NULL,"
         " triggered_by TEXT NOT NULL"
         "  CHECK (triggered_by IN " + std::string(triggers) + "),"
         " opened_at {REAL} NOT NULL,"
         " decided_at {REAL},"
         " verdict TEXT,"
         " decided_by TEXT,"
         " UNIQUE (job, triggered_by),"
         " CHECK ((decided_at IS NULL) = (verdict IS NULL)))";
}

// Version 1: the initial schema.
std::vector<std::string> Version1() {
  const std::string hs(kHostStates);
  return {
      "CREATE TABLE events ("
      " seq {SERIAL_KEY},"
      " id TEXT NOT NULL UNIQUE,"
      " node TEXT NOT NULL,"
      " type TEXT NOT NULL,"
      " at {REAL},"
      " t {REAL} NOT NULL,"
      " received_at {REAL} NOT NULL,"
      " body TEXT NOT NULL)",
      "CREATE INDEX events_node_t ON events (node, t)",
      "CREATE INDEX events_received_at ON events (received_at)",

      "CREATE TABLE jobs ("
      " id TEXT PRIMARY KEY,"
      " state TEXT NOT NULL CHECK (state IN ('running', 'failed', 'hung', 'slow', 'done')),"
      " body TEXT NOT NULL,"
      " started_at {REAL},"
      " ended_at {REAL},"
      " updated_at {REAL} NOT NULL)",
      "CREATE INDEX jobs_state ON jobs (state)",

      IncidentsTable("('job_failed', 'job_hung', 'ccl_stall', 'slow', 'manual')"),
      "CREATE INDEX incidents_opened_at ON incidents (opened_at)",

      "CREATE TABLE actions ("
      " key TEXT PRIMARY KEY,"
      " incident TEXT REFERENCES incidents (id),"
      " host TEXT NOT NULL,"
      " op TEXT NOT NULL,"
      " backend TEXT NOT NULL,"
      " dry_run INTEGER NOT NULL CHECK (dry_run IN (0, 1)),"
      " at {REAL} NOT NULL,"
      " result TEXT NOT NULL,"
      " detail TEXT NOT NULL,"
      " updated_at {REAL} NOT NULL)",
      "CREATE INDEX actions_incident ON actions (incident)",
      "CREATE INDEX actions_result ON actions (result, at)",

      "CREATE TABLE hosts ("
      " host TEXT PRIMARY KEY,"
      " state TEXT NOT NULL CHECK (state IN " + hs + "),"
      " since {REAL} NOT NULL,"
      " incident TEXT REFERENCES incidents (id),"
      " reason TEXT NOT NULL)",

      "CREATE TABLE host_history ("
      " id {SERIAL_KEY},"
      " host TEXT NOT NULL,"
      " at {REAL} NOT NULL,"
      " from_state TEXT NOT NULL CHECK (from_state IN " + hs + "),"
      " to_state TEXT NOT NULL CHECK (to_state IN " + hs + "),"
      " incident TEXT REFERENCES incidents (id),"
      " reason TEXT NOT NULL,"
      " changed_by TEXT NOT NULL CHECK (changed_by IN ('decision', 'person')),"
      " actor TEXT NOT NULL)",
      "CREATE INDEX host_history_host ON host_history (host, id)",

      "CREATE TABLE topology ("
      " id INTEGER PRIMARY KEY CHECK (id = 1),"
      " body TEXT NOT NULL,"
      " updated_at {REAL} NOT NULL)",

      "CREATE TABLE counters (name TEXT PRIMARY KEY, value BIGINT NOT NULL)",
      "INSERT INTO counters (name, value) VALUES ('incident', 0)",
  };
}

// Version 2: incidents opened by a critical error while the job runs; host changes found
// by time (the isolation limit's window, hosts returned to service during a job).
std::vector<std::string> Version2(const SqlTypes& types) {
  const std::string triggers = "('job_failed', 'job_hung', 'ccl_stall', 'slow', 'manual', 'critical_error')";
  std::vector<std::string> out;
  if (types.sqlite) {
    // The table is rebuilt under its own name. Rows of actions, hosts and host_history
    // refer to incidents: dropping the table leaves them dangling for a moment, which
    // deferred foreign keys allow as long as every one is found again by the commit.
    out = {
        "PRAGMA defer_foreign_keys = ON",
        "CREATE TEMP TABLE incidents_v1 AS SELECT * FROM incidents",
        "DROP TABLE incidents",
        IncidentsTable(triggers),
        "INSERT INTO incidents (id, job, triggered_by, opened_at, decided_at, verdict, decided_by)"
        " SELECT id, job, triggered_by, opened_at, decided_at, verdict, decided_by FROM incidents_v1",
        "DROP TABLE incidents_v1",
        "CREATE INDEX incidents_opened_at ON incidents (opened_at)",
    };
  } else {
    // PostgreSQL names a column's CHECK <table>_<column>_check.
    out = {
        "ALTER TABLE incidents DROP CONSTRAINT incidents_triggered_by_check",
        "ALTER TABLE incidents ADD CONSTRAINT incidents_triggered_by_check CHECK (triggered_by IN " + triggers + ")",
    };
  }
  out.push_back("CREATE INDEX host_history_at ON host_history (at)");
  return out;
}

}  // namespace

std::vector<std::vector<std::string>> SchemaMigrations(const SqlTypes& types) {
  std::vector<std::vector<std::string>> migrations{Version1(), Version2(types)};
  for (auto& step : migrations)
    for (auto& sql : step) sql = Spell(sql, types);
  return migrations;
}

}  // namespace aegis::store
