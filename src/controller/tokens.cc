#include "controller/tokens.h"

#include <openssl/evp.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "bundle/bundle_reader.h"
#include "common/json_check.h"
#include "common/text.h"

namespace aegis::controller {

namespace {

std::vector<std::string_view> Words(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t b = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > b) out.push_back(line.substr(b, i - b));
  }
  return out;
}

std::string_view StripComment(std::string_view line) {
  const size_t hash = line.find('#');
  if (hash != std::string_view::npos) line = line.substr(0, hash);
  return Trim(line);
}

constexpr std::string_view kDigestPrefix = "sha256:";

// The lower-case hex digest a line's second word stands for: its own when it is "sha256:HEX".
Status DigestOf(std::string_view word, std::string* digest) {
  if (!StartsWith(word, kDigestPrefix)) {
    if (word.size() < 16) return Status::InvalidArgument("a token must be at least 16 characters");
    *digest = Hex(Sha256(word));
    return Status::Ok();
  }
  const std::string_view hex = word.substr(kDigestPrefix.size());
  if (hex.size() != 64 || hex.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos)
    return Status::InvalidArgument("a sha256: digest is 64 hex digits");
  *digest = ToLower(hex);
  return Status::Ok();
}

}  // namespace

std::string Sha256(std::string_view text) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_Digest(text.data(), text.size(), out, &n, EVP_sha256(), nullptr) != 1) return {};
  return std::string(reinterpret_cast<const char*>(out), n);
}

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 15]);
  }
  return out;
}

Status CheckPrivateFile(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::NotFound(path + ": no such file");
    return Status::IOError(path + ": " + std::strerror(errno));
  }
  if (st.st_mode & (S_IRWXG | S_IRWXO)) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return Status::PermissionDenied(path + " holds tokens but its group or others may read it (mode " + mode +
                                    "): chmod 600 " + path);
  }
  return Status::Ok();
}

Status ReadTokenLines(std::string_view text, std::vector<TokenLine>* out) {
  out->clear();
  size_t line_no = 0;
  for (std::string_view raw : Split(text, '\n')) {
    ++line_no;
    std::string_view line = StripComment(raw);
    if (line.empty()) continue;
    auto words = Words(line);
    TokenLine t;
    t.line = line_no;
    const std::string where = "token file line " + std::to_string(line_no);
    std::string_view secret;
    if (words.size() == 1) {
      secret = words[0];
      t.scope = "all";
      t.scopes = kScopeAll;
      t.name = "admin";
    } else {
      t.scope = std::string(words[0]);
      for (std::string_view scope : Split(words[0], ',')) {
        if (StartsWith(scope, "agent@")) {
          const std::string_view node = scope.substr(6);
          if (!IsSafeName(node)) return Status::InvalidArgument(where + ": \"" + SanitizeForOutput(scope, 64) + "\" does not name a node");
          if (!t.node.empty() && t.node != node) return Status::InvalidArgument(where + ": a token may be bound to one node only");
          t.node = std::string(node);
          t.scopes |= kScopeAgent;
        } else if (scope == "agent") t.scopes |= kScopeAgent;
        else if (scope == "operator") t.scopes |= kScopeOperator;
        else if (scope == "read") t.scopes |= kScopeRead;
        else if (scope == "all") t.scopes |= kScopeAll;
        else return Status::InvalidArgument(where + ": unknown scope \"" + SanitizeForOutput(scope, 32) +
                                            "\" (agent, agent@NODE, operator, read, all)");
      }
      if (!t.node.empty() && (t.scopes & kScopeOperator))
        return Status::InvalidArgument(where + ": a node's agent token cannot also be an operator's");
      secret = words[1];
      t.name = words.size() > 2 ? std::string(words[2]) : !t.node.empty() ? t.node : std::string(words[0]);
    }
    if (Status s = DigestOf(secret, &t.digest); !s.ok()) return Status::InvalidArgument(where + ": " + s.message());
    out->push_back(std::move(t));
  }
  return Status::Ok();
}

Status TokenTable::Parse(std::string_view text, TokenTable* out) {
  std::vector<TokenLine> lines;
  if (Status s = ReadTokenLines(text, &lines); !s.ok()) return s;
  TokenTable t;
  t.enabled_ = true;
  for (const TokenLine& line : lines) {
    if (!t.by_digest_.emplace(line.digest, Entry{line.scopes, line.name, line.node}).second)
      return Status::InvalidArgument("token file line " + std::to_string(line.line) + ": this token is listed twice");
    // A person's token (operator) is not one handed to every node.
    if ((line.scopes & kScopeAgent) && !(line.scopes & kScopeOperator) && line.node.empty())
      t.shared_agent_.push_back(line.name);
  }
  if (t.by_digest_.empty()) return Status::InvalidArgument("token file holds no token");
  *out = std::move(t);
  return Status::Ok();
}

Status TokenTable::Load(const std::string& path, TokenTable* out) {
  if (Status s = CheckPrivateFile(path); !s.ok()) return s;
  std::string text;
  if (Status s = ReadSmallFile(path, &text, 1u << 20); !s.ok()) return s;
  Status s = Parse(text, out);
  if (!s.ok()) return Status::InvalidArgument(path + ": " + s.message());
  return s;
}

AuthResult TokenTable::Check(std::string_view authorization, uint32_t needed, Caller* caller) const {
  if (!enabled_) {
    *caller = Caller{kScopeAll, "anonymous", ""};
    return AuthResult::kOk;
  }
  constexpr std::string_view kBearer = "Bearer ";
  if (!IStartsWith(authorization, kBearer)) return AuthResult::kUnauthenticated;
  std::string_view token = Trim(authorization.substr(kBearer.size()));
  if (token.empty()) return AuthResult::kUnauthenticated;
  // The digest is what is looked up: how far a guess matched changes nothing an
  // attacker can time.
  auto it = by_digest_.find(Hex(Sha256(token)));
  if (it == by_digest_.end()) return AuthResult::kUnauthenticated;
  uint32_t scopes = it->second.scopes;
  if (scopes & kScopeOperator) scopes |= kScopeRead;
  if ((scopes & needed) == 0) return AuthResult::kForbidden;
  *caller = Caller{scopes, it->second.name, it->second.node};
  return AuthResult::kOk;
}

Status ClientToken(const std::string& path, std::string* token) {
  token->clear();
  if (!path.empty()) {
    if (Status s = CheckPrivateFile(path); !s.ok()) return s;
    std::string text;
    if (Status s = ReadSmallFile(path, &text, 1u << 20); !s.ok()) return s;
    for (std::string_view raw : Split(text, '\n')) {
      std::string_view line = StripComment(raw);
      if (line.empty()) continue;
      if (Words(line).size() != 1) return Status::InvalidArgument(path + ": the token file must hold one token");
      *token = std::string(line);
      return Status::Ok();
    }
    return Status::InvalidArgument(path + ": the token file holds no token");
  }
  if (const char* env = std::getenv("AEGIS_TOKEN"); env && *env) *token = std::string(Trim(env));
  return Status::Ok();
}

}  // namespace aegis::controller
