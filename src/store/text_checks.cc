#include "store/text_checks.h"

#include <cmath>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "common/json_check.h"
#include "common/text.h"

namespace aegis::store {

bool IsStorableText(std::string_view s) {
  return std::memchr(s.data(), '\0', s.size()) == nullptr && IsValidUtf8(s);
}

Status CheckText(std::string_view field, std::string_view value, size_t max_bytes) {
  if (value.size() > max_bytes)
    return Status::ResourceExhausted(std::string(field) + ": " + std::to_string(value.size()) +
                                     " bytes, more than the " + std::to_string(max_bytes) + " allowed");
  if (!IsStorableText(value)) return Status::InvalidArgument(std::string(field) + ": not UTF-8 text without NUL bytes");
  return Status::Ok();
}

Status CheckName(std::string_view field, std::string_view value) {
  if (value.empty()) return Status::InvalidArgument(std::string(field) + ": empty");
  return CheckText(field, value, kMaxNameBytes);
}

Status CheckJson(std::string_view field, std::string_view value) {
  if (value.size() > kMaxDocumentBytes)
    return Status::ResourceExhausted(std::string(field) + ": " + std::to_string(value.size()) +
                                     " bytes, more than the " + std::to_string(kMaxDocumentBytes) + " allowed");
  if (Status s = CheckJsonDepth(value, field); !s.ok()) return s;
  // accept() validates strings as UTF-8, and raw control bytes (NUL included) are not JSON.
  if (!nlohmann::json::accept(value)) return Status::InvalidArgument(std::string(field) + ": not a JSON text");
  return Status::Ok();
}

Status Unreadable(std::string_view table, std::string_view column, std::string_view value) {
  std::string msg(table);
  msg.append(".").append(column).append(": unknown value \"").append(value).append("\"");
  return Status::Corruption(std::move(msg));
}

Status CheckTime(std::string_view field, double t, bool allow_nan) {
  if (std::isnan(t) ? !allow_nan : !std::isfinite(t))
    return Status::InvalidArgument(std::string(field) + ": not a finite time");
  return Status::Ok();
}

}  // namespace aegis::store
