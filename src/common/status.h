// Status: the error style of every reader, store, client and server (after leveldb's
// Status). A call that can fail returns a Status; ok() means it did what it says, and
// otherwise the code says what kind of failure it was, so that callers decide on the
// code and never on the message's text. The message is for people (logs, stderr).
// Cheap to copy when ok (no allocation). Thread-compatible.
// One layer differs, on purpose: loading a rule catalogue (rules/, match/) throws
// CatalogError (rules/catalog.h), because a catalogue that does not load stops a process
// at start, before any input is read; its callers catch it at their front door. Exceptions
// thrown by libraries inside a parser (nlohmann's json::exception) are caught there and
// returned as a Status.
#pragma once
#include <string>
#include <string_view>
#include <utility>

namespace aegis {

class Status {
 public:
  enum class Code {
    kOk = 0,
    kNotFound,          // the thing asked for does not exist
    kInvalidArgument,   // the input is malformed or out of range (bad JSON, unknown enum value)
    kCorruption,        // stored or transferred data is damaged
    kIOError,           // the operating system refused (open, read, write, connect)
    kUnavailable,       // a peer or server is not reachable now; retrying may succeed
    kAlreadyExists,     // an idempotent write found its key already written
    kPermissionDenied,  // authentication or authorisation failed
    kResourceExhausted, // a size or rate limit was hit
    kFailedPrecondition // the system is not in a state that allows it (not the leader, ...)
  };

  Status() = default;  // ok
  static Status Ok() { return Status(); }
  static Status NotFound(std::string msg) { return Status(Code::kNotFound, std::move(msg)); }
  static Status InvalidArgument(std::string msg) { return Status(Code::kInvalidArgument, std::move(msg)); }
  static Status Corruption(std::string msg) { return Status(Code::kCorruption, std::move(msg)); }
  static Status IOError(std::string msg) { return Status(Code::kIOError, std::move(msg)); }
  static Status Unavailable(std::string msg) { return Status(Code::kUnavailable, std::move(msg)); }
  static Status AlreadyExists(std::string msg) { return Status(Code::kAlreadyExists, std::move(msg)); }
  static Status PermissionDenied(std::string msg) { return Status(Code::kPermissionDenied, std::move(msg)); }
  static Status ResourceExhausted(std::string msg) { return Status(Code::kResourceExhausted, std::move(msg)); }
  static Status FailedPrecondition(std::string msg) { return Status(Code::kFailedPrecondition, std::move(msg)); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsInvalidArgument() const { return code_ == Code::kInvalidArgument; }
  bool IsUnavailable() const { return code_ == Code::kUnavailable; }
  bool IsPermissionDenied() const { return code_ == Code::kPermissionDenied; }
  const std::string& message() const { return message_; }
  // "InvalidArgument: job.json: state \"x\" is not one of ..." ("OK" when ok).
  std::string ToString() const;

 private:
  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

std::string_view ToString(Status::Code code);

// What a reader could not read, reported as it goes (after leveldb's
// log::Reader::Reporter): the reader carries on with what remains, and the caller decides
// what to do with the loss (list it in a verdict's `unreadable`, count it in a metric).
class Reporter {
 public:
  virtual ~Reporter() = default;
  // `where` names the input (a bundle-relative file, "prometheus", an agent's stream);
  // `status` says what kind of loss it was and why.
  virtual void Report(std::string_view where, const Status& status) = 0;
};

}  // namespace aegis
