#include "controller/http_api.h"

#include <httplib.h>

#include <cmath>
#include <cstdio>
#include <thread>

#include "common/http_bind.h"
#include "common/text.h"
#include "controller/bundle_export.h"
#include "controller/connection_deadline.h"
#include "controller/iso_time.h"
#include "common/json_check.h"
#include "controller/status_document.h"

namespace aegis::controller {

using nlohmann::json;

namespace {

void Send(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_content(body, "application/json");
}

void ReplyJson(httplib::Response& res, int status, const ordered_json& body) {
  Send(res, status, body.dump(-1, ' ', false, json::error_handler_t::replace) + "\n");
}

void ReplyError(httplib::Response& res, int status, const std::string& message) {
  ordered_json e;
  e["error"] = message;
  ReplyJson(res, status, e);
}

void ReplyStatus(httplib::Response& res, const Status& s) {
  const int code = HttpStatusOf(s);
  if (code == 503) res.set_header("Retry-After", "1");
  ReplyError(res, code, s.message().empty() ? s.ToString() : s.message());
}

// Epoch seconds, not RFC 3339: the agent compares them with its own clock to the
// sub-second.
ordered_json ScopeJson(const NodeScope& scope) {
  auto number = [](double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr); };
  ordered_json j;
  j["job"] = scope.job.empty() ? ordered_json(nullptr) : ordered_json(scope.job);
  j["since"] = number(scope.since);
  j["report_s"] = number(scope.report_s);
  j["flush"] = number(scope.flush);
  return j;
}

bool QueryFlag(const httplib::Request& req, const char* name) {
  if (!req.has_param(name)) return false;
  const std::string v = req.get_param_value(name);
  return v.empty() || v == "1" || v == "true" || v == "yes";
}

}  // namespace

int HttpStatusOf(const Status& s) {
  switch (s.code()) {
    case Status::Code::kOk: return 200;
    case Status::Code::kInvalidArgument: return 400;
    case Status::Code::kNotFound: return 404;
    case Status::Code::kAlreadyExists:
    case Status::Code::kFailedPrecondition: return 409;
    case Status::Code::kPermissionDenied: return 403;
    case Status::Code::kResourceExhausted: return 413;
    case Status::Code::kUnavailable: return 503;
    default: return 500;
  }
}

HttpApi::HttpApi(Controller* controller) : c_(controller) {}

HttpApi::~HttpApi() { Stop(); }

Status HttpApi::Start(const std::string& host, int port) {
  const ControllerOptions& o = c_->options();
  if (!o.tls_cert.empty() || !o.tls_key.empty()) {
    if (o.tls_cert.empty() || o.tls_key.empty()) return Status::InvalidArgument("--tls-cert and --tls-key go together");
    auto ssl = std::make_unique<httplib::SSLServer>(o.tls_cert.c_str(), o.tls_key.c_str());
    if (!ssl->is_valid()) return Status::IOError("cannot load the TLS certificate " + o.tls_cert + " and key " + o.tls_key);
    server_ = std::move(ssl);
  } else {
    server_ = std::make_unique<httplib::Server>();
  }
  const size_t threads = static_cast<size_t>(std::max(4, o.http_threads));
  server_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server_->set_payload_max_length(o.max_body_bytes);
  // Answers go out at once: with Nagle on, a reply written in two pieces waits for the
  // client's delayed ACK (tens of ms on every keep-alive request).
  server_->set_tcp_nodelay(true);
  server_->set_keep_alive_max_count(64);
  server_->set_keep_alive_timeout(2);
  server_->set_read_timeout(30, 0);
  Routes();
  port_ = BindHttpServer(*server_, host, port);
  if (port_ <= 0) return Status::IOError("cannot listen on " + host + ":" + std::to_string(port));
  thread_ = std::make_unique<std::thread>([this] { server_->listen_after_bind(); });
  deadline_ = std::make_unique<ConnectionDeadline>(port_, o.client_deadline_s, &c_->health().connections_cut);
  deadline_->Start();
  return Status::Ok();
}

void HttpApi::Stop() {
  if (deadline_) deadline_->Stop();
  if (server_) server_->stop();
  if (thread_ && thread_->joinable()) thread_->join();
  thread_.reset();
}

void HttpApi::Routes() {
  httplib::Server& s = *server_;
  Controller* c = c_;

  // Each handler: the scopes it needs, then the work. `needed` any one of these scopes.
  auto guard = [c](uint32_t needed, auto&& handler) {
    return [c, needed, handler](const httplib::Request& req, httplib::Response& res) {
      Caller caller;
      switch (c->tokens()->Check(req.get_header_value("Authorization"), needed, &caller)) {
        case AuthResult::kUnauthenticated:
          res.set_header("WWW-Authenticate", "Bearer");
          ReplyError(res, 401, "a valid bearer token is required (Authorization: Bearer TOKEN)");
          return;
        case AuthResult::kForbidden:
          ReplyError(res, 403, "this token's scope does not allow " + req.method + " " + req.path);
          return;
        case AuthResult::kOk: break;
      }
      handler(req, res, caller);
    };
  };
  const uint32_t kRead = kScopeRead | kScopeOperator;

  // Healthy is: the database answers now. A controller that cannot reach it cannot store
  // what agents send nor decide, whatever it still holds in memory: 503, with the reason,
  // so that a load balancer sends the agents to an instance that can.
  s.Get("/healthz", [c](const httplib::Request&, httplib::Response& res) {
    const Status store = c->store().Ping();
    ordered_json j;
    j["status"] = store.ok() ? "ok" : "store_unreachable";
    j["leader"] = store.ok() && c->leader();
    j["store"] = std::string(c->store().backend());
    if (!store.ok()) j["error"] = SanitizeForOutput(store.message(), 512);
    j["name"] = c->options().name;
    j["dry_run"] = c->options().dry_run;
    ReplyJson(res, store.ok() ? 200 : 503, j);
  });
  s.Get("/metrics", [c](const httplib::Request&, httplib::Response& res) {
    res.set_content(c->health().Exposition(), "text/plain; version=0.0.4");
  });

  s.Post("/api/v1/events", guard(kScopeAgent, [this, c](const httplib::Request& req, httplib::Response& res, const Caller& caller) {
    struct InFlight {
      std::atomic<int>& n;
      ~InFlight() { --n; }
    } in_flight{ingest_in_flight_};
    if (++ingest_in_flight_ > c->options().max_ingest_in_flight) {
      ++c->health().backpressure;
      res.set_header("Retry-After", "1");
      ReplyError(res, 503, "the controller is busy: send this batch again after Retry-After seconds");
      return;
    }
    EventBatch batch;
    const std::shared_ptr<const Rules> rules = c->rules().Current();  // the catalogue decides each line's class
    EventPolicy policy;
    policy.node = caller.node;
    policy.catalog = &rules->catalog;
    Status parsed = ParseEventBatch(req.body, policy, &batch);
    c->health().events_foreign += batch.foreign;
    c->health().events_unknown_rule += batch.unknown_rules;
    c->health().events_reclassified += batch.corrected;
    if (parsed.code() == Status::Code::kPermissionDenied) ++c->health().batches_foreign;
    if (!parsed.ok()) return ReplyStatus(res, parsed);
    IngestResult result;
    if (Status st = c->Ingest(batch, &result); !st.ok()) return ReplyStatus(res, st);
    ordered_json j;
    j["accepted"] = result.accepted;
    j["duplicates"] = result.duplicates;
    j["rejected"] = ordered_json::array();
    for (const auto& r : result.rejected) {
      ordered_json e;
      e["id"] = r.id.empty() ? ordered_json(nullptr) : ordered_json(r.id);
      e["index"] = r.index;
      e["reason"] = r.reason;
      j["rejected"].push_back(std::move(e));
    }
    j["scope"] = ScopeJson(result.scope);
    ReplyJson(res, 200, j);
  }));

  s.Post("/api/v1/jobs", guard(kScopeOperator, [c](const httplib::Request& req, httplib::Response& res, const Caller&) {
    JobStart start;
    if (Status st = ParseJobStart(req.body, c->Now(), &start); !st.ok()) return ReplyStatus(res, st);
    bool created = false;
    if (Status st = c->StartJob(start, &created); !st.ok()) return ReplyStatus(res, st);
    ordered_json j;
    j["job"] = start.job.id;
    j["state"] = "running";
    j["created"] = created;
    // The scheduler placed it on hosts Aegis took out or holds for a person: the job
    // starts (the scheduler decides), but the caller is told, and so is the log.
    ordered_json out = ordered_json::array();
    for (const std::string& host : start.job.hosts) {
      store::HostRecord h;
      if (c->store().GetHost(host, &h).ok() && h.state != store::HostState::kInService)
        out.push_back({{"host", host}, {"state", std::string(store::ToString(h.state))}, {"incident", h.incident}});
    }
    if (created && !out.empty())
      std::fprintf(stderr, "aegis controller: job %s starts on %zu host(s) not in service, first %s (%s)\n",
                   SanitizeForOutput(start.job.id, 200).c_str(), out.size(), out[0]["host"].get<std::string>().c_str(),
                   out[0]["state"].get<std::string>().c_str());
    j["hosts_not_in_service"] = std::move(out);
    ReplyJson(res, created ? 201 : 200, j);
  }));
  s.Get("/api/v1/jobs", guard(kRead, [c](const httplib::Request& req, httplib::Response& res, const Caller&) {
    std::optional<store::JobState> state;
    if (req.has_param("state")) {
      state = store::ParseJobState(req.get_param_value("state"));
      if (!state) return ReplyError(res, 400, "state must be one of running, failed, hung, slow, done");
    }
    std::vector<store::JobRecord> jobs;
    if (Status st = c->store().ListJobs(state, &jobs); !st.ok()) return ReplyStatus(res, st);
    ordered_json list = ordered_json::array();
    for (const auto& job : jobs) {
      ordered_json j;
      j["id"] = job.id;
      j["state"] = std::string(store::ToString(job.state));
      j["started_at"] = std::isfinite(job.started_at) ? ordered_json(FormatIsoTime(job.started_at)) : ordered_json(nullptr);
      j["ended_at"] = std::isfinite(job.ended_at) ? ordered_json(FormatIsoTime(job.ended_at)) : ordered_json(nullptr);
      list.push_back(std::move(j));
    }
    ReplyJson(res, 200, list);
  }));
  s.Get(R"(/api/v1/jobs/([^/]+))", guard(kRead, [c](const httplib::Request& req, httplib::Response& res, const Caller&) {
    store::JobRecord job;
    if (Status st = c->store().GetJob(req.matches[1].str(), &job); !st.ok()) return ReplyStatus(res, st);
    Send(res, 200, job.body + "\n");
  }));
  s.Post(R"(/api/v1/jobs/([^/]+)/end)", guard(kScopeOperator, [c](const httplib::Request& req, httplib::Response& res, const Caller&) {
    JobEnd end;
    if (Status st = ParseJobEnd(req.body, &end); !st.ok()) return ReplyStatus(res, st);
    EndJobResult out;
    if (Status st = c->EndJob(req.matches[1].str(), end, &out); !st.ok()) return ReplyStatus(res, st);
    ordered_json j;
    j["job"] = out.job;
    j["state"] = std::string(ToString(out.state));
    j["incident"] = out.incident.empty() ? ordered_json(nullptr) : ordered_json(out.incident);
    ReplyJson(res, 200, j);
  }));

  s.Put("/api/v1/topology", guard(kScopeOperator, [c](const httplib::Request& req, httplib::Response& res, const Caller&) {
    if (Status st = c->PutTopology(req.body); !st.ok()) return ReplyStatus(res, st);
    ordered_json j;
    j["updated"] = true;
    ReplyJson(res, 200, j);
  }));
  s.Get("/api/v1/topology", guard(kRead, [c](const httplib::Request&, httplib::Response& res, const Caller&) {
    std::string text;
    double at = 0;
    if (Status st = c->store().GetTopology(&text, &at); !st.ok())
      return ReplyStatus(res, st.IsNotFound() ? Status::NotFound("no topology yet") : st);
    Send(res, 200, text);
  }));

  s.Get("/api/v1/hosts", guard(kRead, [c](const httplib::Request&, httplib::Response& res, const Caller&) {
    ordered_json hosts;
    if (Status st = HostsDocument(c->store(), &hosts); !st.ok()) return ReplyStatus(res, st);
    ReplyJson(res, 200, hosts);
  }));
  s.Get(R"(/api/v1/hosts/([^/]+))", guard(kRead, [c](const httplib::Request& req, httplib::Response& res, const Caller&) {
    ordered_json host;
    if (Status st = HostDocument(c->store(), req.matches[1].str(), &host); !st.ok())
      return ReplyStatus(res, st.IsNotFound() ? Status::NotFound("no host " + req.matches[1].str()) : st);
    ReplyJson(res, 200, host);
  }));
  s.Post(R"(/api/v1/hosts/([^/]+)/state)", guard(kScopeOperator, [c](const httplib::Request& req, httplib::Response& res, const Caller& caller) {
    HostStateRequest request;
    if (Status st = ParseHostStateRequest(req.body, &request); !st.ok()) return ReplyStatus(res, st);
    store::HostRecord host;
    bool changed = false;
    if (Status st = c->SetHostState(req.matches[1].str(), request, caller, &host, &changed); !st.ok())
      return ReplyStatus(res, st);
    ordered_json j = HostJson(host);
    j["changed"] = changed;
    ReplyJson(res, 200, j);
  }));

  s.Get("/api/v1/incidents", guard(kRead, [c](const httplib::Request& req, httplib::Response& res, const Caller&) {
    store::IncidentFilter filter;
    filter.undecided_only = QueryFlag(req, "undecided");
    if (req.has_param("job")) filter.job = req.get_param_value("job");
    if (req.has_param("limit")) {
      auto n = ParseInt(req.get_param_value("limit"));
      if (!n || *n < 1 || *n > 100000) return ReplyError(res, 400, "limit must be a whole number from 1 to 100000");
      filter.limit = static_cast<size_t>(*n);
    }
    ordered_json list;
    if (Status st = IncidentsDocument(c->store(), filter, &list); !st.ok()) return ReplyStatus(res, st);
    ReplyJson(res, 200, list);
  }));
  s.Get(R"(/api/v1/incidents/([^/]+))", guard(kRead, [c](const httplib::Request& req, httplib::Response& res, const Caller&) {
    store::IncidentRecord inc;
    if (Status st = c->store().GetIncident(req.matches[1].str(), &inc); !st.ok())
      return ReplyStatus(res, st.IsNotFound() ? Status::NotFound("no incident " + req.matches[1].str()) : st);
    ReplyJson(res, 200, IncidentJson(inc, true));
  }));
  s.Get(R"(/api/v1/incidents/([^/]+)/bundle)", guard(kScopeOperator, [c](const httplib::Request& req, httplib::Response& res, const Caller&) {
    ExportOptions options;
    options.redact = QueryFlag(req, "redact");
    options.lookback_s = c->options().lookback_s;
    options.scope = c->options().scope;
    ordered_json doc;
    std::shared_ptr<const Rules> rules = c->rules().Current();
    if (Status st = ExportBundle(c->store(), *rules, req.matches[1].str(), options, &doc); !st.ok())
      return ReplyStatus(res, st.IsNotFound() ? Status::NotFound("no incident " + req.matches[1].str()) : st);
    ReplyJson(res, 200, doc);
  }));

  s.Get("/api/v1/status", guard(kRead, [c](const httplib::Request&, httplib::Response& res, const Caller&) {
    ordered_json doc;
    if (Status st = StatusDocument(c->store(), 1000, &doc); !st.ok()) return ReplyStatus(res, st);
    ReplyJson(res, 200, doc);
  }));
  s.Get("/api/v1/agents", guard(kRead, [c](const httplib::Request&, httplib::Response& res, const Caller&) {
    ordered_json doc;
    if (Status st = AgentsDocument(c->store(), c->Now(), &doc); !st.ok()) return ReplyStatus(res, st);
    ReplyJson(res, 200, doc);
  }));

  // Bodies are JSON. The HTTP library reads a form body under a limit of its own (8 KiB,
  // answered 413 though the documented limit is --max-body-mb): such a body is refused for
  // what it is before it is read, and the connection closed (its body is never read).
  s.set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
    const std::string type = ToLower(req.get_header_value("Content-Type"));
    if (!StartsWith(type, "application/x-www-form-urlencoded") && !StartsWith(type, "multipart/form-data"))
      return httplib::Server::HandlerResponse::Unhandled;
    ReplyError(res, 415, "request bodies are JSON: send Content-Type: application/json (curl: -H 'Content-Type: application/json')");
    res.set_header("Connection", "close");
    return httplib::Server::HandlerResponse::Handled;
  });
  const size_t max_body = c->options().max_body_bytes;
  s.set_error_handler([max_body](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    if (res.status == 413)
      return ReplyError(res, 413, "the request body is larger than the limit (" + std::to_string(max_body) + " bytes, --max-body-mb)");
    if (res.status == 404) return ReplyError(res, 404, "no such endpoint: " + req.method + " " + req.path);
    ReplyError(res, res.status, "request failed");
  });
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    ReplyError(res, 500, "internal error");
  });
}

}  // namespace aegis::controller
