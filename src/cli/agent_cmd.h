// `aegis [--rules DIR] agent ...`: the per-node agent (docs/agent.md), parsed here rather
// than in main.cc's app so that its exit codes follow the live-system contract: 0 after a
// clean stop (SIGTERM / SIGINT; SIGHUP reloads the rules), 2 with one line on stderr on
// bad usage (an unknown, missing or malformed option, broken rules, an unreadable
// --token-file), 1 when the agent cannot run (its state directory is held by another
// agent or unusable, the metrics address is taken).
#pragma once
#include <CLI/CLI.hpp>

namespace aegis {

// The exit code when argv names `agent`; -1 when it does not (main goes on).
int RunAgentCommand(int argc, char** argv);
// Lists it in `aegis --help` (it is parsed by RunAgentCommand).
void DescribeAgentCommand(CLI::App& app);

}  // namespace aegis
