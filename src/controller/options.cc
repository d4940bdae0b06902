#include "controller/options.h"

#include <charconv>

namespace aegis::controller {

Status ParseActionBackend(std::string_view spec, ActionBackend* out) {
  if (spec == "slurm" || spec == "kubernetes") {
    *out = ActionBackend{std::string(spec), ""};
    return Status::Ok();
  }
  if (spec.substr(0, 5) == "exec:" && spec.size() > 5) {
    *out = ActionBackend{"exec", std::string(spec.substr(5))};
    return Status::Ok();
  }
  return Status::InvalidArgument("--action \"" + std::string(spec) + "\" is not slurm, kubernetes or exec:COMMAND");
}

Status ParseListen(std::string_view spec, std::string* host, int* port) {
  const size_t colon = spec.rfind(':');
  if (colon == std::string_view::npos || colon == 0)
    return Status::InvalidArgument("--listen \"" + std::string(spec) + "\" is not HOST:PORT");
  std::string_view h = spec.substr(0, colon), p = spec.substr(colon + 1);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  int value = -1;
  auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), value);
  if (ec != std::errc() || end != p.data() + p.size() || value < 0 || value > 65535)
    return Status::InvalidArgument("--listen \"" + std::string(spec) + "\": the port must be 0 to 65535");
  *host = std::string(h);
  *port = value;
  return Status::Ok();
}

bool IsLoopback(std::string_view host) {
  return host == "localhost" || host == "::1" || host.substr(0, 4) == "127.";
}

}  // namespace aegis::controller
