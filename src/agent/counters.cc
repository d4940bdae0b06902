#include "agent/counters.h"

namespace aegis::agent {

const char* InputKindName(InputKind k) {
  switch (k) {
    case InputKind::kKernel: return "kernel";
    case InputKind::kTrain: return "train";
    case InputKind::kCcl: return "ccl";
  }
  return "kernel";
}

const char* SendErrorName(SendError e) {
  switch (e) {
    case SendError::kConnect: return "connect";
    case SendError::kServer: return "server";
    case SendError::kAuth: return "auth";
    case SendError::kBackpressure: return "backpressure";
    case SendError::kTooLarge: return "too_large";
    case SendError::kBadRequest: return "bad_request";
  }
  return "connect";
}

}  // namespace aegis::agent
