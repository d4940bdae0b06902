// Binding an httplib::Server the way a long-running daemon needs, for the controller's API
// and the agent's /metrics alike: SO_REUSEADDR (a restarted process binds at once) but not
// httplib's default SO_REUSEPORT, with which a second process given the same port would
// start and share the connections instead of failing; and the system's listen backlog
// instead of httplib's 5, which dropped the SYNs of many clients connecting together (a
// cluster's agents after a restart), each then waiting a second to try again.
// Header-only: only code that links httplib includes it.
#pragma once
#include <httplib.h>
#include <sys/socket.h>

#include <string>

namespace aegis {

// Binds `server` to host:port (port 0: any free port). The bound port, or -1.
inline int BindHttpServer(httplib::Server& server, const std::string& host, int port) {
  int listen_fd = -1;
  server.set_socket_options([&listen_fd](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    listen_fd = sock;
  });
  const int bound = port == 0 ? server.bind_to_any_port(host) : (server.bind_to_port(host, port) ? port : -1);
  if (bound > 0 && listen_fd >= 0) (void)::listen(listen_fd, SOMAXCONN);  // listening again sets the backlog
  return bound > 0 ? bound : -1;
}

}  // namespace aegis
