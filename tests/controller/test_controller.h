// Test helpers: a controller running in this process (the real Controller and HttpApi on
// a free loopback port, SQLite in a scratch directory unless told otherwise), a small
// HTTP client for it, a generated incident, and waiting for a condition.
#pragma once
#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "agent_sim.h"
#include "common/progress_signal.h"
#include "controller/controller.h"
#include "controller/http_api.h"
#include "env/env.h"
#include "gen/scenarios.h"
#include "scratch_dir.h"

namespace aegis::controller::test {

struct HttpReply {
  int status = 0;  // 0: no answer
  std::string body;
  std::string retry_after;
  nlohmann::json Json() const { return nlohmann::json::parse(body, nullptr, false); }
  // Keeps the fields in the order the controller wrote them.
  nlohmann::ordered_json OrderedJson() const { return nlohmann::ordered_json::parse(body, nullptr, false); }
};

// One request to http://127.0.0.1:PORT; `token` empty: no Authorization header.
HttpReply Http(int port, const std::string& method, const std::string& path, const std::string& body = "",
               const std::string& token = "");

class TestController {
 public:
  // Options as given, with listen / db filled in (db: sqlite in the scratch directory,
  // unless options.db is set). Fails the test when it cannot start.
  explicit TestController(ControllerOptions options = Defaults());
  ~TestController();
  static ControllerOptions Defaults();  // settle 0, slow checks off, share limit 1

  Controller& controller() { return *controller_; }
  int port() const { return api_->port(); }
  const std::string& dir() const { return scratch_->path(); }
  HttpReply Get(const std::string& path, const std::string& token = "") const { return Http(port(), "GET", path, "", token); }
  HttpReply Post(const std::string& path, const std::string& body, const std::string& token = "") const {
    return Http(port(), "POST", path, body, token);
  }
  HttpReply Put(const std::string& path, const std::string& body, const std::string& token = "") const {
    return Http(port(), "PUT", path, body, token);
  }
  // Stops the loop and the server (a controller that went away), keeping the scratch dir.
  void Shutdown();

 private:
  std::shared_ptr<store::test::ScratchDir> scratch_;
  std::unique_ptr<Controller> controller_;
  std::unique_ptr<HttpApi> api_;
};

// The signal a TestController's decision loop notifies after each pass (unless its options
// name another): what WaitFor waits on.
ProgressSignal& Progress();

// Waits until `done` holds, checked now and after every pass of a TestController's decision
// loop, or `timeout` passed. For conditions about controllers in this process (requests the
// test makes itself are answered before they return).
bool WaitFor(const std::function<bool()>& done, std::chrono::milliseconds timeout = std::chrono::seconds(20));

// The real wall clock, epoch seconds: what a controller started without a test Env
// decides by (the times these tests post must be near it).
inline double WallNow() { return Env::Default()->NowEpochSeconds(); }

// Waits until the decision loop has completed `passes` more passes. A test asserts that
// something did NOT happen only after this: a sleep alone proves nothing on a slow machine,
// where the loop may not have run at all.
bool WaitForLoopPasses(TestController& c, int passes);

// A generated incident (tools/gen) with `hosts` hosts.
gen::Bundle Generate(const std::string& scenario, uint64_t seed, int hosts);
const Matcher& ShippedMatcher();
// `aegis diagnose` of a bundle directory (one thread): the verdict as JSON.
nlohmann::json DiagnoseDir(const std::string& dir);

// Registers topology and job, posts every event as agents would; every post must be
// answered 200.
void PostIncident(const TestController& c, gen::Bundle& b, const SimOptions& sim = {});

// The incident of `job` once it is decided (waits); null JSON when it never was.
nlohmann::json WaitDecided(const TestController& c, const std::string& incident,
                           std::chrono::milliseconds timeout = std::chrono::seconds(30));

// The parts of a verdict that say what to do: action, cause, stage, isolate, repair.
nlohmann::json Decisive(const nlohmann::json& verdict);

}  // namespace aegis::controller::test
