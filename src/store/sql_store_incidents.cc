// SqlStore: incidents, decisions, actions and host states.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "store/sql_store.h"
#include "store/sql_text.h"
#include "store/text_checks.h"

namespace aegis::store {

namespace {

constexpr std::string_view kIncidentColumns = "id, job, triggered_by, opened_at, decided_at, verdict, decided_by";
constexpr std::string_view kActionColumns = "key, incident, host, op, backend, dry_run, at, result, detail, updated_at";
constexpr std::string_view kHostColumns = "host, state, since, incident, reason";
constexpr size_t kIdsPerQuery = 500;
// Store-assigned incident ids skip those a caller already took; this bounds the skipping.
constexpr int kMaxIdAttempts = 1000;

Status IncidentFromRow(const SqlRows& r, size_t i, IncidentRecord* out) {
  IncidentRecord inc;
  inc.id = r.Text(i, 0);
  inc.job = r.Text(i, 1);
  const std::string trigger = r.Text(i, 2);
  const auto t = ParseTrigger(trigger);
  if (!t) return Unreadable("incidents", "triggered_by", trigger);
  inc.trigger = *t;
  inc.opened_at = r.Real(i, 3);
  inc.decided_at = r.Real(i, 4);
  inc.verdict = r.Text(i, 5);
  inc.decided_by = r.Text(i, 6);
  *out = std::move(inc);
  return Status::Ok();
}

Status ActionFromRow(const SqlRows& r, size_t i, ActionRecord* out) {
  ActionRecord a;
  a.key = r.Text(i, 0);
  a.incident = r.Text(i, 1);
  a.host = r.Text(i, 2);
  const std::string op = r.Text(i, 3), backend = r.Text(i, 4), result = r.Text(i, 7);
  const auto o = ParseActionOp(op);
  if (!o) return Unreadable("actions", "op", op);
  const auto b = ParseActionBackend(backend);
  if (!b) return Unreadable("actions", "backend", backend);
  const auto res = ParseActionResult(result);
  if (!res) return Unreadable("actions", "result", result);
  a.op = *o;
  a.backend = *b;
  a.dry_run = r.Int(i, 5) != 0;
  a.at = r.Real(i, 6);
  a.result = *res;
  a.detail = r.Text(i, 8);
  a.updated_at = r.Real(i, 9);
  *out = std::move(a);
  return Status::Ok();
}

Status HostFromRow(const SqlRows& r, size_t i, HostRecord* out) {
  HostRecord h;
  h.host = r.Text(i, 0);
  const std::string state = r.Text(i, 1);
  const auto s = ParseHostState(state);
  if (!s) return Unreadable("hosts", "state", state);
  h.state = *s;
  h.since = r.Real(i, 2);
  h.incident = r.Text(i, 3);
  h.reason = r.Text(i, 4);
  *out = std::move(h);
  return Status::Ok();
}

Status CheckAction(const ActionRecord& a, bool need_incident_check = true) {
  Status st = CheckName("action key", a.key);
  if (st.ok() && need_incident_check && !a.incident.empty()) st = CheckName("action incident", a.incident);
  if (st.ok()) st = CheckName("action host", a.host);
  if (st.ok()) st = CheckText("action detail", a.detail);
  if (st.ok()) st = CheckTime("action at", a.at, /*allow_nan=*/true);
  return st;
}

Status InsertAction(SqlConnection& c, const ActionRecord& a, std::string_view incident, double at, int64_t* changed) {
  return c.Exec("INSERT INTO actions (" + std::string(kActionColumns) +
                    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $7) ON CONFLICT (key) DO NOTHING",
                {SqlParam::Text(a.key), SqlParam::TextOrNull(incident), SqlParam::Text(a.host),
                 SqlParam::Text(ToString(a.op)), SqlParam::Text(ToString(a.backend)), SqlParam::Int(a.dry_run ? 1 : 0),
                 SqlParam::Real(at), SqlParam::Text(ToString(a.result)), SqlParam::Text(a.detail)},
                nullptr, changed);
}

// Fills the actions of every incident given, with one query per kIdsPerQuery incidents.
Status LoadActions(SqlConnection& c, std::vector<IncidentRecord>* incidents) {
  std::map<std::string, IncidentRecord*> by_id;
  for (IncidentRecord& inc : *incidents) {
    inc.actions.clear();
    by_id[inc.id] = &inc;
  }
  for (size_t first = 0; first < incidents->size(); first += kIdsPerQuery) {
    const size_t n = std::min(kIdsPerQuery, incidents->size() - first);
    std::vector<SqlParam> params;
    for (size_t i = first; i < first + n; ++i) params.push_back(SqlParam::Text((*incidents)[i].id));
    SqlRows rows;
    Status st = c.Exec("SELECT " + std::string(kActionColumns) + " FROM actions WHERE incident IN (" +
                           Placeholders(1, n) + ") ORDER BY at, key",
                       params, &rows);
    if (!st.ok()) return st;
    for (size_t i = 0; i < rows.size(); ++i) {
      ActionRecord a;
      if (Status s = ActionFromRow(rows, i, &a); !s.ok()) return s;
      auto it = by_id.find(a.incident);
      if (it != by_id.end()) it->second->actions.push_back(std::move(a));
    }
  }
  return Status::Ok();
}

Status IncidentExists(SqlConnection& c, std::string_view id, bool* exists) {
  SqlRows rows;
  Status st = c.Exec("SELECT 1 FROM incidents WHERE id = $1", {SqlParam::Text(id)}, &rows);
  *exists = st.ok() && !rows.empty();
  return st;
}

// One host's move to a new state, with its history row. Creates the host's row (in
// service) when the store did not know it, then locks it: a concurrent change of the same
// host waits, so that `from` in history is always the state really left.
struct HostMove {
  std::string_view host;
  HostState to;
  std::string_view reason;
  std::string_view incident;  // may be empty
  ChangedBy by;
  std::string_view actor;
  double at;
};

// A decision never moves a host a person holds: *held says it met one.
Status ApplyHostMove(SqlConnection& c, std::string_view lock_row, const HostMove& m, bool* changed,
                     bool* held = nullptr) {
  *changed = false;
  if (held) *held = false;
  Status st = c.Exec(
      "INSERT INTO hosts (host, state, since, incident, reason) VALUES ($1, 'in_service', $2, NULL, '') "
      "ON CONFLICT (host) DO NOTHING",
      {SqlParam::Text(m.host), SqlParam::Real(m.at)});
  if (!st.ok()) return st;
  SqlRows rows;
  st = c.Exec("SELECT state FROM hosts WHERE host = $1" + std::string(lock_row), {SqlParam::Text(m.host)}, &rows);
  if (!st.ok()) return st;
  if (rows.empty()) return Status::Corruption("host " + std::string(m.host) + " vanished while being changed");
  const std::string from_text = rows.Text(0, 0);
  const auto from = ParseHostState(from_text);
  if (!from) return Unreadable("hosts", "state", from_text);
  if (m.by == ChangedBy::kDecision && *from == HostState::kHeld) {
    if (held) *held = true;
    return Status::Ok();
  }
  if (*from == m.to) return Status::Ok();
  st = c.Exec("UPDATE hosts SET state = $2, since = $3, incident = $4, reason = $5 WHERE host = $1",
              {SqlParam::Text(m.host), SqlParam::Text(ToString(m.to)), SqlParam::Real(m.at),
               SqlParam::TextOrNull(m.incident), SqlParam::Text(m.reason)});
  if (!st.ok()) return st;
  st = c.Exec(
      "INSERT INTO host_history (host, at, from_state, to_state, incident, reason, changed_by, actor) "
      "VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
      {SqlParam::Text(m.host), SqlParam::Real(m.at), SqlParam::Text(ToString(*from)), SqlParam::Text(ToString(m.to)),
       SqlParam::TextOrNull(m.incident), SqlParam::Text(m.reason), SqlParam::Text(ToString(m.by)),
       SqlParam::Text(m.actor)});
  if (st.ok()) *changed = true;
  return st;
}

Status CheckDecision(const Decision& d) {
  Status st = CheckName("decision incident", d.incident);
  if (st.ok()) st = CheckJson("decision verdict", d.verdict);
  if (st.ok()) st = CheckTime("decision decided_at", d.decided_at);
  if (st.ok()) st = CheckName("decision decided_by", d.decided_by);
  if (!st.ok()) return st;
  std::set<std::string_view> hosts, keys;
  for (const HostChange& h : d.hosts) {
    if (!(st = CheckName("decision host", h.host)).ok()) return st;
    if (!(st = CheckText("decision host reason", h.reason)).ok()) return st;
    if (!hosts.insert(h.host).second) return Status::InvalidArgument("decision: host " + h.host + " changed twice");
  }
  for (const ActionRecord& a : d.actions) {
    if (!(st = CheckAction(a, /*need_incident_check=*/false)).ok()) return st;
    if (!keys.insert(a.key).second) return Status::InvalidArgument("decision: action key " + a.key + " given twice");
  }
  return Status::Ok();
}

}  // namespace

// --- incidents ---

Status SqlStore::OpenIncident(const IncidentOpening& o, IncidentRecord* out, bool* created) {
  *created = false;
  Status st = CheckName("incident job", o.job);
  if (st.ok()) st = CheckTime("incident opened_at", o.opened_at);
  if (st.ok() && !o.id.empty()) st = CheckName("incident id", o.id);
  if (!st.ok()) return st;
  const std::string trigger(ToString(o.trigger));
  const std::string select_existing =
      "SELECT " + std::string(kIncidentColumns) + " FROM incidents WHERE job = $1 AND triggered_by = $2";
  bool made = false;
  std::vector<IncidentRecord> found(1);
  st = Transact(true, [&](SqlConnection& c) -> Status {
    made = false;
    SqlRows rows;
    Status s = c.Exec(select_existing, {SqlParam::Text(o.job), SqlParam::Text(trigger)}, &rows);
    if (!s.ok()) return s;
    if (!rows.empty()) {
      if (!(s = IncidentFromRow(rows, 0, &found[0])).ok()) return s;
      return LoadActions(c, &found);
    }
    std::string id = o.id;
    bool taken = false;
    if (!id.empty()) {
      if (!(s = IncidentExists(c, id, &taken)).ok()) return s;
      if (taken) return Status::AlreadyExists("incident id " + id + " is already used by another job or trigger");
    } else {
      for (int attempt = 0; id.empty() || taken; ++attempt) {
        if (attempt == kMaxIdAttempts) return Status::ResourceExhausted("no free incident id");
        if (!(s = c.Exec("UPDATE counters SET value = value + 1 WHERE name = 'incident' RETURNING value", {},
                         &rows)).ok())
          return s;
        if (rows.empty()) return Status::Corruption("counters: no 'incident' row");
        id = "inc-" + std::to_string(rows.Int(0, 0));
        if (!(s = IncidentExists(c, id, &taken)).ok()) return s;
      }
    }
    int64_t changed = 0;
    s = c.Exec(
        "INSERT INTO incidents (id, job, triggered_by, opened_at) VALUES ($1, $2, $3, $4) "
        "ON CONFLICT (job, triggered_by) DO NOTHING",
        {SqlParam::Text(id), SqlParam::Text(o.job), SqlParam::Text(trigger), SqlParam::Real(o.opened_at)}, nullptr,
        &changed);
    if (!s.ok()) return s;
    if (changed == 0) {  // another controller opened it meanwhile (its commit is visible now)
      if (!(s = c.Exec(select_existing, {SqlParam::Text(o.job), SqlParam::Text(trigger)}, &rows)).ok()) return s;
      if (rows.empty()) return Status::Unavailable("incident of job " + o.job + " was opened and removed meanwhile");
      if (!(s = IncidentFromRow(rows, 0, &found[0])).ok()) return s;
      return LoadActions(c, &found);
    }
    found[0] = IncidentRecord();
    found[0].id = id;
    found[0].job = o.job;
    found[0].trigger = o.trigger;
    found[0].opened_at = o.opened_at;
    made = true;
    return Status::Ok();
  });
  if (!st.ok()) return st;
  *out = std::move(found[0]);
  *created = made;
  return Status::Ok();
}

Status SqlStore::GetIncident(std::string_view id, IncidentRecord* out) {
  if (Status st = CheckName("incident id", id); !st.ok()) return st;
  return Transact(false, [&](SqlConnection& c) -> Status {
    SqlRows rows;
    Status st = c.Exec("SELECT " + std::string(kIncidentColumns) + " FROM incidents WHERE id = $1",
                       {SqlParam::Text(id)}, &rows);
    if (!st.ok()) return st;
    if (rows.empty()) return Status::NotFound("incident " + std::string(id));
    std::vector<IncidentRecord> one(1);
    if (!(st = IncidentFromRow(rows, 0, &one[0])).ok()) return st;
    if (!(st = LoadActions(c, &one)).ok()) return st;
    *out = std::move(one[0]);
    return Status::Ok();
  });
}

Status SqlStore::ListIncidents(const IncidentFilter& filter, std::vector<IncidentRecord>* out) {
  out->clear();
  if (!filter.job.empty())
    if (Status st = CheckName("incident filter job", filter.job); !st.ok()) return st;
  std::string sql = "SELECT " + std::string(kIncidentColumns) + " FROM incidents WHERE 1 = 1";
  std::vector<SqlParam> params;
  if (filter.undecided_only) sql += " AND decided_at IS NULL";
  if (!filter.job.empty()) {
    params.push_back(SqlParam::Text(filter.job));
    sql += " AND job = " + Placeholder(params.size());
  }
  params.push_back(SqlParam::Int(LimitParam(filter.limit)));
  sql += " ORDER BY opened_at DESC, id DESC LIMIT " + Placeholder(params.size());
  return Transact(false, [&](SqlConnection& c) -> Status {
    SqlRows rows;
    Status st = c.Exec(sql, params, &rows);
    if (!st.ok()) return st;
    std::vector<IncidentRecord> list(rows.size());
    for (size_t i = 0; i < rows.size(); ++i)
      if (!(st = IncidentFromRow(rows, i, &list[i])).ok()) return st;
    if (!(st = LoadActions(c, &list)).ok()) return st;
    *out = std::move(list);
    return Status::Ok();
  });
}

Status SqlStore::RecordDecision(const Decision& d, DecisionOutcome* outcome) {
  *outcome = DecisionOutcome();
  if (Status st = CheckDecision(d); !st.ok()) return st;
  std::vector<const HostChange*> hosts;  // locked in name order: no deadlock between two decisions
  for (const HostChange& h : d.hosts) hosts.push_back(&h);
  std::sort(hosts.begin(), hosts.end(), [](const HostChange* a, const HostChange* b) { return a->host < b->host; });
  const std::string_view lock_row = backend_->dialect().lock_row;
  DecisionOutcome result;
  Status st = Transact(true, [&](SqlConnection& c) -> Status {
    int64_t changed = 0;
    Status s = c.Exec(
        "UPDATE incidents SET decided_at = $2, verdict = $3, decided_by = $4 WHERE id = $1 AND decided_at IS NULL",
        {SqlParam::Text(d.incident), SqlParam::Real(d.decided_at), SqlParam::Text(d.verdict),
         SqlParam::Text(d.decided_by)},
        nullptr, &changed);
    if (!s.ok()) return s;
    if (changed == 0) {
      SqlRows rows;
      if (!(s = c.Exec("SELECT decided_at, decided_by FROM incidents WHERE id = $1", {SqlParam::Text(d.incident)},
                       &rows)).ok())
        return s;
      if (rows.empty()) return Status::NotFound("incident " + d.incident);
      result = DecisionOutcome{false, rows.Real(0, 0), rows.Text(0, 1), {}};
      return Status::Ok();
    }
    std::set<std::string> held, checked;
    for (const HostChange* h : hosts) {
      bool moved = false, is_held = false;
      s = ApplyHostMove(c, lock_row,
                        HostMove{h->host, h->to, h->reason, d.incident, ChangedBy::kDecision, d.decided_by,
                                 d.decided_at},
                        &moved, &is_held);
      if (!s.ok()) return s;
      checked.insert(h->host);
      if (is_held) held.insert(h->host);
    }
    for (const ActionRecord& a : d.actions) {
      if (checked.insert(a.host).second) {  // an action on a host the decision does not move
        SqlRows rows;
        if (!(s = c.Exec("SELECT state FROM hosts WHERE host = $1", {SqlParam::Text(a.host)}, &rows)).ok()) return s;
        if (!rows.empty() && rows.Text(0, 0) == ToString(HostState::kHeld)) held.insert(a.host);
      }
      if (held.count(a.host)) continue;
      if (!(s = InsertAction(c, a, d.incident, std::isnan(a.at) ? d.decided_at : a.at, nullptr)).ok()) return s;
    }
    result = DecisionOutcome{true, d.decided_at, d.decided_by, std::vector<std::string>(held.begin(), held.end())};
    return Status::Ok();
  });
  if (st.ok()) *outcome = std::move(result);
  return st;
}

// --- actions ---

Status SqlStore::RecordAction(const ActionRecord& a, bool* inserted) {
  *inserted = false;
  if (Status st = CheckAction(a); !st.ok()) return st;
  const double at = std::isnan(a.at) ? env_->NowEpochSeconds() : a.at;
  int64_t changed = 0;
  Status st = Transact(true, [&](SqlConnection& c) -> Status {
    if (!a.incident.empty()) {
      bool exists = false;
      Status s = IncidentExists(c, a.incident, &exists);
      if (!s.ok()) return s;
      if (!exists) return Status::NotFound("incident " + a.incident);
    }
    return InsertAction(c, a, a.incident, at, &changed);
  });
  if (st.ok()) *inserted = changed > 0;
  return st;
}

Status SqlStore::UpdateActionResult(std::string_view key, ActionResult result, std::string_view detail, double at) {
  Status st = CheckName("action key", key);
  if (st.ok()) st = CheckText("action detail", detail);
  if (st.ok()) st = CheckTime("action result at", at, /*allow_nan=*/true);
  if (!st.ok()) return st;
  const double when = std::isnan(at) ? env_->NowEpochSeconds() : at;
  return Transact(true, [&](SqlConnection& c) -> Status {
    int64_t changed = 0;
    Status s = c.Exec("UPDATE actions SET result = $2, detail = $3, updated_at = $4 WHERE key = $1",
                      {SqlParam::Text(key), SqlParam::Text(ToString(result)), SqlParam::Text(detail), SqlParam::Real(when)},
                      nullptr, &changed);
    if (s.ok() && changed == 0) return Status::NotFound("action " + std::string(key));
    return s;
  });
}

Status SqlStore::GetAction(std::string_view key, ActionRecord* out) {
  if (Status st = CheckName("action key", key); !st.ok()) return st;
  return Transact(false, [&](SqlConnection& c) -> Status {
    SqlRows rows;
    Status st = c.Exec("SELECT " + std::string(kActionColumns) + " FROM actions WHERE key = $1",
                       {SqlParam::Text(key)}, &rows);
    if (!st.ok()) return st;
    if (rows.empty()) return Status::NotFound("action " + std::string(key));
    return ActionFromRow(rows, 0, out);
  });
}

Status SqlStore::ActionsWithResult(ActionResult result, size_t limit, std::vector<ActionRecord>* out) {
  out->clear();
  return Transact(false, [&](SqlConnection& c) -> Status {
    SqlRows rows;
    Status st = c.Exec("SELECT " + std::string(kActionColumns) + " FROM actions WHERE result = $1 " +
                           "ORDER BY at, key LIMIT $2",
                       {SqlParam::Text(ToString(result)), SqlParam::Int(LimitParam(limit))}, &rows);
    if (!st.ok()) return st;
    out->clear();
    for (size_t i = 0; i < rows.size(); ++i) {
      ActionRecord a;
      if (Status s = ActionFromRow(rows, i, &a); !s.ok()) return s;
      out->push_back(std::move(a));
    }
    return Status::Ok();
  });
}

// --- hosts ---

Status SqlStore::RegisterHosts(std::span<const std::string> hosts, double at, size_t* added) {
  *added = 0;
  Status st = CheckTime("hosts at", at);
  for (size_t i = 0; st.ok() && i < hosts.size(); ++i) st = CheckName("host", hosts[i]);
  if (!st.ok()) return st;
  const std::set<std::string_view> unique(hosts.begin(), hosts.end());
  const std::vector<std::string_view> names(unique.begin(), unique.end());
  size_t total = 0;
  st = Transact(true, [&](SqlConnection& c) -> Status {
    total = 0;
    for (size_t first = 0; first < names.size(); first += kIdsPerQuery) {
      const size_t n = std::min(kIdsPerQuery, names.size() - first);
      std::vector<SqlParam> params{SqlParam::Real(at)};
      std::string values;
      for (size_t i = 0; i < n; ++i) {
        params.push_back(SqlParam::Text(names[first + i]));
        values += i ? ", (" : "(";
        values += Placeholder(i + 2) + ", 'in_service', $1, NULL, '')";
      }
      int64_t changed = 0;
      Status s = c.Exec("INSERT INTO hosts (" + std::string(kHostColumns) + ") VALUES " + values +
                            " ON CONFLICT (host) DO NOTHING",
                        params, nullptr, &changed);
      if (!s.ok()) return s;
      total += static_cast<size_t>(changed);
    }
    return Status::Ok();
  });
  if (st.ok()) *added = total;
  return st;
}

Status SqlStore::SetHostState(const ManualHostChange& m, bool* changed) {
  *changed = false;
  Status st = CheckName("host", m.host);
  if (st.ok()) st = CheckText("host reason", m.reason);
  if (st.ok()) st = CheckName("host change actor", m.actor);
  if (st.ok()) st = CheckTime("host change at", m.at, /*allow_nan=*/true);
  if (st.ok() && !m.incident.empty()) st = CheckName("host change incident", m.incident);
  if (!st.ok()) return st;
  const double at = std::isnan(m.at) ? env_->NowEpochSeconds() : m.at;
  const std::string_view lock_row = backend_->dialect().lock_row;
  bool moved = false;
  st = Transact(true, [&](SqlConnection& c) -> Status {
    moved = false;
    if (!m.incident.empty()) {
      bool exists = false;
      Status s = IncidentExists(c, m.incident, &exists);
      if (!s.ok()) return s;
      if (!exists) return Status::NotFound("incident " + m.incident);
    }
    return ApplyHostMove(c, lock_row, HostMove{m.host, m.to, m.reason, m.incident, ChangedBy::kPerson, m.actor, at},
                         &moved);
  });
  if (st.ok()) *changed = moved;
  return st;
}

Status SqlStore::GetHost(std::string_view host, HostRecord* out) {
  if (Status st = CheckName("host", host); !st.ok()) return st;
  return Transact(false, [&](SqlConnection& c) -> Status {
    SqlRows rows;
    Status st = c.Exec("SELECT " + std::string(kHostColumns) + " FROM hosts WHERE host = $1", {SqlParam::Text(host)},
                       &rows);
    if (!st.ok()) return st;
    if (rows.empty()) return Status::NotFound("host " + std::string(host));
    return HostFromRow(rows, 0, out);
  });
}

Status SqlStore::ListHosts(std::vector<HostRecord>* out) {
  out->clear();
  return Transact(false, [&](SqlConnection& c) -> Status {
    SqlRows rows;
    Status st = c.Exec("SELECT " + std::string(kHostColumns) + " FROM hosts ORDER BY host", {}, &rows);
    if (!st.ok()) return st;
    std::vector<HostRecord> list(rows.size());
    for (size_t i = 0; i < rows.size(); ++i)
      if (!(st = HostFromRow(rows, i, &list[i])).ok()) return st;
    *out = std::move(list);
    return Status::Ok();
  });
}

namespace {

constexpr std::string_view kHistoryColumns = "host, at, from_state, to_state, incident, reason, changed_by, actor";

Status HistoryFromRow(const SqlRows& rows, size_t i, HistoryEntry* e) {
  e->host = rows.Text(i, 0);
  e->at = rows.Real(i, 1);
  const std::string from = rows.Text(i, 2), to = rows.Text(i, 3), by = rows.Text(i, 6);
  const auto f = ParseHostState(from);
  const auto t = ParseHostState(to);
  const auto b = ParseChangedBy(by);
  if (!f) return Unreadable("host_history", "from_state", from);
  if (!t) return Unreadable("host_history", "to_state", to);
  if (!b) return Unreadable("host_history", "changed_by", by);
  e->from = *f;
  e->to = *t;
  e->by = *b;
  e->incident = rows.Text(i, 4);
  e->reason = rows.Text(i, 5);
  e->actor = rows.Text(i, 7);
  return Status::Ok();
}

}  // namespace

Status SqlStore::HostHistory(std::string_view host, size_t limit, std::vector<HistoryEntry>* out) {
  out->clear();
  if (Status st = CheckName("host", host); !st.ok()) return st;
  return Transact(false, [&](SqlConnection& c) -> Status {
    SqlRows rows;
    Status st = c.Exec("SELECT " + std::string(kHistoryColumns) +
                           " FROM host_history WHERE host = $1 ORDER BY id DESC LIMIT $2",
                       {SqlParam::Text(host), SqlParam::Int(LimitParam(limit))}, &rows);
    if (!st.ok()) return st;
    std::vector<HistoryEntry> list(rows.size());
    for (size_t i = 0; i < rows.size(); ++i)
      if (st = HistoryFromRow(rows, rows.size() - 1 - i, &list[i]); !st.ok()) return st;
    *out = std::move(list);
    return Status::Ok();
  });
}

Status SqlStore::HistorySince(double from, size_t limit, std::vector<HistoryEntry>* out) {
  out->clear();
  if (std::isnan(from)) return Status::InvalidArgument("history since: the time is not a number");
  return Transact(false, [&](SqlConnection& c) -> Status {
    SqlRows rows;
    Status st = c.Exec("SELECT " + std::string(kHistoryColumns) +
                           " FROM host_history WHERE at >= $1 ORDER BY id LIMIT $2",
                       {SqlParam::Real(std::max(from, -1e300)), SqlParam::Int(LimitParam(limit))}, &rows);
    if (!st.ok()) return st;
    std::vector<HistoryEntry> list(rows.size());
    for (size_t i = 0; i < rows.size(); ++i)
      if (st = HistoryFromRow(rows, i, &list[i]); !st.ok()) return st;
    *out = std::move(list);
    return Status::Ok();
  });
}

}  // namespace aegis::store
