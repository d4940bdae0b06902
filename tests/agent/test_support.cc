#include "test_support.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace aegis::agent::testing {

ScratchDir::ScratchDir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/aegis-agent-test-XXXXXX";
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

void WriteFile(const std::string& path, const std::string& content) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << content;
}

int UnusedPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

std::unique_ptr<DiskQueue> OpenQueue(const std::string& dir) {
  std::unique_ptr<DiskQueue> q;
  EXPECT_TRUE(DiskQueue::Open(dir, {}, &q).ok());
  return q;
}

std::vector<std::string> Events(int n, int from) {
  std::vector<std::string> out;
  for (int i = from; i < from + n; ++i)
    out.push_back(nlohmann::json{{"id", "node-0007:test:" + std::to_string(i)}, {"type", "log"}, {"i", i}}.dump());
  return out;
}

SenderOptions SenderTestOptions(const std::string& url) {
  SenderOptions o;
  o.controller = url;
  o.node = "node-0007";
  o.agent_id = "agent-1";
  o.backoff_min_s = 0.01;
  o.backoff_max_s = 0.05;
  o.heartbeat_s = 0;  // none unless a test asks
  o.connect_timeout_s = 1;
  o.io_timeout_s = 5;
  o.progress = &Progress();
  return o;
}

void AppendFile(const std::string& path, const std::string& content) {
  std::ofstream f(path, std::ios::binary | std::ios::app);
  f << content;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

LiveRules* BuiltinRules() {
  static LiveRules* rules = new LiveRules({});
  return rules;
}

ProgressSignal& Progress() {
  static ProgressSignal* signal = new ProgressSignal;
  return *signal;
}

FakeController::FakeController(int port) {
  server_.new_task_queue = [] { return new httplib::ThreadPool(2); };
  server_.Post("/api/v1/events", [this](const httplib::Request& req, httplib::Response& res) {
    Answer(req, res);
    Progress().Notify();
  });
  if (port == 0) {
    port_ = server_.bind_to_any_port("127.0.0.1");
  } else if (server_.bind_to_port("127.0.0.1", port)) {
    port_ = port;
  } else {
    throw std::runtime_error("cannot listen on port " + std::to_string(port));
  }
  thread_ = std::thread([this] { server_.listen_after_bind(); });
  // Answered once the accept loop runs (the bound socket queues it till then), so that the
  // destructor's stop() finds it running.
  httplib::Client(url()).Get("/");
}

void FakeController::Answer(const httplib::Request& req, httplib::Response& res) {
  std::lock_guard<std::mutex> lock(mu_);
  ++requests_;
  authorizations_.push_back(req.get_header_value("Authorization"));
  if (!script_.empty()) {
    Reply r = script_.front();
    script_.pop_front();
    if (r.status != 200) {
      res.status = r.status;
      if (!r.retry_after.empty()) res.set_header("Retry-After", r.retry_after);
      res.set_content("{\"error\":\"scripted\"}", "application/json");
      return;
    }
  }
  if (!token_.empty() && req.get_header_value("Authorization") != "Bearer " + token_) {
    res.status = 401;
    return;
  }
  nlohmann::json body = nlohmann::json::parse(req.body, nullptr, false);
  if (!body.is_object() || !body["events"].is_array() || !body["node"].is_string() || !body["agent"].is_string()) {
    res.status = 400;
    return;
  }
  if (body["events"].size() > max_events_) {
    res.status = 413;
    return;
  }
  batch_sizes_.push_back(body["events"].size());
  size_t accepted = 0, dups = 0;
  nlohmann::json rejected = nlohmann::json::array();
  for (auto& e : body["events"]) {
    if (!e.is_object() || !e["id"].is_string()) {
      rejected.push_back({{"id", ""}, {"reason", "no id"}});
      continue;
    }
    if (ids_.insert(e["id"].get<std::string>()).second) {
      events_.push_back(e);
      ++accepted;
    } else {
      ++dups;
      ++duplicates_;
      duplicate_ids_.push_back(e["id"].get<std::string>());
    }
  }
  nlohmann::json answer{{"accepted", accepted}, {"duplicates", dups}, {"rejected", rejected}};
  if (!scope_.is_null()) answer["scope"] = scope_;
  res.set_content(answer.dump(), "application/json");
}

FakeController::~FakeController() {
  server_.stop();
  thread_.join();
}

void FakeController::Script(std::vector<Reply> replies) {
  std::lock_guard<std::mutex> lock(mu_);
  script_.assign(replies.begin(), replies.end());
}

void FakeController::set_max_events(size_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  max_events_ = n;
}

void FakeController::set_scope(nlohmann::json scope) {
  std::lock_guard<std::mutex> lock(mu_);
  scope_ = std::move(scope);
}

void FakeController::set_token(std::string token) {
  std::lock_guard<std::mutex> lock(mu_);
  token_ = std::move(token);
}

std::vector<nlohmann::json> FakeController::events() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

std::vector<nlohmann::json> FakeController::of_type(const std::string& type) const {
  std::vector<nlohmann::json> out;
  for (auto& e : events())
    if (e.value("type", "") == type) out.push_back(e);
  return out;
}

size_t FakeController::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

size_t FakeController::duplicates() const {
  std::lock_guard<std::mutex> lock(mu_);
  return duplicates_;
}

std::vector<std::string> FakeController::duplicate_ids() const {
  std::lock_guard<std::mutex> lock(mu_);
  return duplicate_ids_;
}

std::vector<size_t> FakeController::batch_sizes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return batch_sizes_;
}

std::vector<std::string> FakeController::authorizations() const {
  std::lock_guard<std::mutex> lock(mu_);
  return authorizations_;
}

bool FakeController::WaitFor(const std::function<bool()>& pred, double seconds) const {
  return Progress().WaitUntil(pred, std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000)));
}

}  // namespace aegis::agent::testing
