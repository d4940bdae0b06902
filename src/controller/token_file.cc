#include "controller/token_file.h"

#include <openssl/rand.h>

#include "common/json_check.h"
#include "common/text.h"
#include "controller/tokens.h"

namespace aegis::controller {

namespace {

// One line's words with its comment removed.
std::vector<std::string> LineWords(std::string_view raw) {
  std::string_view line = raw.substr(0, std::min(raw.find('#'), raw.size()));
  std::vector<std::string> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const size_t b = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > b) out.emplace_back(line.substr(b, i - b));
  }
  return out;
}

std::string NodeOf(std::string_view scope) {
  for (std::string_view s : Split(scope, ','))
    if (StartsWith(s, "agent@")) return std::string(s.substr(6));
  return "";
}

}  // namespace

Status ListTokenLines(std::string_view text, std::vector<TokenLine>* out) {
  out->clear();
  TokenTable check;  // the same rules as the controller's, so that a listed file also loads
  if (Status s = TokenTable::Parse(text, &check); !s.ok()) return s;
  size_t line_no = 0;
  for (std::string_view raw : Split(text, '\n')) {
    ++line_no;
    auto words = LineWords(raw);
    if (words.empty()) continue;
    TokenLine t;
    t.line = line_no;
    const std::string& secret = words.size() == 1 ? words[0] : words[1];
    t.scope = words.size() == 1 ? "all" : words[0];
    t.name = words.size() > 2 ? words[2] : (words.size() == 1 ? "admin" : words[0]);
    t.node = NodeOf(t.scope);
    t.digest = StartsWith(secret, "sha256:") ? ToLower(secret.substr(7)) : Hex(Sha256(secret));
    out->push_back(std::move(t));
  }
  return Status::Ok();
}

Status AddTokenLine(std::string_view text, const std::string& scope, const std::string& name, std::string* new_text,
                    std::string* token) {
  if (!IsSafeName(name)) return Status::InvalidArgument("a token's name must be 1 to 200 letters, digits or . _ - : @ + =");
  unsigned char random[32];
  if (RAND_bytes(random, sizeof random) != 1) return Status::Unavailable("no random bytes for a new token");
  const std::string fresh = Hex(std::string_view(reinterpret_cast<const char*>(random), sizeof random));
  std::string result(text);
  if (!result.empty() && result.back() != '\n') result += '\n';
  result += scope + "  sha256:" + Hex(Sha256(fresh)) + "  " + name + "\n";
  TokenTable check;  // refuse what the controller would refuse, before anything is written
  if (Status s = TokenTable::Parse(result, &check); !s.ok()) return s;
  *new_text = std::move(result);
  *token = fresh;
  return Status::Ok();
}

Status RemoveTokenLines(std::string_view text, const std::string& node, const std::string& name, std::string* new_text,
                        size_t* removed) {
  *removed = 0;
  std::string result;
  for (std::string_view raw : Split(text, '\n')) {
    auto words = LineWords(raw);
    const bool match = words.size() >= 2 && ((!node.empty() && NodeOf(words[0]) == node) ||
                                             (!name.empty() && words.size() > 2 && words[2] == name));
    if (match) {
      ++*removed;
      continue;
    }
    result.append(raw);
    result += '\n';
  }
  // Split yields an empty last piece for text ending in '\n': do not add a line.
  if (!text.empty() && text.back() == '\n' && !result.empty()) result.pop_back();
  if (*removed == 0) return Status::NotFound(node.empty() ? "no token is named " + name : "no token is bound to node " + node);
  // A controller keeps the tokens it has when the file it is told to reload is refused:
  // a revocation that left such a file would revoke nothing.
  TokenTable check;
  if (Status s = TokenTable::Parse(result, &check); !s.ok())
    return Status::InvalidArgument("removing them would leave a file the controller refuses (" + s.message() +
                                   "), so it would keep accepting them; add the replacement token first");
  *new_text = std::move(result);
  return Status::Ok();
}

}  // namespace aegis::controller
