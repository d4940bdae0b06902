#include "controller/options.h"

namespace aegis::controller {

Status ParseActionTarget(std::string_view spec, ActionTarget* out) {
  if (spec == "slurm" || spec == "kubernetes") {
    *out = ActionTarget{*store::ParseActionBackend(spec), ""};
    return Status::Ok();
  }
  if (spec.substr(0, 5) == "exec:" && spec.size() > 5) {
    *out = ActionTarget{store::ActionBackend::kExec, std::string(spec.substr(5))};
    return Status::Ok();
  }
  return Status::InvalidArgument("--action \"" + std::string(spec) + "\" is not slurm, kubernetes or exec:COMMAND");
}

}  // namespace aegis::controller
