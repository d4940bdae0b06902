#include "common/listen_address.h"

#include "common/text.h"

namespace aegis {

Status ParseListenAddress(std::string_view spec, ListenAddress* out) {
  const auto refuse = [&](std::string_view why) {
    std::string msg = "\"";
    msg.append(spec).append("\" ").append(why);
    return Status::InvalidArgument(std::move(msg));
  };
  std::string_view host, port;
  if (StartsWith(spec, "[")) {
    const size_t close = spec.find(']');
    if (close == std::string_view::npos || close + 1 >= spec.size() || spec[close + 1] != ':')
      return refuse("is not [ADDRESS]:PORT");
    host = spec.substr(1, close - 1);
    if (host.empty()) return refuse("has an empty [ADDRESS]");
    port = spec.substr(close + 2);
  } else {
    const size_t colon = spec.rfind(':');
    if (colon == std::string_view::npos) return refuse("is not HOST:PORT, [ADDRESS]:PORT or :PORT");
    host = spec.substr(0, colon);
    if (host.find(':') != std::string_view::npos) return refuse("has an IPv6 address without brackets: write [ADDRESS]:PORT");
    port = spec.substr(colon + 1);
  }
  const auto n = port.find_first_not_of("0123456789") == std::string_view::npos ? ParseInt(port) : std::nullopt;
  if (!n || *n > 65535) return refuse("has no port from 0 to 65535 after its last ':'");
  out->host = host.empty() ? "0.0.0.0" : std::string(host);
  out->port = static_cast<int>(*n);
  return Status::Ok();
}

bool IsLoopbackHost(std::string_view host) {
  return host == "localhost" || host == "::1" || StartsWith(host, "127.");
}

}  // namespace aegis
