#include "common/json_check.h"

#include <algorithm>
#include <cmath>

#include "common/text.h"
#include "common/time.h"

namespace aegis {

using nlohmann::json;

namespace {

std::string Path(std::string_view path, const char* key) {
  std::string p(path);
  if (!p.empty()) p += '.';
  return p + key;
}

// Looks up obj[key]; *present false for absent or null.
Status Find(const json& obj, const char* key, std::string_view path, bool required, const json** out) {
  *out = nullptr;
  if (!obj.is_object()) return Status::InvalidArgument(std::string(path) + " must be an object");
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    if (required) return Status::InvalidArgument(Path(path, key) + " is required");
    return Status::Ok();
  }
  *out = &*it;
  return Status::Ok();
}

Status Kind(const json& obj, const char* key, std::string_view path, bool required, bool (*ok)(const json&),
            const char* kind) {
  const json* v = nullptr;
  if (Status s = Find(obj, key, path, required, &v); !s.ok() || v == nullptr) return s;
  if (!ok(*v)) return Status::InvalidArgument(Path(path, key) + " must be " + kind);
  return Status::Ok();
}

}  // namespace

size_t JsonNestingDepth(std::string_view text, size_t limit) {
  size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

Status CheckJsonDepth(std::string_view text, std::string_view what) {
  if (JsonNestingDepth(text) <= kMaxJsonDepth) return Status::Ok();
  std::string msg(what);
  msg.append(": nested deeper than ").append(std::to_string(kMaxJsonDepth)).append(" levels");
  return Status::InvalidArgument(std::move(msg));
}

Status ParseJsonObject(std::string_view text, std::string_view what, json* out) {
  *out = json();
  if (Status s = CheckJsonDepth(text, what); !s.ok()) return s;
  *out = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (out->is_discarded()) return Status::InvalidArgument(std::string(what) + ": body is not valid JSON");
  if (!out->is_object()) return Status::InvalidArgument(std::string(what) + ": body must be a JSON object");
  return Status::Ok();
}

Status CheckString(const json& obj, const char* key, std::string_view path, bool required) {
  return Kind(obj, key, path, required, [](const json& v) { return v.is_string(); }, "a string");
}

Status CheckNumber(const json& obj, const char* key, std::string_view path, bool required) {
  return Kind(obj, key, path, required,
              [](const json& v) { return v.is_number() && std::isfinite(v.get<double>()); }, "a finite number");
}

Status CheckInteger(const json& obj, const char* key, std::string_view path, bool required) {
  return Kind(obj, key, path, required,
              [](const json& v) {
                if (v.is_number_integer()) return true;
                if (!v.is_number_float()) return false;
                const double d = v.get<double>();
                return std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15;
              },
              "a whole number");
}

Status CheckBool(const json& obj, const char* key, std::string_view path, bool required) {
  return Kind(obj, key, path, required, [](const json& v) { return v.is_boolean(); }, "true or false");
}

Status CheckObject(const json& obj, const char* key, std::string_view path, bool required) {
  return Kind(obj, key, path, required, [](const json& v) { return v.is_object(); }, "an object");
}

Status CheckStringArray(const json& obj, const char* key, std::string_view path, bool required) {
  const json* v = nullptr;
  if (Status s = Find(obj, key, path, required, &v); !s.ok() || v == nullptr) return s;
  if (!v->is_array()) return Status::InvalidArgument(Path(path, key) + " must be an array of strings");
  for (size_t i = 0; i < v->size(); ++i)
    if (!(*v)[i].is_string())
      return Status::InvalidArgument(Path(path, key) + "[" + std::to_string(i) + "] must be a string");
  return Status::Ok();
}

Status CheckStringOrStrings(const json& obj, const char* key, std::string_view path) {
  const json* v = nullptr;
  if (Status s = Find(obj, key, path, false, &v); !s.ok() || v == nullptr) return s;
  if (v->is_string()) return Status::Ok();
  return CheckStringArray(obj, key, path);
}

Status CheckTime(const json& obj, const char* key, std::string_view path, bool required) {
  const json* v = nullptr;
  if (Status s = Find(obj, key, path, required, &v); !s.ok() || v == nullptr) return s;
  if (v->is_number() && std::isfinite(v->get<double>())) return Status::Ok();
  if (v->is_string()) {
    const std::string& s = v->get_ref<const std::string&>();
    size_t used = 0;
    if (auto t = ParseIsoTime(s, &used); t && used == s.size()) return Status::Ok();
    return Status::InvalidArgument(Path(path, key) + " \"" + SanitizeForOutput(s, 64) +
                                   "\" is not a time (RFC 3339, e.g. 2026-11-30T10:12:04Z)");
  }
  return Status::InvalidArgument(Path(path, key) + " must be a time: epoch seconds or an RFC 3339 string");
}

double TimeValue(const json& obj, const char* key) {
  if (!obj.is_object()) return NAN;
  auto it = obj.find(key);
  if (it == obj.end()) return NAN;
  if (it->is_number()) return it->get<double>();
  if (it->is_string())
    if (auto t = ParseIsoTime(it->get_ref<const std::string&>())) return *t;
  return NAN;
}

bool IsSafeName(std::string_view s) {
  if (s.empty() || s.size() > 200) return false;
  if (s == "." || s == "..") return false;
  for (unsigned char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-' || c == ':' || c == '@' || c == '+' || c == '=';
    if (!ok) return false;
  }
  return true;
}

bool IsSafeRelativePath(std::string_view s) {
  if (s.empty() || s.size() > 512 || s.front() == '/') return false;
  for (std::string_view seg : Split(s, '/'))
    if (!IsSafeName(seg)) return false;
  return true;
}

}  // namespace aegis
