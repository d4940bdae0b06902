// `aegis jobs start --controller URL --job job.json` (a job.json as in a bundle, state
// "running") and `aegis jobs end --controller URL --job ID --state failed|hung|slow|done`.
// Each prints the controller's answer (one JSON object; for an end, the incident it
// opened). Exit codes: controller_cmd.h.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "cli/controller_cmd.h"

namespace aegis {

struct JobsArgs {
  ClientArgs client;
  std::string job;    // start: the job.json file; end: the job's id
  std::string state;  // end
  CLI::App* start = nullptr;
  CLI::App* end = nullptr;
};
CLI::App* AddJobsCommand(CLI::App& app, JobsArgs* args);
int RunJobs(const JobsArgs& args);

}  // namespace aegis
