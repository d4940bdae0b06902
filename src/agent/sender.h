// Ships queued events to the controller: POST {controller}/api/v1/events with
//   {"node": NODE, "agent": INSTANCE, "events": [...at most 5000, body at most 4 MiB]}
// and `Authorization: Bearer TOKEN` when a token is set. One thread, one request at a
// time, always from the queue's acknowledged position, so a batch is resent until the
// controller answers it (event ids make a resend harmless). By answer:
//   200          acknowledged; ids listed in "rejected" are logged and counted, not resent
//   413          the batch is halved (down to one event; a single event too large for
//                any body is dropped, logged and counted), then grows back after successes
//   429, 503     backpressure: wait Retry-After (seconds or an HTTP date; at most 5 min),
//                exponential backoff when it is absent
//   401, 403     logged, the token file read again, retried with backoff; never dropped
//   other 4xx    logged (the batch or the API does not fit), retried with backoff; never
//                dropped: losing data silently is worse than a growing, visible queue
//   refused, timeouts, 5xx  retried with exponential backoff (0.5 s doubling to 30 s, +-20%)
// Several controllers (`controller` = "URL,URL,...", the instances of one cluster on one
// database: any of them stores what it is sent): the agent posts to one; no answer, a 5xx
// or backpressure sends it to the next at once, and only when every one has failed in a
// row does it back off (or wait Retry-After). It stays with the one that answers.
// The connection is kept alive while batches follow one another and closed when the queue
// is empty: an idle connection would hold one of the controller's worker threads.
// A heartbeat rides along every `heartbeat_s` (alone when nothing is queued), but only
// with a batch that empties the queue: its `at` promises the controller that every event
// the agent read before `at` was sent in this batch or an earlier one, so `at` is the
// loop's coverage time (set_coverage: every line read before it is queued), read before
// the batch was taken from the queue. Heartbeats are not queued: a late one is worthless.
// The token is never logged.
//
// The answer's `scope` (docs/api.md) says which job runs on the node, how often to post
// while it runs (`report_s`: then an empty batch goes when nothing is queued, so that the
// agent hears of the job's end within that time) and up to when to flush (`flush`); it is
// handed to the agent (set_on_scope), which tags what it reads and, when asked, flushes
// and calls HeartbeatNow().
#pragma once
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "agent/counters.h"
#include "agent/disk_queue.h"
#include "common/progress_signal.h"
#include "common/status.h"
#include "env/env.h"

namespace httplib {
class Client;
}

namespace aegis::agent {

struct ControllerUrl {
  std::string scheme;  // http or https
  std::string host;    // as written (IPv6 in brackets)
  int port = 0;
  std::string prefix;  // path before /api/v1, without a trailing '/'
  std::string SchemeHostPort() const { return scheme + "://" + host + ":" + std::to_string(port); }
};
Status ParseControllerUrl(std::string_view url, ControllerUrl* out);
// A comma-separated list of one or more controller URLs.
Status ParseControllerUrls(std::string_view list, std::vector<ControllerUrl>* out);

struct SenderOptions {
  std::string controller;  // one URL, or several separated by commas
  std::string node;
  std::string agent_id;
  std::string token;       // bearer token ("" = none)
  std::string token_file;  // read again after 401 / 403 ("" = none)
  std::string ca_file;     // https: CA bundle to verify the controller ("" = the system's)
  size_t max_events = 5000;
  size_t max_body_bytes = 4u << 20;
  double backoff_min_s = 0.5;
  double backoff_max_s = 30;
  double max_retry_after_s = 300;
  double heartbeat_s = 30;
  double connect_timeout_s = 5;
  double io_timeout_s = 30;
  // Its clocks (not owned): heartbeat and report periods on the monotonic one, `at` and
  // Retry-After dates on the wall one; null: Env::Default(). Waiting between rounds
  // (Loop) is on the real clock, so a test with a ManualClockEnv drives RunOnce().
  Env* env = nullptr;
  // Notified after each round of Loop (common/progress_signal.h); null: none.
  ProgressSignal* progress = nullptr;
};

// What the agent says about itself in heartbeats.
using HealthFn = std::function<nlohmann::json()>;

// The `scope` of the controller's answer.
struct ControllerScope {
  std::string job;        // "" when no job runs on the node
  double since = NAN;     // the job's window opens here (controller clock)
  double report_s = NAN;  // post this often; NaN: only with events and heartbeats
  double flush = NAN;     // flush and send a heartbeat covering this time; NaN: nothing
};
// Reads it from an answer; false when the answer has none (an older controller).
bool ParseControllerScope(const nlohmann::json& answer, ControllerScope* out);

class Sender {
 public:
  Sender(SenderOptions options, DiskQueue* queue, AgentCounters* counters, HealthFn health);
  ~Sender();
  Sender(const Sender&) = delete;
  Sender& operator=(const Sender&) = delete;

  Status Init();  // parses the URL, sets up the client
  void Start();
  // Stops after the request in flight (bounded by the timeouts).
  void Stop();

  // Epoch time before which everything read is queued (default: now).
  void set_coverage(std::function<double()> coverage) { coverage_ = std::move(coverage); }
  // Called (on the sender's thread) with each answer's scope.
  void set_on_scope(std::function<void(const ControllerScope&)> on_scope) { on_scope_ = std::move(on_scope); }
  // A heartbeat goes with the next batch (the agent flushed on the controller's request).
  void HeartbeatNow();
  // The newest `at` of a heartbeat the controller acknowledged (0: none yet).
  double acked_heartbeat_at() const { return acked_heartbeat_at_.load(); }

  // One round: sends one batch (and a heartbeat when due); returns how long to wait
  // before the next round (0: at once). Exposed so that tests can drive it step by step.
  double RunOnce();

 private:
  enum class Answer { kOk, kTooLarge, kBackpressure, kAuth, kRefused, kRetry };
  void Loop();
  double Backoff();
  // A post got no answer, a 5xx or backpressure: the next controller, at once while some
  // of them have not failed in a row yet (0); else the wait `otherwise`.
  double NextController(double otherwise);
  void Connect();  // client_ for urls_[current_]
  const std::string& CurrentUrl() const { return urls_text_[current_]; }
  std::string HeartbeatJson(double at);
  void ReadToken();

  SenderOptions options_;
  DiskQueue* queue_;
  AgentCounters* counters_;
  HealthFn health_;
  std::function<double()> coverage_;
  std::function<void(const ControllerScope&)> on_scope_;
  std::vector<ControllerUrl> urls_;
  std::vector<std::string> urls_text_;
  size_t current_ = 0;
  size_t failed_in_row_ = 0;  // controllers that failed one after another since the last answer
  std::unique_ptr<httplib::Client> client_;
  std::string path_;
  size_t limit_;                // events per batch now
  int failures_ = 0;            // consecutive, for the backoff
  double next_heartbeat_ = 0;   // steady seconds
  double report_s_ = NAN;       // the controller's report period; NaN: none
  double next_report_ = 0;      // steady seconds
  std::atomic<bool> heartbeat_now_{false};
  std::atomic<double> acked_heartbeat_at_{0};
  std::string last_error_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<bool> stop_{false};
};

// Seconds to wait from a Retry-After value (delta-seconds or an HTTP date); nullopt when
// it is neither.
std::optional<double> ParseRetryAfter(std::string_view value, double now_epoch);

}  // namespace aegis::agent
