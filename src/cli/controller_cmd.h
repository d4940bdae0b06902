// The live system's commands, parsed here rather than in main.cc's app so that their
// exit codes follow the live-system contract (0 on success; 2 with one line on stderr on
// bad usage or an unreachable controller; 1 when the controller refused for a reason of
// its own, e.g. a conflict or a server error):
//   aegis [--rules DIR] controller --listen HOST:PORT --db URL [...]     (this file)
//   aegis jobs start|end ...                                              (jobs_cmd.h)
//   aegis status ...                                                      (status_cmd.h)
//   aegis incidents export ...                                            (incidents_cmd.h)
// Every client command takes --controller URL, --token-file F (else $AEGIS_TOKEN) and
// --ca-file F (HTTPS; else $AEGIS_CA_FILE).
#pragma once
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "controller/api_client.h"

namespace aegis {

// The exit code when argv names one of the commands above; -1 when it does not (main
// goes on with its own commands).
int RunLiveSystemCommand(int argc, char** argv);
// Lists them in `aegis --help` (they are parsed by RunLiveSystemCommand).
void DescribeLiveSystemCommands(CLI::App& app);

// --- shared by the client commands ---
struct ClientArgs {
  std::string controller;
  std::string token_file;
  std::string ca_file;
};
void AddClientOptions(CLI::App* cmd, ClientArgs* args);
// One line on stderr ("aegis: ...") and the exit code.
int Fail(const std::string& line, int code = 2);
// Connects and sends; prints the failure and returns its exit code, or 0 with *reply set
// to a 2xx answer.
int CallController(const ClientArgs& args, const std::string& method, const std::string& path, const std::string& body,
                   controller::Reply* reply);

}  // namespace aegis
