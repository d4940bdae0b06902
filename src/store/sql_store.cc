// SqlStore: opening (schema), events, jobs and the topology. Incidents, decisions, actions
// and hosts are in sql_store_incidents.cc.
#include "store/sql_store.h"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <string>

#include "store/sql_text.h"
#include "store/text_checks.h"

namespace aegis::store {

namespace {

// Rows per INSERT of a batch: 7 parameters each, well under both engines' limits
// (SQLite 32766, PostgreSQL 65535), and few distinct statement texts to prepare.
constexpr size_t kRowsPerInsert = 100;

constexpr std::string_view kEventColumns = "seq, id, node, type, at, received_at, body";

// "type IN ('log', 'ccl', ...)": the types this build knows. A row of another type (a
// newer controller's, sharing the database during an upgrade) is not this build's to
// read: it is left out by the query, so that paging by seq or time passes over it.
const std::string& KnownTypeFilter() {
  static const std::string filter = [] {
    std::string f = "type IN (";
    for (size_t i = 0; i < wire::kEventTypes.size(); ++i) {
      if (i) f += ", ";
      f.append("'").append(wire::ToString(wire::kEventTypes[i])).append("'");
    }
    return f + ")";
  }();
  return filter;
}

Status EventFromRow(const SqlRows& r, size_t i, Event* out) {
  Event e;
  e.seq = r.Int(i, 0);
  e.id = r.Text(i, 1);
  e.node = r.Text(i, 2);
  const std::string type = r.Text(i, 3);
  const auto t = wire::ParseEventType(type);
  if (!t) return Unreadable("events", "type", type);
  e.type = *t;
  e.at = r.Real(i, 4);
  e.received_at = r.Real(i, 5);
  e.body = r.Text(i, 6);
  *out = std::move(e);
  return Status::Ok();
}

Status EventsFromRows(const SqlRows& r, std::vector<Event>* out) {
  out->clear();
  out->reserve(r.size());
  for (size_t i = 0; i < r.size(); ++i) {
    Event e;
    if (Status s = EventFromRow(r, i, &e); !s.ok()) {
      out->clear();
      return s;
    }
    out->push_back(std::move(e));
  }
  return Status::Ok();
}

Status CheckEvent(const Event& e) {
  Status st = CheckName("event id", e.id);
  if (st.ok()) st = CheckName("event node", e.node);
  if (st.ok() && std::find(wire::kEventTypes.begin(), wire::kEventTypes.end(), e.type) == wire::kEventTypes.end())
    st = Status::InvalidArgument("event type: not one of the known types");
  if (st.ok()) st = CheckTime("event at", e.at, /*allow_nan=*/true);
  if (st.ok()) st = CheckTime("event received_at", e.received_at, /*allow_nan=*/true);
  if (st.ok()) st = CheckJson("event body", e.body);
  if (st.ok() || e.id.empty() || e.id.size() > kMaxNameBytes || !IsStorableText(e.id)) return st;
  std::string msg = "event " + e.id + ": " + st.message();  // name it when its id can be shown
  return st.code() == Status::Code::kResourceExhausted ? Status::ResourceExhausted(std::move(msg))
                                                       : Status::InvalidArgument(std::move(msg));
}

JobRecord JobFromRow(const SqlRows& r, size_t i) {
  JobRecord j;
  j.id = r.Text(i, 0);
  j.state = ParseJobState(r.Text(i, 1)).value_or(JobState::kRunning);
  j.body = r.Text(i, 2);
  j.started_at = r.Real(i, 3);
  j.ended_at = r.Real(i, 4);
  j.updated_at = r.Real(i, 5);
  return j;
}

}  // namespace

Status SqlStore::Create(std::unique_ptr<SqlBackend> backend, Env* env, std::unique_ptr<Store>* out) {
  std::unique_ptr<SqlStore> store(new SqlStore(std::move(backend), env));
  Status st = store->Migrate();
  if (!st.ok()) return st;
  *out = std::move(store);
  return Status::Ok();
}

Status SqlStore::Migrate() {
  const SqlDialect& d = backend_->dialect();
  const auto& steps = *d.migrations;
  return Transact(true, [&](SqlConnection& c) -> Status {
    Status st;
    if (!d.serialize_migrations.empty() && !(st = c.Exec(d.serialize_migrations, {})).ok()) return st;
    st = c.Exec(
        "CREATE TABLE IF NOT EXISTS schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)",
        {});
    if (!st.ok()) return st;
    SqlRows rows;
    if (!(st = c.Exec("SELECT version FROM schema_version WHERE id = 1", {}, &rows)).ok()) return st;
    const int64_t known = static_cast<int64_t>(steps.size());
    const int64_t version = rows.empty() ? 0 : rows.Int(0, 0);
    if (version > known)
      return Status::FailedPrecondition("the database's schema is version " + std::to_string(version) +
                                        ", newer than this build's " + std::to_string(known));
    if (version == known) return Status::Ok();
    for (int64_t v = version; v < known; ++v)
      for (const std::string& sql : steps[static_cast<size_t>(v)])
        if (!(st = c.Exec(sql, {})).ok()) return st;
    return rows.empty() ? c.Exec("INSERT INTO schema_version (id, version) VALUES (1, $1)", {SqlParam::Int(known)})
                        : c.Exec("UPDATE schema_version SET version = $1 WHERE id = 1", {SqlParam::Int(known)});
  });
}

// --- events ---

// One caller's batch while it waits in the group-commit queue.
struct SqlStore::PendingAppend {
  std::span<const Event> batch;
  std::vector<size_t> valid;     // indexes of the events that passed the checks
  std::vector<double> received;  // their received_at as stored
  AppendResult* result = nullptr;
  Status status;
  bool done = false;
  std::condition_variable cv;
};

Status SqlStore::AppendEvents(std::span<const Event> batch, AppendResult* result) {
  *result = AppendResult();
  PendingAppend self;
  self.batch = batch;
  self.result = result;
  self.valid.reserve(batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    Status st = CheckEvent(batch[i]);
    if (st.ok())
      self.valid.push_back(i);
    else
      result->rejected.push_back({i, std::move(st)});
  }
  if (self.valid.empty()) return Status::Ok();
  const double now = env_->NowEpochSeconds();
  self.received.resize(self.valid.size());
  for (size_t k = 0; k < self.valid.size(); ++k) {
    const double r = batch[self.valid[k]].received_at;
    self.received[k] = std::isnan(r) ? now : r;
  }

  std::unique_lock<std::mutex> lock(append_mu_);
  append_queue_.push_back(&self);
  self.cv.wait(lock, [&] { return self.done || append_queue_.front() == &self; });
  if (self.done) return self.status;  // committed by the batch in front of it
  std::vector<PendingAppend*> group;
  size_t events = 0;
  for (PendingAppend* p : append_queue_) {
    if (!group.empty() && events + p->valid.size() > kMaxGroupEvents) break;
    group.push_back(p);
    events += p->valid.size();
  }
  lock.unlock();
  const Status st = CommitAppends(group);
  lock.lock();
  for (PendingAppend* p : group) {
    append_queue_.pop_front();  // the group is the queue's front, in order
    p->status = st;
    p->done = true;
    if (p != &self) p->cv.notify_one();
  }
  if (!append_queue_.empty()) append_queue_.front()->cv.notify_one();  // the next group's leader
  return st;
}

Status SqlStore::CommitAppends(std::span<PendingAppend* const> group) {
  const SqlDialect& d = backend_->dialect();
  std::vector<size_t> added(group.size());
  Status st = Transact(true, [&](SqlConnection& c) -> Status {
    std::fill(added.begin(), added.end(), 0);
    Status s;
    if (!d.serialize_appends.empty() && !(s = c.Exec(d.serialize_appends, {})).ok()) return s;
    std::vector<SqlParam> params;
    for (size_t g = 0; g < group.size(); ++g) {
      const PendingAppend& p = *group[g];
      for (size_t first = 0; first < p.valid.size(); first += kRowsPerInsert) {
        const size_t n = std::min(kRowsPerInsert, p.valid.size() - first);
        params.clear();
        for (size_t k = first; k < first + n; ++k) {
          const Event& e = p.batch[p.valid[k]];
          params.push_back(SqlParam::Text(e.id));
          params.push_back(SqlParam::Text(e.node));
          params.push_back(SqlParam::Text(wire::ToString(e.type)));
          params.push_back(SqlParam::Real(e.at));
          params.push_back(SqlParam::Real(std::isnan(e.at) ? p.received[k] : e.at));
          params.push_back(SqlParam::Real(p.received[k]));
          params.push_back(SqlParam::Text(e.body));
        }
        const std::string sql = "INSERT INTO events (id, node, type, at, t, received_at, body) VALUES " +
                                ValuesList(n, 7) + " ON CONFLICT (id) DO NOTHING";
        int64_t changed = 0;
        if (!(s = c.Exec(sql, params, nullptr, &changed)).ok()) return s;
        added[g] += static_cast<size_t>(changed);  // per batch: its own statements' rows
      }
    }
    return Status::Ok();
  });
  if (!st.ok()) return st;
  for (size_t g = 0; g < group.size(); ++g) {
    group[g]->result->added = added[g];
    group[g]->result->duplicates = group[g]->valid.size() - added[g];
  }
  return Status::Ok();
}

Status SqlStore::EventsAfter(int64_t after_seq, size_t limit, std::vector<Event>* out) {
  out->clear();
  const std::string sql =
      "SELECT " + std::string(kEventColumns) + " FROM events WHERE seq > $1 AND " + KnownTypeFilter() +
      " ORDER BY seq LIMIT $2";
  return Transact(false, [&](SqlConnection& c) -> Status {
    SqlRows rows;
    Status st = c.Exec(sql, {SqlParam::Int(after_seq), SqlParam::Int(LimitParam(limit))}, &rows);
    if (st.ok()) st = EventsFromRows(rows, out);
    return st;
  });
}

Status SqlStore::EventsInRange(const EventRange& range, std::vector<Event>* out) {
  out->clear();
  if (std::isnan(range.from) || std::isnan(range.to)) return Status::InvalidArgument("event range: NaN bound");
  if (range.after_seq != 0)
    if (Status st = CheckTime("event range after_time", range.after_time); !st.ok()) return st;
  for (const std::string& h : range.hosts)
    if (Status st = CheckName("event range host", h); !st.ok()) return st;

  // Infinite bounds are left out rather than bound: not every engine stores infinities.
  std::vector<SqlParam> params;
  std::string where = "1 = 1";
  if (std::isfinite(range.from)) {
    params.push_back(SqlParam::Real(range.from));
    where += " AND t >= " + Placeholder(params.size());
  }
  if (std::isfinite(range.to)) {
    params.push_back(SqlParam::Real(range.to));
    where += " AND t <= " + Placeholder(params.size());
  }
  if (!range.hosts.empty()) {
    where += " AND node IN (" + Placeholders(params.size() + 1, range.hosts.size()) + ")";
    for (const std::string& h : range.hosts) params.push_back(SqlParam::Text(h));
  }
  if (!range.types.empty()) {
    where += " AND type IN (" + Placeholders(params.size() + 1, range.types.size()) + ")";
    for (wire::EventType t : range.types) params.push_back(SqlParam::Text(wire::ToString(t)));
  } else {
    where += " AND " + KnownTypeFilter();
  }
  if (range.after_seq != 0) {  // keyset paging: (t, seq) > (after_time, after_seq)
    params.push_back(SqlParam::Real(range.after_time));
    params.push_back(SqlParam::Int(range.after_seq));
    const std::string time = Placeholder(params.size() - 1), seq = Placeholder(params.size());
    where += " AND (t > " + time + " OR (t = " + time + " AND seq > " + seq + "))";
  }
  params.push_back(SqlParam::Int(LimitParam(range.limit)));
  const std::string sql = "SELECT " + std::string(kEventColumns) + " FROM events WHERE " + where +
                          " ORDER BY t, seq LIMIT " + Placeholder(params.size());
  return Transact(false, [&](SqlConnection& c) -> Status {
    SqlRows rows;
    Status st = c.Exec(sql, params, &rows);
    if (st.ok()) st = EventsFromRows(rows, out);
    return st;
  });
}

Status SqlStore::PruneEvents(double received_before, std::span<const wire::EventType> types, size_t* deleted) {
  *deleted = 0;
  if (Status st = CheckTime("prune before", received_before); !st.ok()) return st;
  std::string sql = "DELETE FROM events WHERE received_at < $1";
  std::vector<SqlParam> params = {SqlParam::Real(received_before)};
  if (!types.empty()) {
    sql += " AND type IN (" + Placeholders(params.size() + 1, types.size()) + ")";
    for (wire::EventType t : types) params.push_back(SqlParam::Text(wire::ToString(t)));
  }
  int64_t changed = 0;
  Status st = Transact(true, [&](SqlConnection& c) -> Status { return c.Exec(sql, params, nullptr, &changed); });
  if (st.ok()) *deleted = static_cast<size_t>(changed);
  return st;
}

// --- jobs ---

Status SqlStore::PutJob(const JobRecord& job, bool* applied) {
  *applied = false;
  Status st = CheckName("job id", job.id);
  if (st.ok()) st = CheckJson("job body", job.body);
  if (st.ok()) st = CheckTime("job started_at", job.started_at, true);
  if (st.ok()) st = CheckTime("job ended_at", job.ended_at, true);
  if (st.ok()) st = CheckTime("job updated_at", job.updated_at);
  if (!st.ok()) return st;
  int64_t changed = 0;
  st = Transact(true, [&](SqlConnection& c) -> Status {
    return c.Exec(
        "INSERT INTO jobs (id, state, body, started_at, ended_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6) "
        "ON CONFLICT (id) DO UPDATE SET state = excluded.state, body = excluded.body, "
        "started_at = excluded.started_at, ended_at = excluded.ended_at, updated_at = excluded.updated_at "
        "WHERE jobs.updated_at <= excluded.updated_at",
        {SqlParam::Text(job.id), SqlParam::Text(ToString(job.state)), SqlParam::Text(job.body),
         SqlParam::Real(job.started_at), SqlParam::Real(job.ended_at), SqlParam::Real(job.updated_at)},
        nullptr, &changed);
  });
  if (st.ok()) *applied = changed > 0;
  return st;
}

Status SqlStore::GetJob(std::string_view id, JobRecord* out) {
  if (Status st = CheckName("job id", id); !st.ok()) return st;
  return Transact(false, [&](SqlConnection& c) -> Status {
    SqlRows rows;
    Status st = c.Exec("SELECT id, state, body, started_at, ended_at, updated_at FROM jobs WHERE id = $1",
                       {SqlParam::Text(id)}, &rows);
    if (!st.ok()) return st;
    if (rows.empty()) return Status::NotFound("job " + std::string(id));
    *out = JobFromRow(rows, 0);
    return Status::Ok();
  });
}

Status SqlStore::ListJobs(std::optional<JobState> state, std::vector<JobRecord>* out) {
  out->clear();
  return Transact(false, [&](SqlConnection& c) -> Status {
    SqlRows rows;
    Status st = state ? c.Exec("SELECT id, state, body, started_at, ended_at, updated_at FROM jobs "
                               "WHERE state = $1 ORDER BY id",
                               {SqlParam::Text(ToString(*state))}, &rows)
                      : c.Exec("SELECT id, state, body, started_at, ended_at, updated_at FROM jobs ORDER BY id", {},
                               &rows);
    if (!st.ok()) return st;
    out->clear();
    for (size_t i = 0; i < rows.size(); ++i) out->push_back(JobFromRow(rows, i));
    return Status::Ok();
  });
}

// --- topology ---

Status SqlStore::PutTopology(std::string_view json, double at) {
  Status st = CheckJson("topology", json);
  if (st.ok()) st = CheckTime("topology at", at);
  if (!st.ok()) return st;
  return Transact(true, [&](SqlConnection& c) -> Status {
    return c.Exec(
        "INSERT INTO topology (id, body, updated_at) VALUES (1, $1, $2) "
        "ON CONFLICT (id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at",
        {SqlParam::Text(json), SqlParam::Real(at)});
  });
}

Status SqlStore::Ping() {
  return Transact(false, [](SqlConnection& c) -> Status { return c.Exec("SELECT 1", {}); });
}

Status SqlStore::GetTopology(std::string* json, double* updated_at) {
  return Transact(false, [&](SqlConnection& c) -> Status {
    SqlRows rows;
    Status st = c.Exec("SELECT body, updated_at FROM topology WHERE id = 1", {}, &rows);
    if (!st.ok()) return st;
    if (rows.empty()) return Status::NotFound("no topology stored");
    *json = rows.Text(0, 0);
    *updated_at = rows.Real(0, 1);
    return Status::Ok();
  });
}

}  // namespace aegis::store
