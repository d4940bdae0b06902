// Helpers of the agent's tests: scratch directories, files, and a test double of the
// controller's event endpoint that speaks real HTTP on loopback.
#pragma once
#include <httplib.h>

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "agent/disk_queue.h"
#include "agent/sender.h"
#include "common/progress_signal.h"
#include "match/live_rules.h"

namespace aegis::agent::testing {

// A fresh directory under $TMPDIR, removed with everything in it at destruction.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

void WriteFile(const std::string& path, const std::string& content);
void AppendFile(const std::string& path, const std::string& content);
std::string ReadFile(const std::string& path);

// A loopback port nobody listens on.
int UnusedPort();
// The on-disk queue in `dir` (default options; fails the test when it cannot open).
std::unique_ptr<DiskQueue> OpenQueue(const std::string& dir);
// `n` small log events, numbered from `from`.
std::vector<std::string> Events(int n, int from = 0);
// A sender of node-0007 to `url`: short back-off, no heartbeats unless a test asks, and
// Progress() to wait on.
SenderOptions SenderTestOptions(const std::string& url);

// The built-in rules, loaded once.
LiveRules* BuiltinRules();

// The signal the agent's tests wait on: agents and senders under test are given it
// (AgentConfig::progress, SenderOptions::progress), and FakeController notifies it after
// every request.
ProgressSignal& Progress();

// POST /api/v1/events as the controller serves it: keeps every event once by id, answers
// 200 with accepted / duplicates, unless told otherwise: `script` answers the next
// requests in turn (status and headers; an empty script means 200).
class FakeController {
 public:
  struct Reply {
    int status = 200;
    std::string retry_after;  // header value, "" for none
  };
  // Listens on 127.0.0.1:`port` (0: any free port).
  explicit FakeController(int port = 0);
  ~FakeController();
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  void Script(std::vector<Reply> replies);
  // Bodies above this many events are answered 413.
  void set_max_events(size_t n);
  void set_token(std::string token);  // required bearer token ("" = none)
  // The answers' "scope" from now on (null: none, as an older controller).
  void set_scope(nlohmann::json scope);

  std::vector<nlohmann::json> events() const;   // unique, in arrival order
  std::vector<nlohmann::json> of_type(const std::string& type) const;
  size_t requests() const;
  size_t duplicates() const;
  std::vector<std::string> duplicate_ids() const;
  std::vector<size_t> batch_sizes() const;
  std::vector<std::string> authorizations() const;
  // Waits until `pred` holds or `seconds` pass: checked after every request it answers and
  // every step of an agent or sender given Progress().
  bool WaitFor(const std::function<bool()>& pred, double seconds = 10) const;

 private:
  void Answer(const httplib::Request& req, httplib::Response& res);

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mu_;
  std::deque<Reply> script_;
  size_t max_events_ = 5000;
  std::string token_;
  nlohmann::json scope_;
  std::set<std::string> ids_;
  std::vector<nlohmann::json> events_;
  size_t requests_ = 0, duplicates_ = 0;
  std::vector<size_t> batch_sizes_;
  std::vector<std::string> duplicate_ids_;
  std::vector<std::string> authorizations_;
};

}  // namespace aegis::agent::testing
