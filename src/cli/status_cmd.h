// `aegis status --controller URL [--json]`: the hosts and incidents as the controller sees
// them. --json prints the controller's status document (one object, docs/api.md); without
// it, the hosts out of service and the incidents, for a person. Exit codes: controller_cmd.h.
#pragma once
#include <CLI/CLI.hpp>

#include "cli/controller_cmd.h"

namespace aegis {

struct StatusArgs {
  ClientArgs client;
  bool json = false;
};
CLI::App* AddStatusCommand(CLI::App& app, StatusArgs* args);
int RunStatus(const StatusArgs& args);

}  // namespace aegis
