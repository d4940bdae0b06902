// Small string helpers shared by every component. Pure functions, thread-safe.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aegis {

std::string_view Trim(std::string_view s);
std::string ToLower(std::string_view s);
bool StartsWith(std::string_view s, std::string_view prefix);
bool IStartsWith(std::string_view s, std::string_view prefix);  // ASCII case-insensitive
std::vector<std::string_view> Split(std::string_view s, char sep);

// Replaces every byte sequence that is not valid UTF-8 (and every control character but
// tab) with U+FFFD, and cuts the result to at most max_bytes (adding "..." when cut), so
// that anything taken from a log can go into JSON and onto a terminal.
std::string SanitizeForOutput(std::string_view s, size_t max_bytes = 1024);
bool IsValidUtf8(std::string_view s);
// `s` as a JSON string literal, quotes included (invalid UTF-8 replaced by U+FFFD): for
// JSON texts built by appending, where a document object would cost more than the text.
std::string JsonQuoted(std::string_view s);

// Number of '\n' bytes in [begin, end): eight bytes at a time (the hot loop of line numbering).
uint64_t CountNewlines(const char* begin, const char* end);

// A fast hash of bytes for tables held in memory (8 bytes at a time); not stable across
// versions, never to be stored.
uint64_t HashBytes(std::string_view s, uint64_t seed = 0);

std::optional<long long> ParseInt(std::string_view s);
std::optional<double> ParseDouble(std::string_view s);

}  // namespace aegis
