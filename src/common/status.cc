#include "common/status.h"

namespace aegis {

std::string_view ToString(Status::Code code) {
  switch (code) {
    case Status::Code::kOk: return "OK";
    case Status::Code::kNotFound: return "NotFound";
    case Status::Code::kInvalidArgument: return "InvalidArgument";
    case Status::Code::kCorruption: return "Corruption";
    case Status::Code::kIOError: return "IOError";
    case Status::Code::kUnavailable: return "Unavailable";
    case Status::Code::kAlreadyExists: return "AlreadyExists";
    case Status::Code::kPermissionDenied: return "PermissionDenied";
    case Status::Code::kResourceExhausted: return "ResourceExhausted";
    case Status::Code::kFailedPrecondition: return "FailedPrecondition";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string s(aegis::ToString(code_));
  s += ": ";
  s += message_;
  return s;
}

}  // namespace aegis
