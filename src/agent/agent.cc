#include "agent/agent.h"

#include <fcntl.h>
#include <httplib.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>

#include "agent/agent_state.h"
#include "agent/disk_queue.h"
#include "agent/event_output.h"
#include "agent/fs_util.h"
#include "agent/log.h"
#include "agent/log_consumer.h"
#include "agent/metrics_page.h"
#include "agent/source_registry.h"
#include "bundle/bundle_reader.h"  // ReadSmallFile
#include "common/http_bind.h"
#include "common/listen_address.h"
#include "common/text.h"
#include "match/live_rules.h"

#ifndef AEGIS_AGENT_VERSION
#define AEGIS_AGENT_VERSION "0"
#endif

namespace aegis::agent {

namespace {

std::string RandomId() {
  std::random_device rd;
  return Hex64((static_cast<uint64_t>(rd()) << 32) ^ rd());
}


}  // namespace

Status ValidateConfig(AgentConfig* c) {
  if (c->controller.empty()) return Status::InvalidArgument("--controller is required (http://HOST:PORT)");
  std::vector<ControllerUrl> urls;
  if (Status s = ParseControllerUrls(c->controller, &urls); !s.ok()) return Status::InvalidArgument("--controller: " + s.message());
  if (c->node.empty()) return Status::InvalidArgument("--node is required (this node's name, as the topology names it)");
  // The node name starts every event id: the characters ids may hold, but ':'.
  if (IdPart(c->node) != c->node)
    return Status::InvalidArgument("--node: a node name is at most 64 letters, digits or . _ - @ + =");
  if (c->state_dir.empty()) return Status::InvalidArgument("--state-dir cannot be empty");
  if (!IsOff(c->metrics_listen)) {
    ListenAddress where;
    if (Status s = ParseListenAddress(c->metrics_listen, &where); !s.ok())
      return Status::InvalidArgument("--metrics-listen: " + s.message());
  }
  for (const auto& g : c->train_logs)
    if (g.empty()) return Status::InvalidArgument("--train-log cannot be empty");
  if (!c->ca_file.empty() && std::none_of(urls.begin(), urls.end(), [](const ControllerUrl& u) { return u.scheme == "https"; }))
    return Status::InvalidArgument("--ca-file is only for an https:// controller");
  if (!c->token_file.empty()) {
    std::string text;
    if (Status s = ReadSmallFile(c->token_file, &text, 65536); !s.ok())
      return Status::InvalidArgument("--token-file: " + s.message());
    c->token = std::string(Trim(text));
  }
  if (c->queue_max_bytes < (1u << 20)) return Status::InvalidArgument("--queue-max-mb must be at least 1");
  c->sender.controller = c->controller;
  c->sender.node = c->node;
  c->sender.token = c->token;
  c->sender.token_file = c->token_file;
  c->sender.ca_file = c->ca_file;
  return Status::Ok();
}

struct Agent::Impl {
  Impl(AgentCounters* counters, Env* env) : out(counters, /*coalesce_logs=*/true, env), sources(env) {}
  std::unique_ptr<LiveRules> rules;
  int lock_fd = -1;
  std::unique_ptr<DiskQueue> queue;
  std::unique_ptr<VirtualLines> kernel_lines, train_lines;
  EventOutput out;
  AgentState state;
  std::string last_state_text;
  LogLimiter queue_log{std::chrono::seconds(60)};
  std::unique_ptr<Sender> sender;
  std::unique_ptr<httplib::Server> http;
  std::thread http_thread;
  double started_at = 0;
  // The controller's latest scope (from the sender's thread) and the flush it asks for.
  std::mutex scope_mu;
  ControllerScope scope;     // guarded by scope_mu
  bool scope_fresh = false;  // guarded by scope_mu
  std::atomic<double> flush_to{0};
  double flushed_through = 0;  // loop thread: coverage of the last flush done
  // Last: the sources go first, they write into the state, the output and the lines.
  SourceList sources;
};

Agent::Agent(AgentConfig config, const SourceRegistry* registry)
    : config_(std::move(config)), registry_(registry), instance_(RandomId()) {
  if (!config_.env) config_.env = Env::Default();
  if (!config_.sender.env) config_.sender.env = config_.env;
  if (!config_.sender.progress) config_.sender.progress = config_.progress;
  impl_ = std::make_unique<Impl>(&counters_, config_.env);
}

Agent::~Agent() {
  if (impl_) {
    if (impl_->sender) impl_->sender->Stop();
    if (impl_->http) impl_->http->stop();
    if (impl_->http_thread.joinable()) impl_->http_thread.join();
    if (impl_->lock_fd >= 0) ::close(impl_->lock_fd);
  }
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void Agent::Stop() {
  stop_.store(true);
  if (wake_fd_ >= 0) {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof one);
  }
}

void Agent::ReloadRules() {
  reload_.store(true);
  if (wake_fd_ >= 0) {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof one);
  }
}

std::string Agent::MetricsText() const {
  MetricsContext m;
  m.counters = &counters_;
  m.queue = impl_->queue.get();
  m.queue_limit_bytes = config_.queue_max_bytes;
  m.sources = &impl_->sources;
  m.node_name = config_.node;
  m.instance = instance_;
  m.version = AEGIS_AGENT_VERSION;
  m.started_at = impl_->started_at;
  m.env = config_.env;
  return RenderMetrics(m);
}

Status Agent::Start() {
  Impl& I = *impl_;
  I.started_at = config_.env->NowEpochSeconds();
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) return Status::IOError(std::string("eventfd: ") + std::strerror(errno));

  I.rules = std::make_unique<LiveRules>(config_.rule_dirs);
  if (!I.rules->status().ok()) return Status::InvalidArgument("rules: " + I.rules->status().message());

  const std::string& dir = config_.state_dir;
  if (Status s = MakeDirs(dir, 0700); !s.ok()) return s;
  I.lock_fd = ::open((dir + "/lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (I.lock_fd < 0) return Status::IOError("cannot open " + dir + "/lock: " + std::strerror(errno));
  if (::flock(I.lock_fd, LOCK_EX | LOCK_NB) != 0)
    return Status::FailedPrecondition("another agent uses the state directory " + dir);

  std::string text;
  Status rs = ReadSmallFile(dir + "/state.json", &text, 64u << 20);
  if (rs.ok()) {
    if (Status s = AgentStateFromJson(text, &I.state); !s.ok()) {
      Log("state.json unusable (" + s.message() + "): set aside as state.json.bad, files are read again");
      ::rename((dir + "/state.json").c_str(), (dir + "/state.json.bad").c_str());
      I.state = AgentState();
    } else {
      I.last_state_text = text;
    }
  } else if (!rs.IsNotFound()) {
    return rs;
  }
  I.kernel_lines = std::make_unique<VirtualLines>(dir + "/lines-kernel");
  I.train_lines = std::make_unique<VirtualLines>(dir + "/lines-train");
  if (Status s = I.kernel_lines->Load(); !s.ok()) return s;
  if (Status s = I.train_lines->Load(); !s.ok()) return s;

  DiskQueueOptions qo;
  qo.max_bytes = config_.queue_max_bytes;
  qo.segment_bytes = std::min<uint64_t>(64ull << 20, config_.queue_max_bytes / 8);
  qo.env = config_.env;
  if (Status s = DiskQueue::Open(dir + "/queue", qo, &I.queue); !s.ok()) return s;

  // Sources: the ones the config names, from the registry.
  const std::string& node = config_.node;
  SourceContext ctx;
  ctx.config = &config_;
  ctx.rules = I.rules.get();
  ctx.out = &I.out;
  ctx.counters = &counters_;
  ctx.state = &I.state;
  ctx.kernel_lines = I.kernel_lines.get();
  ctx.train_lines = I.train_lines.get();
  const SourceRegistry& registry = registry_ ? *registry_ : SourceRegistry::Builtin();
  if (Status s = I.sources.Build(registry, SourceNamesFor(config_), ctx); !s.ok()) return s;

  // Metrics server: it serves a scrape now and then. A few workers and short timeouts, so
  // that one slow or idle client does not keep the scraper out.
  if (!IsOff(config_.metrics_listen)) {
    ListenAddress where;
    if (Status s = ParseListenAddress(config_.metrics_listen, &where); !s.ok())
      return Status::InvalidArgument("--metrics-listen: " + s.message());
    I.http = std::make_unique<httplib::Server>();
    I.http->new_task_queue = [] { return new httplib::ThreadPool(4); };
    I.http->set_read_timeout(5, 0);
    I.http->set_write_timeout(5, 0);
    I.http->set_keep_alive_timeout(5);
    I.http->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(MetricsText(), "text/plain; version=0.0.4; charset=utf-8");
    });
    // Not healthy while the queue refuses events (a full or failing disk): nothing read is
    // shipped, and reading waits.
    I.http->Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
      if (counters_.queue_blocked.load(std::memory_order_relaxed)) {
        res.status = 503;
        res.set_content("the on-disk queue refuses events (a full or failing disk): reading is paused\n", "text/plain");
        return;
      }
      // A named input that is not there is said (the rest is read and shipped): healthy,
      // but not all it was told to watch.
      std::string body = "ok\n";
      for (const std::string& m : impl_->sources.MissingInputs()) body += "missing " + m + "\n";
      res.set_content(body, "text/plain");
    });
    metrics_port_ = BindHttpServer(*I.http, where.host, where.port);
    if (metrics_port_ <= 0) return Status::IOError("cannot listen on " + config_.metrics_listen);
    I.http_thread = std::thread([&I] { I.http->listen_after_bind(); });
  }

  SenderOptions so = config_.sender;
  so.agent_id = instance_;
  I.sender = std::make_unique<Sender>(so, I.queue.get(), &counters_, [this] {
    const DiskQueueStats qs = impl_->queue->stats();
    nlohmann::json h;
    h["instance"] = instance_;
    h["version"] = AEGIS_AGENT_VERSION;
    h["started_at"] = impl_->started_at;
    h["queue_events"] = qs.records;
    h["queue_bytes"] = qs.bytes;
    h["lag_s"] = qs.OldestAgeSeconds(config_.env->NowEpochSeconds());
    h["dropped_events"] = qs.dropped_records + counters_.events_dropped_too_large.load();
    h["events_queued"] = [&] {
      uint64_t n = 0;
      for (const auto& c : counters_.events_queued) n += c.load();
      return n;
    }();
    h["followed_files"] = counters_.followed_files.load();
    h["nvml"] = counters_.nvml_available.load();
    h["kernel_log"] = config_.kernel_log;
    h["rules_generation"] = impl_->rules->generation();
    return h;
  });
  if (Status s = I.sender->Init(); !s.ok()) return s;
  covered_at_.store(I.started_at);
  I.sender->set_coverage([this] { return covered_at_.load(); });
  I.sender->set_on_scope([this](const ControllerScope& scope) {
    Impl& S = *impl_;
    {
      std::lock_guard<std::mutex> l(S.scope_mu);
      S.scope = scope;
      S.scope_fresh = true;
    }
    // Flush when the controller waits for a heartbeat this agent has not sent yet.
    if (std::isfinite(scope.flush) && scope.flush > S.sender->acked_heartbeat_at() && scope.flush > S.flush_to.load())
      S.flush_to.store(scope.flush);
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof one);
  });
  I.sender->Start();
  Log("started for node " + node + " (instance " + instance_ + "), shipping to " + config_.controller +
      (config_.token.empty() ? " without a token" : " with a bearer token"));
  return Status::Ok();
}

void Agent::Run() {
  Impl& I = *impl_;
  const AgentConfig& c = config_;
  SourceList& sources = I.sources;
  Env* const env = c.env;
  double now = env->NowMonotonicSeconds();
  double next_held = now + c.ccl_flush_s, next_state = now + c.state_s;
  bool more = false, blocked = false;
  // A line read at time r is queued by r + this at the latest: its file's idle flush (or
  // the kernel source's, 1 s) one poll later, then the next flush of the log and CCL
  // coalescers.
  const double hold_s = std::max(c.idle_flush_s, 1.0) + c.poll_s + c.ccl_flush_s;

  auto save_states = [&] {
    for (size_t i = 0; i < sources.size(); ++i) sources[i].SaveState();
  };
  auto persist = [&] {
    std::string text = AgentStateToJson(I.state);
    if (text == I.last_state_text) return;
    if (Status s = WriteFileAtomically(c.env, c.state_dir + "/state.json", text, /*sync=*/true); s.ok())
      I.last_state_text = std::move(text);
    else
      I.queue_log.Log("cannot persist positions: " + s.message());
  };
  auto append = [&]() -> bool {
    if (I.out.pending() == 0) return true;
    if (Status s = I.queue->Append(I.out.events()); !s.ok()) {
      counters_.Add(counters_.queue_append_errors);
      I.queue_log.Log("cannot queue " + std::to_string(I.out.pending()) + " events: " + s.message() +
                      " (kept in memory, reading paused)");
      return false;
    }
    I.out.Queued();
    return true;
  };
  // Coalesced records (CCL), then the held log events: before positions are saved, they
  // cover what was held.
  auto emit_held = [&] {
    for (size_t i = 0; i < sources.size(); ++i) sources[i].EmitHeld();
    I.out.FlushLogs();
  };

  std::vector<pollfd> fds;
  std::vector<size_t> fd_source;  // fds[k + 1] is sources[fd_source[k]]'s
  while (!stop_.load()) {
    counters_.Add(counters_.loop_passes);
    if (c.progress) c.progress->Notify();  // the pass before this one is done
    now = env->NowMonotonicSeconds();
    double next = std::min(next_held, next_state);
    for (size_t i = 0; i < sources.size(); ++i) next = std::min(next, sources[i].due());
    int timeout_ms = more ? 0 : static_cast<int>(std::clamp((next - now) * 1000.0, 0.0, 1000.0));
    if (blocked) timeout_ms = 1000;
    fds.clear();
    fd_source.clear();
    fds.push_back({wake_fd_, POLLIN, 0});
    if (!blocked) {
      for (size_t i = 0; i < sources.size(); ++i) {
        const int fd = sources[i].fd();
        if (fd < 0) continue;
        fds.push_back({fd, POLLIN, 0});
        fd_source.push_back(i);
      }
    }
    if (::poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR) break;
    if (fds[0].revents & POLLIN) {
      uint64_t v;
      [[maybe_unused]] ssize_t n = ::read(wake_fd_, &v, sizeof v);
    }
    if (stop_.load()) break;
    now = env->NowMonotonicSeconds();
    const double epoch = env->NowEpochSeconds();
    const double covered_now = epoch - hold_s;  // holds once this iteration's events are queued
    {
      std::lock_guard<std::mutex> l(I.scope_mu);
      if (I.scope_fresh) {
        I.out.SetScope(I.scope.job, I.scope.since);
        I.scope_fresh = false;
      }
    }
    // The controller waits for this node's picture: everything read until now is emitted
    // (held-back records too) and queued, then a heartbeat says so.
    const double flush_to = I.flush_to.load();
    const bool flush = flush_to > I.flushed_through;
    if (reload_.exchange(false)) {
      if (Status s = I.rules->Reload(); s.ok()) {
        counters_.Add(counters_.rule_reloads_ok);
        Log("rules reloaded (generation " + std::to_string(I.rules->generation()) + ")");
      } else {
        counters_.Add(counters_.rule_reloads_failed);
        Log("rules reload failed, the current rules stay: " + s.message());
      }
    }
    if (blocked) {  // the queue refused the last events: nothing more is read until it takes them
      blocked = !append();
      counters_.queue_blocked.store(blocked, std::memory_order_relaxed);
      continue;
    }
    more = false;
    for (size_t k = 1; k < fds.size(); ++k)
      if (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) more |= sources.OnReadable(fd_source[k - 1], now).more;
    // Periodic work of every source that is due; all of them on a flush (what the kernel
    // queued since poll() returned is read too).
    const SourceTick tick{now, epoch, flush};
    for (size_t i = 0; i < sources.size(); ++i)
      if (flush || now >= sources[i].due()) more |= sources.Poll(i, tick).more;
    const bool persist_due = now >= next_state;
    // A flush read everything there was unless a read budget ran out (then it waits a turn).
    const bool flushing = flush && !more;
    if (flushing)
      for (size_t i = 0; i < sources.size(); ++i) sources[i].Flush();
    if (now >= next_held || persist_due || flushing) {
      next_held = now + c.ccl_flush_s;
      emit_held();
    }
    if (!append()) {
      blocked = true;
      counters_.queue_blocked.store(true, std::memory_order_relaxed);
      continue;
    }
    if (covered_now > covered_at_.load()) covered_at_.store(covered_now);
    if (flushing) {
      // Everything read before `epoch` is queued now, nothing held back; and before
      // `flush_to` too: this host heard of that time (the controller's clock) only after
      // it, so it covers it even when its own clock is behind.
      const double cover = std::max(epoch, flush_to);
      if (cover > covered_at_.load()) covered_at_.store(cover);
      I.flushed_through = cover;
      I.sender->HeartbeatNow();
    }
    if (persist_due) {
      next_state = now + c.state_s;
      save_states();
      persist();
    }
  }

  // Stopping: what is read is flushed and queued, positions persisted.
  for (size_t i = 0; i < sources.size(); ++i) sources[i].Stop();
  emit_held();
  if (append()) {
    save_states();
    persist();
  }
  I.kernel_lines->Close();
  I.train_lines->Close();
  I.sender->Stop();
  if (I.http) I.http->stop();
  if (I.http_thread.joinable()) I.http_thread.join();
  const DiskQueueStats qs = I.queue->stats();
  Log("stopped; " + std::to_string(qs.records) + " events wait in the queue for the next start");
}

}  // namespace aegis::agent
