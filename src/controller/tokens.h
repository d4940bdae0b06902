// Who may call the controller's API: bearer tokens with scopes, read from the file given
// with `aegis controller --token-file F` (docs/api.md, "Authentication"). One token per
// line, '#' starts a comment:
//   agent@gpu-07  sha256:9f86...0a08  gpu-07     the agent of node gpu-07: it posts events about gpu-07 only
//   agent         3f0c...e1           collectors a shared agent token: posts about any node (refused at
//                                                start without --allow-shared-agent-token)
//   operator      7e21...9a           alice      people: read, start/end jobs, export, host state, topology
//   read          91aa...07           dashboards read-only: GET status, hosts, incidents, topology
//   agent,read  ...                              several scopes, comma-separated
//   0b5d...44                                    a line with the token alone has every scope
// The second word is the token itself or, as `aegis tokens create` writes it, "sha256:"
// and the hex SHA-256 of the token, so that the file does not hold what a caller sends.
// The third word, when given, names the caller (recorded as the actor of a person's host
// change); otherwise the node of an agent@NODE token, or the scope, names it. A caller is
// found by the digest of what it sent (a lookup whose time does not depend on how much of
// a token matched). The file must not be readable by group or others. Without a token
// file authentication is off (every caller has every scope, bound to no node). Immutable once loaded; thread-safe.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/status.h"

namespace aegis::controller {

enum Scope : uint32_t { kScopeAgent = 1, kScopeOperator = 2, kScopeRead = 4, kScopeAll = 7 };

struct Caller {
  uint32_t scopes = 0;
  std::string name;
  std::string node;  // agent@NODE: the one node this caller may speak for; "" for any
};

enum class AuthResult { kOk, kUnauthenticated /* 401 */, kForbidden /* 403 */ };

// One token line of a token file, as read: what a TokenTable is built from and what
// `aegis tokens list` shows.
struct TokenLine {
  size_t line = 0;      // 1-based line number in the file
  std::string scope;    // as written: "agent@gpu-07", "operator", "agent,read"; "all" for a token alone
  uint32_t scopes = 0;  // Scope bits
  std::string node;     // the node an agent@NODE scope binds, else ""
  std::string name;     // the third word, else the bound node, else the scope word ("admin" for a token alone)
  std::string digest;   // lower-case hex SHA-256 of the token
};

// Every token line of `text`, in order. InvalidArgument naming the line for an unknown
// scope, a bad node name, a token shorter than 16 bytes or a malformed digest (a token
// listed twice, or none at all, is the table's to refuse: TokenTable::Parse).
Status ReadTokenLines(std::string_view text, std::vector<TokenLine>* out);

class TokenTable {
 public:
  // Authentication off.
  TokenTable() = default;
  // InvalidArgument naming the line for an unknown scope, a bad node name, a token shorter
  // than 16 bytes, a malformed digest or a token listed twice; NotFound / IOError when
  // the file cannot be read; PermissionDenied when group or others may read it.
  static Status Load(const std::string& path, TokenTable* out);
  static Status Parse(std::string_view text, TokenTable* out);

  bool enabled() const { return enabled_; }
  // `authorization` is the request's Authorization header ("Bearer TOKEN"). `needed`: any
  // one of these scopes suffices (operator includes read).
  AuthResult Check(std::string_view authorization, uint32_t needed, Caller* caller) const;
  // Names of tokens that may post events about any node and are not a person's (the
  // `agent` scope without a node, without `operator`): one such token on every node lets
  // any node speak for all.
  const std::vector<std::string>& shared_agent_tokens() const { return shared_agent_; }
  size_t size() const { return by_digest_.size(); }

 private:
  struct Entry {
    uint32_t scopes;
    std::string name;
    std::string node;
  };
  bool enabled_ = false;
  std::unordered_map<std::string, Entry> by_digest_;  // key: the token's SHA-256, hex
  std::vector<std::string> shared_agent_;
};

// The raw (32-byte) SHA-256 of `text`, and its lower-case hex form.
std::string Sha256(std::string_view text);
std::string Hex(std::string_view bytes);

// PermissionDenied when `path` may be read by its group or by others (a token file must be
// mode 0600 or 0400); NotFound / IOError when it cannot be examined.
Status CheckPrivateFile(const std::string& path);

// The token a client sends: the first non-comment line of `path` (one word), else
// $AEGIS_TOKEN (the token itself, not a path), else none (""). InvalidArgument when the file
// holds more than one word on that line, IOError / NotFound when it cannot be read,
// PermissionDenied when others may read it.
Status ClientToken(const std::string& path, std::string* token);

}  // namespace aegis::controller
