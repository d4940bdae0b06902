// `aegis hosts return --controller URL --host H [--reason R]` (a person puts a host back in
// service: its lines from before are history for the jobs that run on it from now on) and
// `aegis hosts set --controller URL --host H --state S [--reason R]` (any state: isolated,
// repair, offline, held, in_service). Each prints the host as the controller answers it
// (one JSON object, with "changed"). Exit codes: controller_cmd.h.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "cli/controller_cmd.h"

namespace aegis {

struct HostsArgs {
  ClientArgs client;
  std::string host;
  std::string state;  // set
  std::string reason;
  CLI::App* back = nullptr;  // return
  CLI::App* set = nullptr;
};
CLI::App* AddHostsCommand(CLI::App& app, HostsArgs* args);
int RunHosts(const HostsArgs& args);

}  // namespace aegis
