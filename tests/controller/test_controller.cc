#include "test_controller.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include "match/live_rules.h"
#include "sources/bundle_source.h"

namespace aegis::controller::test {

using nlohmann::json;

HttpReply Http(int port, const std::string& method, const std::string& path, const std::string& body,
               const std::string& token) {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(60, 0);
  client.set_write_timeout(60, 0);
  if (!token.empty()) client.set_bearer_token_auth(token);
  httplib::Result r = method == "GET"    ? client.Get(path.c_str())
                      : method == "PUT"  ? client.Put(path.c_str(), body, "application/json")
                                         : client.Post(path.c_str(), body, "application/json");
  HttpReply out;
  if (!r) return out;
  out.status = r->status;
  out.body = r->body;
  out.retry_after = r->get_header_value("Retry-After");
  return out;
}

ControllerOptions TestController::Defaults() {
  ControllerOptions o;
  o.settle_s = 0;
  o.slow_check_s = 0;
  o.max_isolate_share = 1.0;
  o.name = "test-controller";
  return o;
}

TestController::TestController(ControllerOptions options) : scratch_(std::make_shared<store::test::ScratchDir>()) {
  options.listen = "127.0.0.1:0";
  if (!options.progress) options.progress = &Progress();
  if (options.db.empty() || options.db == ControllerOptions().db) options.db = "sqlite:" + scratch_->path() + "/aegis.db";
  Status s = Controller::Open(options, &controller_);
  if (!s.ok()) {
    ADD_FAILURE() << "cannot open the controller: " << s.ToString();
    return;
  }
  api_ = std::make_unique<HttpApi>(controller_.get());
  s = api_->Start("127.0.0.1", 0);
  if (!s.ok()) ADD_FAILURE() << "cannot start the API: " << s.ToString();
  controller_->Start();
}

TestController::~TestController() { Shutdown(); }

void TestController::Shutdown() {
  if (api_) api_->Stop();
  if (controller_) controller_->Stop();
}

ProgressSignal& Progress() {
  static ProgressSignal* signal = new ProgressSignal;
  return *signal;
}

bool WaitFor(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  return Progress().WaitUntil(done, timeout);
}

bool WaitForLoopPasses(TestController& c, int passes) {
  const uint64_t base = c.controller().health().loop_passes.load();
  return WaitFor([&] { return c.controller().health().loop_passes.load() >= base + static_cast<uint64_t>(passes); });
}

gen::Bundle Generate(const std::string& scenario, uint64_t seed, int hosts) {
  gen::GenOptions o;
  o.scenario = scenario;
  o.seed = seed;
  o.hosts = hosts;
  o.kernel_bytes = 6000;
  o.train_bytes = 12000;
  return gen::BuildBundle(o);
}

const Matcher& ShippedMatcher() {
  static const std::shared_ptr<const Rules> rules = [] {
    std::shared_ptr<const Rules> r;
    Status s = LoadRules({}, &r);
    if (!s.ok()) std::abort();
    return r;
  }();
  return rules->matcher;
}

void PostIncident(const TestController& c, gen::Bundle& b, const SimOptions& sim) {
  ASSERT_EQ(c.Put("/api/v1/topology", TopologyText(b)).status, 200);
  HttpReply started = c.Post("/api/v1/jobs", RunningJobText(b));
  ASSERT_TRUE(started.status == 201 || started.status == 200) << started.body;
  for (const AgentPost& p : PostsFromBundle(b, ShippedMatcher(), sim)) {
    HttpReply r = c.Post("/api/v1/events", p.body.dump());
    ASSERT_EQ(r.status, 200) << r.body;
    ASSERT_TRUE(r.Json()["rejected"].empty()) << r.body;
  }
}

json WaitDecided(const TestController& c, const std::string& incident, std::chrono::milliseconds timeout) {
  json out;
  WaitFor(
      [&] {
        HttpReply r = c.Get("/api/v1/incidents/" + incident);
        json j = r.Json();
        if (r.status == 200 && j.is_object() && !j["decided_at"].is_null()) {
          out = j;
          return true;
        }
        return false;
      },
      timeout);
  return out;
}

json Decisive(const json& v) {
  json out = json::object();
  if (!v.is_object()) return out;
  for (const char* k : {"action", "cause", "stage", "isolate"})
    if (v.contains(k)) out[k] = v[k];
  // A repair is named by host, component and key or device; what the host has and what
  // is expected are details for people (expected.json of the generator leaves them out).
  out["repair"] = json::array();
  if (v.contains("repair") && v["repair"].is_array())
    for (const auto& r : v["repair"]) {
      json entry = json::object();
      for (const char* k : {"host", "component", "key", "device"})
        if (r.contains(k)) entry[k] = r[k];
      out["repair"].push_back(entry);
    }
  return out;
}

nlohmann::json DiagnoseDir(const std::string& dir) {
  DiagnoseOptions o;
  o.threads = 1;
  Verdict v;
  Status s = DiagnoseBundle(dir, ShippedMatcher(), o, &v);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return nlohmann::json::parse(VerdictToJson(v));
}

}  // namespace aegis::controller::test
