// `aegis incidents export --controller URL ID --out DIR [--redact]`: writes the incident's
// data as an incident bundle (controller/bundle_export.h) that `aegis diagnose DIR`
// reads. Exit codes: controller_cmd.h.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "cli/controller_cmd.h"

namespace aegis {

struct IncidentsArgs {
  ClientArgs client;
  std::string id;
  std::string out;
  bool redact = false;
};
CLI::App* AddIncidentsCommand(CLI::App& app, IncidentsArgs* args);
int RunIncidents(const IncidentsArgs& args);

}  // namespace aegis
