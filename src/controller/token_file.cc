#include "controller/token_file.h"

#include <openssl/rand.h>

#include <set>

#include "common/json_check.h"
#include "common/text.h"
#include "controller/tokens.h"

namespace aegis::controller {

Status ListTokenLines(std::string_view text, std::vector<TokenLine>* out) {
  TokenTable check;  // the same rules as the controller's, so that a listed file also loads
  if (Status s = TokenTable::Parse(text, &check); !s.ok()) return s;
  return ReadTokenLines(text, out);
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
  std::vector<TokenLine> lines;
  if (Status s = ReadTokenLines(text, &lines); !s.ok()) return s;
  std::set<size_t> drop;
  for (const TokenLine& t : lines)
    if ((!node.empty() && t.node == node) || (!name.empty() && t.name == name)) drop.insert(t.line);
  std::string result;
  size_t line_no = 0;
  for (std::string_view raw : Split(text, '\n')) {
    if (drop.count(++line_no)) {
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
