#include "agent/event_output.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "agent/fs_util.h"

namespace aegis::agent {

namespace {

constexpr size_t kMaxScopes = 64;

}  // namespace

EventOutput::EventOutput(AgentCounters* counters, bool coalesce_logs, Env* env)
    : counters_(counters),
      coalesce_logs_(coalesce_logs),
      env_(env ? env : Env::Default()) {}

void EventOutput::Add(EventType type, std::string json, double read_at) {
  if (std::isnan(read_at)) read_at = env_->NowEpochSeconds();
  StampEvent(&json, read_at, JobAt(read_at));
  pending_.push_back(std::move(json));
  types_.push_back(type);
}

void EventOutput::AddLog(std::string id, const std::string& node, SourceKind source, const std::string& file,
                         LogEvent&& event, double read_at) {
  if (std::isnan(read_at)) read_at = env_->NowEpochSeconds();
  if (!coalesce_logs_) {
    Add(EventType::kLog, LogEventJson(id, node, source, file, std::move(event)), read_at);
    return;
  }
  // Records read under different jobs are never one event: the job decides whose they are.
  HeldLog& held = held_[{file, JobAt(read_at)}];
  if (held.ids.empty()) {
    held.node = node;
    held.source = source;
  }
  if (held.events.Add(std::move(event)).second) {
    held.ids.push_back(std::move(id));
    held.read_at.push_back(read_at);
    if (++held_count_ >= kMaxHeldLogEvents) FlushLogs();
  }
}

void EventOutput::FlushLogs() {
  for (auto& [key, held] : held_) {
    std::vector<LogEvent> events = held.events.Take();
    for (size_t i = 0; i < events.size(); ++i)
      Add(EventType::kLog, LogEventJson(held.ids[i], held.node, held.source, key.first, std::move(events[i])),
          held.read_at[i]);
  }
  held_.clear();
  held_count_ = 0;
}

void EventOutput::SetScope(const std::string& job, double since) {
  if (job == this->job()) return;
  const double now = env_->NowEpochSeconds();
  // A job is known from its window's opening (the controller's clock; a later opening
  // than now is taken as now); the end of one only from when it is heard of.
  double from = now;
  if (!job.empty() && std::isfinite(since) && since < now) from = since;
  while (!scopes_.empty() && scopes_.back().first >= from) scopes_.pop_back();
  if (scopes_.empty() && job.empty()) return;  // nothing known before: none already
  scopes_.emplace_back(from, job);
  if (scopes_.size() > kMaxScopes) scopes_.erase(scopes_.begin());
}

const std::string& EventOutput::JobAt(double t) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
    if (it->first <= t) return it->second;
  return none_;
}

void StampEvent(std::string* json, double read_at, const std::string& job) {
  if (json->size() < 2 || json->back() != '}') return;
  json->pop_back();
  const bool empty = json->find_first_not_of(" \t\r\n", 1) == std::string::npos;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s\"read_at\":%.3f", empty ? "" : ",", read_at);
  *json += buf;
  if (!job.empty()) *json += ",\"job\":" + nlohmann::json(job).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  *json += '}';
}

}  // namespace aegis::agent
