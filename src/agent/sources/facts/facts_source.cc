// "facts": the node's facts (facts.h; --facts auto) or a facts.json file (--facts FILE)
// as an agent source: read every facts_s (at once at the first pass) and shipped as a
// "facts" event when they changed (id "<node>:facts:<hash of the facts>"). A file that
// cannot be read or is not a JSON object is a failed pass (said at most every 10 min).
// GPU facts come from the NVML the node sampler loaded (SharedNvml), else from /proc.
#include <chrono>

#include "agent/fs_util.h"
#include "agent/log.h"
#include "agent/sources/builtin.h"
#include "wire/facts_event.h"
#include "agent/sources/facts/facts.h"
#include "bundle/bundle_reader.h"
#include "common/json_check.h"

namespace aegis::agent {

namespace {

class FactsInput : public Source {
 public:
  explicit FactsInput(const SourceContext& ctx) : Source("facts"), config_(*ctx.config), out_(ctx.out) {
    if (config_.facts == "auto") {
      Status why;
      gpu_ = SharedNvml(config_.nvml_library, &why);  // absent: the node sampler said so
    }
  }

  double due() const override { return next_; }
  SourcePass Poll(const SourceTick& t) override {
    if (t.now < next_) return {};
    next_ = t.now + config_.facts_s;
    return {false, !Read()};
  }

 private:
  // False when a facts file could not be used.
  bool Read() {
    nlohmann::json f;
    if (config_.facts == "auto") {
      f = CollectFacts(config_.roots, gpu_.get());
    } else {
      std::string text;
      if (Status s = ReadSmallFile(config_.facts, &text, 16u << 20); !s.ok()) {
        log_.Log("facts file " + config_.facts + ": " + s.message());
        return false;
      }
      // The controller refuses a batch holding a document nested deeper than this (and
      // the sender never drops a batch): such a file would stop this node's shipping.
      if (Status s = CheckJsonDepth(text, "facts file " + config_.facts); !s.ok()) {
        log_.Log(s.message() + ": not shipped");
        return false;
      }
      f = nlohmann::json::parse(text, nullptr, false);
      Facts flat;
      if (!f.is_object() || !ParseFacts(text, &flat).ok()) {
        log_.Log("facts file " + config_.facts + " is not a JSON object: not shipped");
        return false;
      }
    }
    const std::string dump = f.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    const std::string hash = Hex64(Fnv1a64(dump));
    if (hash == hash_) return true;
    hash_ = hash;
    out_->Add(EventType::kFacts, wire::EncodeFactsEvent(config_.node + ":facts:" + hash, config_.node, f));
    return true;
  }

  const AgentConfig& config_;
  EventOutput* out_;
  std::shared_ptr<GpuReader> gpu_;
  std::string hash_;
  LogLimiter log_{std::chrono::seconds(600)};
  double next_ = 0;
};

}  // namespace

void RegisterFactsSource(SourceRegistry* r) {
  (void)r->Register("facts", [](const SourceContext& ctx, std::unique_ptr<Source>* out) {
    *out = std::make_unique<FactsInput>(ctx);
    return Status::Ok();
  });
}

}  // namespace aegis::agent
