// `aegis tokens create|revoke|list --file F`: the controller's token file, edited where it
// lies (offline: no controller is called; send the controller SIGHUP to load the change).
//   create --node NODE [--name N] [--out PATH]   a token for NODE's agent (agent@NODE)
//   create --scope operator|read|agent --name N [--out PATH]   a person's, a dashboard's, a
//                                                 collector's token
//   revoke --node NODE | --name N                 every token bound to NODE, or named N
//   list                                          scope, node, name and digest of each token
// The file is written atomically with mode 0600 (created when missing); the new token is
// printed once (or written to --out, mode 0600) and never stored. Exit codes: 0, 1 when the
// file cannot be read or written, 2 for a usage error or a revoke that matches nothing.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

namespace aegis {

struct TokensArgs {
  std::string file;
  std::string node;
  std::string scope;
  std::string name;
  std::string out;
  CLI::App* create = nullptr;
  CLI::App* revoke = nullptr;
  CLI::App* list = nullptr;
};
CLI::App* AddTokensCommand(CLI::App& app, TokensArgs* args);
int RunTokens(const TokensArgs& args);

}  // namespace aegis
