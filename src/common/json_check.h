// Strict checks of JSON request bodies: each field that is present must have the JSON
// kind the API documents (docs/api.md); unknown fields are ignored. Every failure is an
// InvalidArgument whose message names the field's path ("job: hosts[2] must be a
// string"), so that a client learns what to fix. Pure functions, thread-safe.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace aegis {

// The deepest nesting of arrays and objects any document of the API may have. Code that
// walks a document recurses once per level: a job body nested 50,000 deep, well under
// every size limit, overflowed the stack of the controller thread that took it, so a
// deeper document is refused before it is parsed.
inline constexpr size_t kMaxJsonDepth = 64;

// How deep arrays and objects nest in `text` (brackets inside strings not counted),
// counted up to `limit` + 1: the scan stops there. Linear in the text, no allocation; the
// text need not be valid JSON.
size_t JsonNestingDepth(std::string_view text, size_t limit = kMaxJsonDepth);
// InvalidArgument "<what>: nested deeper than 64 levels" when `text` nests deeper than
// kMaxJsonDepth.
Status CheckJsonDepth(std::string_view text, std::string_view what);

// Parses a request body that must be one JSON object nested at most kMaxJsonDepth deep.
// `what` names it in messages.
Status ParseJsonObject(std::string_view text, std::string_view what, nlohmann::json* out);

// Each checks `obj[key]` (absent or null passes unless `required`) and names the field
// as `path.key` in its message.
Status CheckString(const nlohmann::json& obj, const char* key, std::string_view path, bool required = false);
Status CheckNumber(const nlohmann::json& obj, const char* key, std::string_view path, bool required = false);
Status CheckInteger(const nlohmann::json& obj, const char* key, std::string_view path, bool required = false);
Status CheckBool(const nlohmann::json& obj, const char* key, std::string_view path, bool required = false);
Status CheckObject(const nlohmann::json& obj, const char* key, std::string_view path, bool required = false);
// An array whose every element is a string.
Status CheckStringArray(const nlohmann::json& obj, const char* key, std::string_view path, bool required = false);
// A string, or an array of strings.
Status CheckStringOrStrings(const nlohmann::json& obj, const char* key, std::string_view path);
// A time: epoch seconds (a number) or an RFC 3339 / ISO 8601 string.
Status CheckTime(const nlohmann::json& obj, const char* key, std::string_view path, bool required = false);

// The value of a time field checked by CheckTime; NaN when absent or null.
double TimeValue(const nlohmann::json& obj, const char* key);

// A name used in URLs and as a store key (job ids, host names, event ids): 1 to 200
// bytes of letters, digits and . _ - : @ + = (no '/', no spaces, no control characters).
bool IsSafeName(std::string_view s);
// A bundle-relative file path the export may write: segments of safe names joined by
// '/', never "." or "..", not absolute, at most 512 bytes.
bool IsSafeRelativePath(std::string_view s);

}  // namespace aegis
