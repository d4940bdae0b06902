#include "controller/tokens.h"

#include <cstdlib>

#include "bundle/bundle_reader.h"
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

bool ConstantTimeEqual(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  const size_t n = a.size();
  for (size_t i = 0; i < n; ++i) diff |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
  return diff == 0;
}

}  // namespace

Status TokenTable::Parse(std::string_view text, TokenTable* out) {
  TokenTable t;
  t.enabled_ = true;
  size_t line_no = 0;
  for (std::string_view raw : Split(text, '\n')) {
    ++line_no;
    std::string_view line = StripComment(raw);
    if (line.empty()) continue;
    auto words = Words(line);
    Entry e;
    const std::string where = "token file line " + std::to_string(line_no);
    if (words.size() == 1) {
      e.token = std::string(words[0]);
      e.scopes = kScopeAll;
      e.name = "admin";
    } else {
      e.scopes = 0;
      for (std::string_view scope : Split(words[0], ',')) {
        if (scope == "agent") e.scopes |= kScopeAgent;
        else if (scope == "operator") e.scopes |= kScopeOperator;
        else if (scope == "read") e.scopes |= kScopeRead;
        else if (scope == "all") e.scopes |= kScopeAll;
        else return Status::InvalidArgument(where + ": unknown scope \"" + SanitizeForOutput(scope, 32) +
                                            "\" (agent, operator, read, all)");
      }
      e.token = std::string(words[1]);
      e.name = words.size() > 2 ? std::string(words[2]) : std::string(words[0]);
    }
    if (e.token.size() < 16) return Status::InvalidArgument(where + ": a token must be at least 16 characters");
    t.entries_.push_back(std::move(e));
  }
  if (t.entries_.empty()) return Status::InvalidArgument("token file holds no token");
  *out = std::move(t);
  return Status::Ok();
}

Status TokenTable::Load(const std::string& path, TokenTable* out) {
  std::string text;
  if (Status s = ReadSmallFile(path, &text, 1u << 20); !s.ok()) return s;
  Status s = Parse(text, out);
  if (!s.ok()) return Status::InvalidArgument(path + ": " + s.message());
  return s;
}

AuthResult TokenTable::Check(std::string_view authorization, uint32_t needed, Caller* caller) const {
  if (!enabled_) {
    *caller = Caller{kScopeAll, "anonymous"};
    return AuthResult::kOk;
  }
  constexpr std::string_view kBearer = "Bearer ";
  if (!IStartsWith(authorization, kBearer)) return AuthResult::kUnauthenticated;
  std::string_view token = Trim(authorization.substr(kBearer.size()));
  const Entry* found = nullptr;
  for (const Entry& e : entries_)  // every entry compared: the time does not tell which matched
    if (ConstantTimeEqual(e.token, token) && !found) found = &e;
  if (!found) return AuthResult::kUnauthenticated;
  uint32_t scopes = found->scopes;
  if (scopes & kScopeOperator) scopes |= kScopeRead;
  if ((scopes & needed) == 0) return AuthResult::kForbidden;
  *caller = Caller{scopes, found->name};
  return AuthResult::kOk;
}

Status ClientToken(const std::string& path, std::string* token) {
  token->clear();
  if (!path.empty()) {
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
