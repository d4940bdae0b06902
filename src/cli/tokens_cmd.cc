#include "cli/tokens_cmd.h"

#include <cstdio>

#include "cli/controller_cmd.h"
#include "controller/token_file.h"
#include "controller/tokens.h"
#include "env/env.h"

namespace aegis {

namespace {

constexpr unsigned kPrivate = 0600;

// The token file's text; a file that does not exist yet is empty (create makes it).
Status ReadTokenFile(const std::string& path, bool may_be_missing, std::string* text) {
  text->clear();
  Status s = controller::CheckPrivateFile(path);
  if (s.IsNotFound() && may_be_missing) return Status::Ok();
  if (!s.ok()) return s;
  return ReadFileToString(Env::Default(), path, 1u << 20, text);
}

int Create(const TokensArgs& a) {
  if (a.node.empty() == a.scope.empty()) return Fail("tokens create: give --node NODE (an agent's token) or --scope", 2);
  if (!a.scope.empty() && a.name.empty()) return Fail("tokens create: --scope needs --name (who holds the token)", 2);
  const std::string scope = a.node.empty() ? a.scope : "agent@" + a.node;
  const std::string name = a.name.empty() ? a.node : a.name;
  std::string text, updated, token;
  if (Status s = ReadTokenFile(a.file, true, &text); !s.ok()) return Fail(s.message(), 1);
  if (Status s = controller::AddTokenLine(text, scope, name, &updated, &token); !s.ok())
    return Fail("tokens create: " + s.message(), 2);
  // The token goes out before the file names its digest: a failure between the two
  // leaves a token nobody accepts, never an accepted one nobody has.
  if (!a.out.empty()) {
    if (Status s = WriteFileAtomically(Env::Default(), a.out, token + "\n", true, kPrivate); !s.ok()) return Fail(s.message(), 1);
  }
  if (Status s = WriteFileAtomically(Env::Default(), a.file, updated, true, kPrivate); !s.ok()) return Fail(s.message(), 1);
  if (a.out.empty()) std::printf("%s\n", token.c_str());
  std::fprintf(stderr, "aegis: %s token \"%s\" added to %s (send the controller SIGHUP to load it)\n", scope.c_str(),
               name.c_str(), a.file.c_str());
  return 0;
}

int Revoke(const TokensArgs& a) {
  if (a.node.empty() == a.name.empty()) return Fail("tokens revoke: give --node NODE or --name NAME", 2);
  std::string text, updated;
  if (Status s = ReadTokenFile(a.file, false, &text); !s.ok()) return Fail(s.message(), 1);
  size_t removed = 0;
  Status s = controller::RemoveTokenLines(text, a.node, a.name, &updated, &removed);
  if (s.IsNotFound() || s.IsInvalidArgument()) return Fail("tokens revoke: " + s.message(), 2);
  if (!s.ok()) return Fail(s.message(), 1);
  if (s = WriteFileAtomically(Env::Default(), a.file, updated, true, kPrivate); !s.ok()) return Fail(s.message(), 1);
  std::fprintf(stderr, "aegis: %zu token%s removed from %s (send the controller SIGHUP to refuse %s)\n", removed,
               removed == 1 ? "" : "s", a.file.c_str(), removed == 1 ? "it" : "them");
  return 0;
}

int List(const TokensArgs& a) {
  std::string text;
  if (Status s = ReadTokenFile(a.file, false, &text); !s.ok()) return Fail(s.message(), 1);
  std::vector<controller::TokenLine> lines;
  if (Status s = controller::ListTokenLines(text, &lines); !s.ok()) return Fail(a.file + ": " + s.message(), 1);
  std::printf("%-5s  %-24s  %-24s  %s\n", "LINE", "SCOPE", "NAME", "SHA256");
  for (const auto& t : lines)
    std::printf("%-5zu  %-24s  %-24s  %.16s\n", t.line, t.scope.c_str(), t.name.c_str(), t.digest.c_str());
  return 0;
}

}  // namespace

CLI::App* AddTokensCommand(CLI::App& app, TokensArgs* a) {
  auto* tokens = app.add_subcommand("tokens", "create, revoke or list the controller's API tokens (offline, in the token file)");
  tokens->require_subcommand(1);
  a->create = tokens->add_subcommand("create", "add a token; it is printed once, the file keeps its digest");
  a->revoke = tokens->add_subcommand("revoke", "remove the tokens of a node or of a name");
  a->list = tokens->add_subcommand("list", "list the tokens (scope, name, digest; never a token)");
  for (CLI::App* cmd : {a->create, a->revoke, a->list})
    cmd->add_option("--file", a->file, "the controller's token file (--token-file)")->required();
  for (CLI::App* cmd : {a->create, a->revoke}) {
    cmd->add_option("--node", a->node, "the node whose agent holds the token (scope agent@NODE)");
    cmd->add_option("--name", a->name, "who holds the token");
  }
  a->create->add_option("--scope", a->scope, "a token that is not a node's: operator, read, agent (a collector's, any node)")
      ->check(CLI::IsMember({"operator", "read", "agent", "agent,read", "operator,read", "all"}));
  a->create->add_option("--out", a->out, "write the token to this file (mode 0600) instead of printing it");
  return tokens;
}

int RunTokens(const TokensArgs& a) {
  if (*a.create) return Create(a);
  if (*a.revoke) return Revoke(a);
  return List(a);
}

}  // namespace aegis
