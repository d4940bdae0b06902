// The controller's HTTP API (docs/api.md, docs/openapi.yaml) on cpp-httplib: routes, the
// bearer-token scopes of each (tokens.h), request size limits (413 beyond
// --max-body, 4 MiB by default), backpressure on event posts (503 with Retry-After while
// too many are in flight), strict validation of every body (api_bodies.h: 400 naming the
// field), and errors as {"error": "..."}. Plain HTTP, or HTTPS when a certificate and key
// are given. Thread-safe; one thread pool serves all connections, and no connection is
// kept longer than --client-deadline (connection_deadline.h).
#pragma once
#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "common/status.h"
#include "controller/controller.h"

namespace httplib {
class Server;
}

namespace aegis::controller {

class ConnectionDeadline;

class HttpApi {
 public:
  explicit HttpApi(Controller* controller);
  ~HttpApi();
  // Binds (port 0: any free port), then serves on a thread of its own. IOError when the
  // address cannot be bound or the certificate cannot be loaded.
  Status Start(const std::string& host, int port);
  int port() const { return port_; }
  void Stop();

 private:
  void Routes();
  Controller* c_;
  std::unique_ptr<httplib::Server> server_;
  std::unique_ptr<std::thread> thread_;
  std::unique_ptr<ConnectionDeadline> deadline_;  // --client-deadline
  std::atomic<int> ingest_in_flight_{0};
  int port_ = 0;
};

// The HTTP status of a Status code: InvalidArgument 400, NotFound 404, AlreadyExists and
// FailedPrecondition 409, PermissionDenied 403, ResourceExhausted 413, Unavailable 503,
// anything else 500.
int HttpStatusOf(const Status& s);

}  // namespace aegis::controller
