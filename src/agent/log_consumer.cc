#include "agent/log_consumer.h"

#include <ctime>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "agent/fs_util.h"

namespace aegis::agent {

std::string LogEventJson(const std::string& id, const std::string& node, SourceKind source, const std::string& file,
                         LogEvent&& event) {
  wire::WireLogEvent w;
  w.node = node;
  w.source = source;
  w.file = file;
  w.event = std::move(event);
  return wire::EncodeLogEvent(id, w);  // valid UTF-8 whatever bytes the log held
}

std::string IdPart(std::string_view s) {
  bool ok = !s.empty() && s.size() <= 64;
  for (unsigned char c : s)
    ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
                c == '-' || c == '@' || c == '+' || c == '=');
  if (ok) return std::string(s);
  std::string hashed = Hex64(Fnv1a64(s));
  hashed.insert(hashed.begin(), 'h');
  return hashed;
}

namespace {

class LogConsumer : public FollowConsumer {
 public:
  LogConsumer(const LogTarget& target, LiveRules* rules, EventOutput* out, AgentCounters* counters,
              const std::string& file_id, const Checkpoint& start)
      : target_(target),
        rules_(rules),
        out_(out),
        counters_(counters),
        kind_(target.source == SourceKind::kKernel ? InputKind::kKernel : InputKind::kTrain),
        id_prefix_(target.node + ":" + std::string(ToString(target.source)) + ":" + file_id + ":"),
        generation_(rules->generation()),
        stream_(rules->Current(), target.lines, start, target.source == SourceKind::kTrain, target.env) {
    sink_ = [this](TrackedEvent&& t) {
      out_->AddLog(id_prefix_ + std::to_string(t.local_line), target_.node, target_.source, target_.file,
                   std::move(t.event), t.read_at);
    };
  }

  void Feed(std::string_view bytes) override {
    if (rules_->generation() != generation_) {
      generation_ = rules_->generation();
      stream_.UseRules(rules_->Current());
    }
    const uint64_t lines_before = stream_.lines_fed(), cut_before = stream_.cut_lines();
    stream_.FeedBytes(bytes, sink_);
    counters_->Add(counters_->bytes_read[static_cast<int>(kind_)], bytes.size());
    counters_->Add(counters_->lines_read[static_cast<int>(kind_)], stream_.lines_fed() - lines_before);
    counters_->Add(counters_->cut_lines, stream_.cut_lines() - cut_before);
  }
  void Idle() override { stream_.IdleFlush(sink_); }
  void Finish() override {
    const uint64_t lines_before = stream_.lines_fed();
    stream_.Finish(sink_);
    counters_->Add(counters_->lines_read[static_cast<int>(kind_)], stream_.lines_fed() - lines_before);
  }
  Checkpoint checkpoint() const override { return stream_.checkpoint(); }

 private:
  LogTarget target_;
  LiveRules* rules_;
  EventOutput* out_;
  AgentCounters* counters_;
  InputKind kind_;
  std::string id_prefix_;
  uint64_t generation_;
  TrackedLogStream stream_;
  TrackedLogStream::Sink sink_;
};

}  // namespace

LogTarget NodeLogTarget(const std::string& node, SourceKind source, VirtualLines* lines, Env* env) {
  LogTarget t;
  t.node = node;
  t.source = source;
  t.file = "nodes/";
  t.file.append(node).append(source == SourceKind::kKernel ? "/kernel.log" : "/train.log");
  t.lines = lines;
  t.env = env;
  return t;
}

ConsumerFactory MakeLogConsumerFactory(LogTarget target, LiveRules* rules, EventOutput* out, AgentCounters* counters) {
  return [=](const std::string& id, const Checkpoint& start) -> std::unique_ptr<FollowConsumer> {
    return std::make_unique<LogConsumer>(target, rules, out, counters, id, start);
  };
}

double MicrosecondTime(double epoch) {
  if (!std::isfinite(epoch) || epoch < 0 || epoch > 253402300799.0) return 0;
  const double secs = std::floor(epoch);
  return secs + static_cast<double>(std::lround((epoch - secs) * 1e6)) / 1e6;
}

std::string IsoTimeMicros(double epoch) {
  epoch = MicrosecondTime(epoch);
  const auto secs = static_cast<time_t>(std::floor(epoch));
  long usec = std::lround((epoch - static_cast<double>(secs)) * 1e6);
  time_t s = secs;
  if (usec >= 1000000) {
    usec -= 1000000;
    ++s;
  }
  tm t{};
  ::gmtime_r(&s, &t);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06ld+00:00", t.tm_year + 1900, t.tm_mon + 1, t.tm_mday,
                t.tm_hour, t.tm_min, t.tm_sec, usec);
  return buf;
}

std::string KernelLine(const KernelRecord& r, std::string_view host) {
  std::string line = IsoTimeMicros(r.epoch);
  line += ' ';
  line += host;
  line += " kernel: ";
  if (r.has_uptime) {
    const auto us = static_cast<unsigned long long>(r.uptime_us);
    char up[48];
    std::snprintf(up, sizeof up, "[%5llu.%06llu] ", us / 1000000, us % 1000000);
    line += up;
  }
  line += r.message;
  return line;
}

KernelRecordStream::KernelRecordStream(LogTarget target, LiveRules* rules, EventOutput* out, AgentCounters* counters,
                                       const Checkpoint& start, IdOf id_of)
    : target_(std::move(target)),
      rules_(rules),
      out_(out),
      counters_(counters),
      id_of_(std::move(id_of)),
      generation_(rules->generation()),
      stream_(rules->Current(), target_.lines, start, /*job_output=*/false, target_.env) {}

void KernelRecordStream::Sink(TrackedEvent&& t) {
  out_->AddLog(id_of_(t), target_.node, SourceKind::kKernel, target_.file, std::move(t.event), t.read_at);
}

void KernelRecordStream::Feed(const KernelRecord& r, const SourcePosition& after, double now) {
  if (rules_->generation() != generation_) {
    generation_ = rules_->generation();
    stream_.UseRules(rules_->Current());
  }
  // The bundle file's line (what an export writes, and what line numbers count), with the
  // record's own times and message handed to the scanner beside it.
  const std::string line = KernelLine(r, target_.node);
  LinePrefix prefix;
  prefix.message_offset = line.size() - r.message.size();
  prefix.ts = MicrosecondTime(r.epoch);  // as the line says it
  prefix.zoned = true;
  if (r.has_uptime) prefix.uptime = static_cast<double>(r.uptime_us) / 1e6;
  counters_->Add(counters_->lines_read[static_cast<int>(InputKind::kKernel)]);
  counters_->Add(counters_->bytes_read[static_cast<int>(InputKind::kKernel)], line.size() + 1);
  stream_.FeedRecord(line, prefix, after, [this](TrackedEvent&& t) { Sink(std::move(t)); });
  last_data_ = now;
  idle_done_ = false;
}

void KernelRecordStream::Poll(double now) {
  if (!idle_done_ && now - last_data_ >= 1.0) Flush();
}

void KernelRecordStream::Flush() {
  if (idle_done_) return;
  stream_.IdleFlush([this](TrackedEvent&& t) { Sink(std::move(t)); });
  idle_done_ = true;
}

}  // namespace aegis::agent
