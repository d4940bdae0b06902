// The address a server listens on, as the --listen / --metrics-listen flags spell it, for
// every front end (controller, agent): one parser so that they accept the same forms.
// Pure functions, safe from any thread.
#pragma once
#include <string>
#include <string_view>

#include "common/status.h"

namespace aegis {

struct ListenAddress {
  std::string host;  // as given, brackets removed ("0.0.0.0" for :PORT)
  int port = 0;      // 0 to 65535; 0 asks the system for any free port
};

// "HOST:PORT", "[IPv6]:PORT", or ":PORT" for every interface (0.0.0.0). An IPv6 address
// must be bracketed ("::1:8470" is refused rather than guessed). The message of a refusal
// names the value; callers prefix it with the flag.
Status ParseListenAddress(std::string_view spec, ListenAddress* out);

// localhost, ::1 or 127.x.y.z: only this machine can connect.
bool IsLoopbackHost(std::string_view host);

}  // namespace aegis
