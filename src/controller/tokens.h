// Who may call the controller's API: bearer tokens with scopes, read from the file given
// with `aegis controller --token-file F` (docs/api.md, "Authentication"). One token per
// line, '#' starts a comment:
//   agent     3f0c...e1    node-agents      agents: POST /api/v1/events only
//   operator  7e21...9a    alice            people: read, start/end jobs, export, host state, topology
//   read      91aa...07    dashboards       read-only: GET status, hosts, incidents, topology
//   agent,read  ...                         several scopes, comma-separated
//   0b5d...44                               a line with the token alone has every scope
// The third word, when given, names the caller (recorded as the actor of a person's host
// change); otherwise the scope names it. Tokens are compared in constant time. Without a
// token file authentication is off (every caller has every scope). Immutable once loaded;
// thread-safe.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace aegis::controller {

enum Scope : uint32_t { kScopeAgent = 1, kScopeOperator = 2, kScopeRead = 4, kScopeAll = 7 };

struct Caller {
  uint32_t scopes = 0;
  std::string name;
};

enum class AuthResult { kOk, kUnauthenticated /* 401 */, kForbidden /* 403 */ };

class TokenTable {
 public:
  // Authentication off.
  TokenTable() = default;
  // InvalidArgument naming the line for an unknown scope or a token shorter than 16 bytes;
  // NotFound / IOError when the file cannot be read.
  static Status Load(const std::string& path, TokenTable* out);
  static Status Parse(std::string_view text, TokenTable* out);

  bool enabled() const { return enabled_; }
  // `authorization` is the request's Authorization header ("Bearer TOKEN"). `needed`: any
  // one of these scopes suffices (operator includes read).
  AuthResult Check(std::string_view authorization, uint32_t needed, Caller* caller) const;

 private:
  struct Entry {
    std::string token;
    uint32_t scopes;
    std::string name;
  };
  bool enabled_ = false;
  std::vector<Entry> entries_;
};

// The token a client sends: the first non-comment line of `path` (one word), else
// $AEGIS_TOKEN, else none (""). InvalidArgument when the file holds more than one word on
// that line, IOError / NotFound when it cannot be read.
Status ClientToken(const std::string& path, std::string* token);

}  // namespace aegis::controller
