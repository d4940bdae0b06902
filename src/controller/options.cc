#include "controller/options.h"

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

}  // namespace aegis::controller
