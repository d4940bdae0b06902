#include "agent/sender.h"

#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <ctime>
#include <random>

#include "agent/fs_util.h"
#include "agent/log.h"
#include "bundle/bundle_reader.h"
#include "common/http_error.h"
#include "common/text.h"
#include "wire/heartbeat_event.h"

namespace aegis::agent {

namespace {

LogLimiter& Limiter(int kind) {
  static LogLimiter limiters[8] = {
      LogLimiter(std::chrono::seconds(60)), LogLimiter(std::chrono::seconds(60)), LogLimiter(std::chrono::seconds(60)),
      LogLimiter(std::chrono::seconds(60)), LogLimiter(std::chrono::seconds(60)), LogLimiter(std::chrono::seconds(60)),
      LogLimiter(std::chrono::seconds(60)), LogLimiter(std::chrono::seconds(60))};
  return limiters[kind & 7];
}

}  // namespace

Status ParseControllerUrl(std::string_view url, ControllerUrl* out) {
  ControllerUrl u;
  std::string_view rest;
  if (StartsWith(url, "http://")) {
    u.scheme = "http";
    u.port = 80;
    rest = url.substr(7);
  } else if (StartsWith(url, "https://")) {
    u.scheme = "https";
    u.port = 443;
    rest = url.substr(8);
  } else {
    return Status::InvalidArgument("controller URL must start with http:// or https://: " + std::string(url));
  }
  const size_t slash = rest.find('/');
  std::string_view hostport = rest.substr(0, slash);
  if (slash != std::string_view::npos) {
    std::string_view prefix = rest.substr(slash);
    while (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
    u.prefix = std::string(prefix);
  }
  std::string_view host = hostport, port;
  if (StartsWith(hostport, "[")) {  // [::1]:8470
    const size_t close = hostport.find(']');
    if (close == std::string_view::npos) return Status::InvalidArgument("controller URL: unclosed '[' in " + std::string(url));
    host = hostport.substr(0, close + 1);
    std::string_view after = hostport.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') return Status::InvalidArgument("controller URL: bad port in " + std::string(url));
      port = after.substr(1);
    }
  } else if (const size_t colon = hostport.rfind(':'); colon != std::string_view::npos) {
    host = hostport.substr(0, colon);
    port = hostport.substr(colon + 1);
  }
  if (host.empty() || host == "[]") return Status::InvalidArgument("controller URL has no host: " + std::string(url));
  if (!port.empty()) {
    auto p = ParseInt(port);
    if (!p || *p <= 0 || *p > 65535) return Status::InvalidArgument("controller URL: bad port in " + std::string(url));
    u.port = static_cast<int>(*p);
  }
  u.host = std::string(host);
  *out = u;
  return Status::Ok();
}

Status ParseControllerUrls(std::string_view list, std::vector<ControllerUrl>* out) {
  out->clear();
  for (std::string_view one : Split(list, ',')) {
    one = Trim(one);
    ControllerUrl u;
    if (Status s = ParseControllerUrl(one, &u); !s.ok()) return s;
    out->push_back(std::move(u));
  }
  return Status::Ok();
}

std::optional<double> ParseRetryAfter(std::string_view value, double now_epoch) {
  value = Trim(value);
  if (value.empty()) return std::nullopt;
  if (auto s = ParseInt(value)) {
    if (*s < 0) return std::nullopt;
    return static_cast<double>(*s);
  }
  std::tm t{};
  const std::string v(value);
  const char* end = ::strptime(v.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &t);
  if (!end || *end != '\0') return std::nullopt;
  const double at = static_cast<double>(::timegm(&t));
  return std::max(0.0, at - now_epoch);
}

bool ParseControllerScope(const nlohmann::json& answer, ControllerScope* out) {
  *out = ControllerScope();
  if (!answer.is_object()) return false;
  auto it = answer.find("scope");
  if (it == answer.end() || !it->is_object()) return false;
  const nlohmann::json& sc = *it;
  auto number = [&](const char* key) {
    auto v = sc.find(key);
    return v != sc.end() && v->is_number() && std::isfinite(v->get<double>()) ? v->get<double>() : NAN;
  };
  if (auto job = sc.find("job"); job != sc.end() && job->is_string()) {
    const std::string id = job->get<std::string>();
    // A job id as the controller accepts them; anything else is not used as a tag.
    const bool safe = !id.empty() && id.size() <= 200 && std::all_of(id.begin(), id.end(), [](unsigned char c) {
      return std::isalnum(c) || c == '.' || c == '_' || c == '-' || c == ':' || c == '@' || c == '+' || c == '=';
    });
    if (safe) out->job = id;
  }
  out->since = number("since");
  out->flush = number("flush");
  const double report = number("report_s");
  if (report > 0) out->report_s = std::clamp(report, 0.1, 60.0);
  return true;
}

Sender::Sender(SenderOptions options, DiskQueue* queue, AgentCounters* counters, HealthFn health)
    : options_(std::move(options)), queue_(queue), counters_(counters), health_(std::move(health)) {
  limit_ = options_.max_events;
  if (!options_.env) options_.env = Env::Default();
}

Sender::~Sender() { Stop(); }

Status Sender::Init() {
  if (Status s = ParseControllerUrls(options_.controller, &urls_); !s.ok()) return s;
  urls_text_.clear();
  for (std::string_view one : Split(options_.controller, ',')) urls_text_.emplace_back(Trim(one));
  current_ = 0;
  Connect();
  if (!client_->is_valid()) return Status::InvalidArgument("cannot use controller URL " + CurrentUrl());
  return Status::Ok();
}

void Sender::Connect() {
  const ControllerUrl& url = urls_[current_];
  path_ = url.prefix + "/api/v1/events";
  client_ = std::make_unique<httplib::Client>(url.SchemeHostPort());
  auto secs = [](double s, time_t* sec, time_t* usec) {
    *sec = static_cast<time_t>(s);
    *usec = static_cast<time_t>((s - static_cast<double>(*sec)) * 1e6);
  };
  time_t s = 0, us = 0;
  secs(options_.connect_timeout_s, &s, &us);
  client_->set_connection_timeout(s, us);
  secs(options_.io_timeout_s, &s, &us);
  client_->set_read_timeout(s, us);
  client_->set_write_timeout(s, us);
  client_->set_keep_alive(true);
  client_->set_tcp_nodelay(true);  // a post's headers and body go out without waiting on an ACK
  if (url.scheme == "https") {
    client_->enable_server_certificate_verification(true);
    if (!options_.ca_file.empty()) client_->set_ca_cert_path(options_.ca_file.c_str());
  }
}

double Sender::NextController(double otherwise) {
  if (urls_.size() < 2) return otherwise;
  const std::string from = CurrentUrl();
  current_ = (current_ + 1) % urls_.size();
  Connect();
  if (++failed_in_row_ < urls_.size()) {
    Limiter(8).Log("controller " + from + " failed; trying " + CurrentUrl());
    return 0;
  }
  failed_in_row_ = 0;  // every one has failed in a row: wait, then go round again
  return otherwise;
}

void Sender::ReadToken() {
  if (options_.token_file.empty()) return;
  std::string text;
  if (Status s = ReadSmallFile(options_.token_file, &text, 65536); !s.ok()) {
    Limiter(7).Log("cannot read the token file " + options_.token_file + ": " + s.message());
    return;
  }
  options_.token = std::string(Trim(text));
}

double Sender::Backoff() {
  static thread_local std::minstd_rand rng(std::random_device{}());
  ++failures_;
  const double base =
      std::min(options_.backoff_max_s, options_.backoff_min_s * std::pow(2.0, std::min(failures_ - 1, 30)));
  std::uniform_real_distribution<double> jitter(0.8, 1.2);
  return base * jitter(rng);
}

std::string Sender::HeartbeatJson(double at) {
  // The id from the clock when it is made (unique per instance); `at` may stand still.
  static std::atomic<uint64_t> serial{0};
  const std::string id = options_.node + ":heartbeat:" + options_.agent_id + ":" +
                         std::to_string(static_cast<uint64_t>(options_.env->NowEpochSeconds() * 1000)) + "." + std::to_string(serial++);
  return wire::EncodeHeartbeatEvent(id, options_.node, at, health_ ? health_() : nlohmann::json::object());
}

void Sender::HeartbeatNow() {
  heartbeat_now_.store(true);
  queue_->Wake();
}

double Sender::RunOnce() {
  const double now = options_.env->NowMonotonicSeconds();
  bool heartbeat = (options_.heartbeat_s > 0 && now >= next_heartbeat_) || heartbeat_now_.load();
  const bool report = report_s_ > 0 && now >= next_report_;
  const std::string envelope = "{\"node\":" + JsonQuoted(options_.node) + ",\"agent\":" + JsonQuoted(options_.agent_id) +
                               ",\"events\":[";
  // Coverage first, then the batch: what was queued before `at` is in it or was sent.
  const double hb_at = heartbeat ? (coverage_ ? coverage_() : options_.env->NowEpochSeconds()) : 0;
  const std::string hb = heartbeat ? HeartbeatJson(hb_at) : std::string();
  const size_t overhead = envelope.size() + hb.size() + 8 + limit_;  // brackets and commas
  std::vector<QueuedRecord> recs;
  if (Status s = queue_->Peek(limit_, options_.max_body_bytes > overhead ? options_.max_body_bytes - overhead : 1, &recs);
      !s.ok()) {
    // The disk did not answer: the records stay queued, and nothing goes out (a heartbeat
    // would promise they were sent) until they can be read.
    Limiter(5).Log("cannot read the on-disk queue (" + s.message() + "); " + std::to_string(queue_->queued()) +
                   " events wait in it");
    return Backoff();
  }
  if (heartbeat && queue_->queued() > recs.size()) heartbeat = false;  // not with a backlog behind
  if (recs.empty() && !heartbeat && !report) return -1;

  std::string body = envelope;
  size_t bytes = body.size() + hb.size() + 2;
  for (const auto& r : recs) bytes += r.payload.size() + 1;
  body.reserve(bytes);
  bool first = true;
  for (const auto& r : recs) {
    if (!first) body += ',';
    first = false;
    body += r.payload;
  }
  if (heartbeat) {
    if (!first) body += ',';
    body += hb;
  }
  body += "]}";
  if (recs.size() == 1 && body.size() > options_.max_body_bytes) {
    Log("an event of " + std::to_string(recs[0].payload.size()) + " bytes does not fit in a request (" +
        std::to_string(options_.max_body_bytes) + " bytes at most): dropped");
    queue_->Ack(1);
    counters_->Add(counters_->events_dropped_too_large);
    return 0;
  }

  httplib::Headers headers;
  if (!options_.token.empty()) headers.emplace("Authorization", "Bearer " + options_.token);
  counters_->Add(counters_->batches_sent);
  auto res = client_->Post(path_, headers, body, "application/json");
  if (!res) {
    counters_->Add(counters_->send_errors[static_cast<int>(SendError::kConnect)]);
    Limiter(0).Log("controller " + CurrentUrl() + " not reachable (" + DescribeHttpError(res.error()) + "); " +
                   std::to_string(queue_->stats().records) + " events wait in the queue");
    return NextController(Backoff());
  }
  const int status = res->status;
  if (status >= 200 && status < 300) {
    uint64_t accepted = recs.size(), duplicates = 0;
    nlohmann::json answer = nlohmann::json::parse(res->body, nullptr, false);
    if (heartbeat) {
      heartbeat_now_.store(false);
      if (hb_at > acked_heartbeat_at_.load()) acked_heartbeat_at_.store(hb_at);
    }
    ControllerScope scope;
    if (ParseControllerScope(answer, &scope)) {
      report_s_ = scope.report_s;
      if (on_scope_) on_scope_(scope);
    }
    if (report_s_ > 0) next_report_ = now + report_s_;
    if (answer.is_object()) {
      if (auto a = answer.find("accepted"); a != answer.end() && a->is_number_unsigned()) accepted = a->get<uint64_t>();
      if (auto d = answer.find("duplicates"); d != answer.end() && d->is_number_unsigned()) duplicates = d->get<uint64_t>();
      if (auto rj = answer.find("rejected"); rj != answer.end() && rj->is_array()) {
        for (const auto& r : *rj) {
          counters_->Add(counters_->events_rejected);
          std::string id = r.is_object() && r.contains("id") && r["id"].is_string() ? r["id"].get<std::string>() : "?";
          std::string why = r.is_object() && r.contains("reason") && r["reason"].is_string() ? r["reason"].get<std::string>() : "";
          Limiter(1).Log("controller rejected event " + id + ": " + why + " (dropped)");
        }
      }
    }
    queue_->Ack(recs.size());
    // Going idle: the connection is closed, not kept. A kept-alive connection holds one
    // of the controller's worker threads while it waits for the next request, and the
    // agents of a running job post every second.
    if (queue_->queued() == 0) client_->stop();
    counters_->Add(counters_->events_accepted, accepted);
    counters_->Add(counters_->events_duplicate, duplicates);
    counters_->last_send_ok.store(options_.env->NowEpochSeconds(), std::memory_order_relaxed);
    if (heartbeat) next_heartbeat_ = now + options_.heartbeat_s;
    if (failures_ > 0) Log("controller " + CurrentUrl() + " reached again");
    failures_ = 0;
    failed_in_row_ = 0;
    limit_ = std::min(options_.max_events, limit_ * 2);
    return 0;
  }
  if (status == 413) {
    counters_->Add(counters_->send_errors[static_cast<int>(SendError::kTooLarge)]);
    if (recs.size() > 1) {
      limit_ = std::max<size_t>(1, recs.size() / 2);
      return 0;
    }
    Log("controller refused an event as too large (HTTP 413): dropped");
    queue_->Ack(1);
    counters_->Add(counters_->events_dropped_too_large);
    return 0;
  }
  if (status == 429 || status == 503) {
    counters_->Add(counters_->send_errors[static_cast<int>(SendError::kBackpressure)]);
    if (res->has_header("Retry-After"))
      if (auto wait = ParseRetryAfter(res->get_header_value("Retry-After"), options_.env->NowEpochSeconds()))
        return NextController(std::min(*wait, options_.max_retry_after_s));
    return NextController(Backoff());
  }
  if (status == 401 || status == 403) {
    counters_->Add(counters_->send_errors[static_cast<int>(SendError::kAuth)]);
    Limiter(2).Log("controller refused our credentials (HTTP " + std::to_string(status) +
                   "); retrying, nothing is dropped");
    ReadToken();
    return Backoff();
  }
  if (status >= 500) {
    counters_->Add(counters_->send_errors[static_cast<int>(SendError::kServer)]);
    Limiter(3).Log("controller " + CurrentUrl() + " answered HTTP " + std::to_string(status) + "; retrying");
    return NextController(Backoff());
  }
  counters_->Add(counters_->send_errors[static_cast<int>(SendError::kBadRequest)]);
  Limiter(4).Log("controller refused a batch of " + std::to_string(recs.size()) + " events (HTTP " +
                 std::to_string(status) + ": " + SanitizeForOutput(res->body, 200) + "); retrying, nothing is dropped");
  return Backoff();
}

void Sender::Start() {
  stop_ = false;
  thread_ = std::thread([this] { Loop(); });
}

void Sender::Loop() {
  while (!stop_) {
    const double wait = RunOnce();
    if (options_.progress) options_.progress->Notify();
    if (stop_) break;
    if (wait < 0) {
      const double now = options_.env->NowMonotonicSeconds();
      double until = options_.heartbeat_s > 0 ? next_heartbeat_ - now : 3600;
      if (report_s_ > 0) until = std::min(until, next_report_ - now);
      queue_->WaitForData(std::chrono::milliseconds(static_cast<int64_t>(std::clamp(until, 0.01, 3600.0) * 1000)));
      continue;
    }
    if (wait > 0) {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait_for(lock, std::chrono::duration<double>(wait), [&] { return stop_.load(); });
    }
  }
}

void Sender::Stop() {
  stop_ = true;
  {
    std::lock_guard<std::mutex> lock(mu_);
    cv_.notify_all();
  }
  queue_->Wake();
  if (thread_.joinable()) thread_.join();
}

}  // namespace aegis::agent
