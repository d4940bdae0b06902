// What the commands with a parser of their own (agent, controller, jobs, status,
// incidents) share with each other: how the command is named on the command line, the
// global --rules option, and how a parse ends (help: exit 0; a usage error: one line on
// stderr, exit 2). Header-only: the agent's and the controller's CLI libraries both use it.
#pragma once
#include <CLI/CLI.hpp>

#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace aegis {

// The word naming the command: the first argument that is not an option (or --rules'
// value); "" when there is none.
inline std::string CommandWord(int argc, char** argv) {
  int at = 1;
  while (at < argc && argv[at][0] == '-') {
    if (std::strcmp(argv[at], "--rules") == 0) ++at;
    ++at;
  }
  return at < argc ? argv[at] : "";
}

// The global --rules option, as `aegis --help` describes it.
inline void AddRulesOption(CLI::App& app, std::vector<std::string>* rule_dirs) {
  app.add_option("--rules", *rule_dirs, "extra rule directory (adds or overrides built-in rules); repeatable")
      ->check(CLI::ExistingDirectory);
}

// Parses; nothing when the command is to run, else its exit code (help and --version: 0,
// printed on stdout). A parse error is one line through `usage`, pointing at
// `aegis WORD --help`.
inline std::optional<int> ParseCommandLine(CLI::App& app, int argc, char** argv, const std::string& word,
                                           const std::function<int(const std::string&)>& usage) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return usage(std::string(e.what()) + " (see aegis " + (word.empty() ? std::string() : word + " ") + "--help)");
  }
  return std::nullopt;
}

}  // namespace aegis
