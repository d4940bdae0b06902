#include "agent/log_consumer.h"

#include <nlohmann/json.hpp>

#include "agent/fs_util.h"

namespace aegis::agent {

std::string LogEventJson(const std::string& id, const std::string& node, SourceKind source, const std::string& file,
                         LogEvent&& event) {
  WireLogEvent w;
  w.node = node;
  w.source = source;
  w.file = file;
  w.event = std::move(event);
  nlohmann::json j = LogEventToWire(w);
  j["id"] = id;
  // Log text may hold any bytes; the wire form is valid UTF-8 whatever they were.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
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
        stream_(rules->Current(), target.lines, start, target.source == SourceKind::kTrain) {
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

LogTarget NodeLogTarget(const std::string& node, SourceKind source, VirtualLines* lines) {
  LogTarget t;
  t.node = node;
  t.source = source;
  t.file = "nodes/";
  t.file.append(node).append(source == SourceKind::kKernel ? "/kernel.log" : "/train.log");
  t.lines = lines;
  return t;
}

ConsumerFactory MakeLogConsumerFactory(LogTarget target, LiveRules* rules, EventOutput* out, AgentCounters* counters) {
  return [=](const std::string& id, const Checkpoint& start) -> std::unique_ptr<FollowConsumer> {
    return std::make_unique<LogConsumer>(target, rules, out, counters, id, start);
  };
}

}  // namespace aegis::agent
