#include "agent/sources/journald/journald.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "agent/fs_util.h"
#include "agent/log.h"
#include "common/text.h"

extern char** environ;

namespace aegis::agent {

namespace {

constexpr size_t kMaxLine = 1u << 20;

std::optional<double> Micros(const nlohmann::json& v) {
  if (v.is_string()) {
    auto n = ParseInt(v.get<std::string>());
    if (n && *n >= 0) return static_cast<double>(*n) / 1e6;
  } else if (v.is_number_unsigned() || v.is_number_integer()) {
    const long long n = v.get<long long>();
    if (n >= 0) return static_cast<double>(n) / 1e6;
  }
  return std::nullopt;
}

}  // namespace

bool ParseJournalJson(std::string_view line, JournalEntry* out) {
  nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return false;
  auto cursor = j.find("__CURSOR");
  auto realtime = j.find("__REALTIME_TIMESTAMP");
  auto message = j.find("MESSAGE");
  if (cursor == j.end() || !cursor->is_string() || realtime == j.end() || message == j.end()) return false;
  auto rt = Micros(*realtime);
  if (!rt) return false;
  out->cursor = cursor->get<std::string>();
  out->realtime = *rt;
  out->monotonic = -1;
  if (auto m = j.find("_SOURCE_MONOTONIC_TIMESTAMP"); m != j.end())
    if (auto v = Micros(*m)) out->monotonic = *v;
  out->message.clear();
  if (message->is_string()) {
    out->message = message->get<std::string>();
  } else if (message->is_array()) {  // bytes that are not UTF-8
    for (const auto& b : *message)
      if (b.is_number_unsigned() && b.get<unsigned>() < 256) out->message += static_cast<char>(b.get<unsigned>());
  } else if (!message->is_null()) {
    return false;
  }
  for (char& c : out->message)
    if (c == '\n' || c == '\r') c = ' ';
  return true;
}

KernelRecord ToKernelRecord(const JournalEntry& e) {
  KernelRecord k;
  k.epoch = e.realtime;
  if (e.monotonic >= 0) {
    k.has_uptime = true;
    k.uptime_us = static_cast<uint64_t>(e.monotonic * 1e6 + 0.5);
  }
  k.message = e.message;
  return k;
}

std::string JournalLine(const JournalEntry& e, std::string_view host) { return KernelLine(ToKernelRecord(e), host); }

JournaldSource::JournaldSource(std::string journalctl, LogTarget target, LiveRules* rules, EventOutput* out,
                               AgentCounters* counters, Checkpoint* state)
    : journalctl_(std::move(journalctl)),
      target_(std::move(target)),
      rules_(rules),
      out_(out),
      counters_(counters),
      state_(state) {
  stream_ = std::make_unique<KernelRecordStream>(target_, rules_, out_, counters_, *state_, [this](const TrackedEvent& t) {
    std::string id = target_.node;
    id.append(":kernel:journal:").append(Hex64(Fnv1a64(t.after.cursor)));
    return id;
  });
}

JournaldSource::~JournaldSource() { Stop(); }

void JournaldSource::Start(double now) {
  std::vector<std::string> args = {journalctl_, "-k", "-f", "--no-tail", "-o", "json",
                                   "--output-fields=MESSAGE,_SOURCE_MONOTONIC_TIMESTAMP,_HOSTNAME"};
  const std::string cursor = stream_->checkpoint().pos.cursor;
  if (!cursor.empty()) args.push_back("--after-cursor=" + cursor);
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) {
    ++failures_;
    next_start_ = now + 60;
    return;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, journalctl_.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(pipefd[1]);
  if (rc != 0) {
    ++failures_;
    ::close(pipefd[0]);
    LogOnce("journalctl-missing", "cannot run " + journalctl_ + ": " + std::strerror(rc) + " (kernel log not read; retried every minute)");
    next_start_ = now + 60;
    return;
  }
  ::fcntl(pipefd[0], F_SETFL, ::fcntl(pipefd[0], F_GETFL) | O_NONBLOCK);
  child_ = pid;
  fd_ = pipefd[0];
  started_ = now;
  partial_.clear();
}

void JournaldSource::Reap(double now) {
  ++failures_;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  int status = 0;
  if (child_ > 0) {
    ::kill(child_, SIGTERM);
    ::waitpid(child_, &status, 0);
  }
  child_ = -1;
  const bool quick = now - started_ < 5;
  LogOnce(quick ? "journalctl-fails" : "journalctl-exits",
          journalctl_ + (quick ? " failed right away" : " exited") + " (status " + std::to_string(status) +
              "); started again " + (quick ? "every minute" : "after 10 s"));
  next_start_ = now + (quick ? 60 : 10);
}

void JournaldSource::FeedJsonLine(std::string_view line, double now) {
  JournalEntry e;
  if (!ParseJournalJson(line, &e)) return;
  SourcePosition after;
  after.cursor = e.cursor;
  stream_->Feed(ToKernelRecord(e), after, now);
}

bool JournaldSource::OnReadable(double now) {
  if (fd_ < 0) return false;
  buf_.resize(64u << 10);
  size_t total = 0;
  while (true) {
    const ssize_t n = ::read(fd_, buf_.data(), buf_.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return false;
    if (n <= 0) {
      Reap(now);
      return false;
    }
    std::string_view data(buf_.data(), static_cast<size_t>(n));
    while (!data.empty()) {
      const size_t nl = data.find('\n');
      if (nl == std::string_view::npos) {
        if (partial_.size() + data.size() <= kMaxLine) partial_.append(data);
        else partial_ = std::string(1, '\0');  // an overlong entry: skipped up to its end
        break;
      }
      if (partial_.empty()) {
        FeedJsonLine(data.substr(0, nl), now);
      } else {
        partial_.append(data.substr(0, nl));
        FeedJsonLine(partial_, now);
        partial_.clear();
      }
      data.remove_prefix(nl + 1);
    }
    total += static_cast<size_t>(n);
    if (total >= (4u << 20)) return true;
  }
}

void JournaldSource::Poll(double now) {
  if (child_ < 0 && now >= next_start_) Start(now);
  stream_->Poll(now);
}

void JournaldSource::Flush() { stream_->Flush(); }

void JournaldSource::SaveState() { *state_ = stream_->checkpoint(); }

void JournaldSource::Stop() {
  stream_->Flush();
  SaveState();
  if (child_ > 0) {
    ::kill(child_, SIGTERM);
    ::waitpid(child_, nullptr, 0);
    child_ = -1;
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace aegis::agent
