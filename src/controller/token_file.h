// Edits a controller's token file (tokens.h) for `aegis tokens create|revoke|list`: pure
// functions from the file's text to its new text, so that the command writes the result
// once (atomically, mode 0600). A created token is 32 random bytes in hex; the file keeps
// only its digest ("sha256:HEX"), and the token itself is shown once, to the caller.
// Comments and lines the edit does not touch are kept as they were. Thread-safe.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "controller/tokens.h"

namespace aegis::controller {

// Every token line of `text`; InvalidArgument as TokenTable::Parse would say.
Status ListTokenLines(std::string_view text, std::vector<TokenLine>* out);

// Appends a new token with `scope` ("agent@NODE", "operator", "read", "agent", ...) and
// `name` to `text`. `token` receives the new token. InvalidArgument for a scope or name
// the token file would refuse; Unavailable when no random bytes can be had.
Status AddTokenLine(std::string_view text, const std::string& scope, const std::string& name, std::string* new_text,
                    std::string* token);

// Removes the lines whose node (agent@NODE) is `node`, or whose name (as TokenLine names
// it) is `name` (one of the two is given). NotFound when no line matches; InvalidArgument
// for a file ReadTokenLines refuses, or when what is left is no token file the controller
// would load (no token at all); `removed` counts the lines taken out.
Status RemoveTokenLines(std::string_view text, const std::string& node, const std::string& name, std::string* new_text,
                        size_t* removed);

}  // namespace aegis::controller
