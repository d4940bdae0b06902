// "ccl": the CCL probe's records (ccl_intake.h) as one agent source: the probe's socket
// (its fd, read when readable) and its snapshot files (--ccl-dir: followed as
// file_source.h follows files) feed one coalescer, which EmitHeld() ships (every
// ccl_flush_s, before positions are saved, on a flush). A socket that cannot be bound is
// said once at start; records then come only from the files.
#include "agent/file_source.h"
#include "agent/log.h"
#include "agent/sources/builtin.h"
#include "agent/sources/ccl/ccl_intake.h"

namespace aegis::agent {

namespace {

std::vector<std::string> Patterns(const AgentConfig& c) {
  if (c.ccl_dir.empty()) return {};
  return {c.ccl_dir + "/*.jsonl", c.ccl_dir + "/*.jsonl.1"};
}

// The coalescer is built before the files' consumers that feed it and outlives them.
struct CclHeld {
  explicit CclHeld(const SourceContext& ctx) : coalescer_(ctx.config->node, ctx.counters) {}
  CclCoalescer coalescer_;
};

class CclInput : private CclHeld, public FileSource {
 public:
  explicit CclInput(const SourceContext& ctx)
      : CclHeld(ctx),
        FileSource("ccl", ctx, Patterns(*ctx.config), &ctx.state->ccl_files,
                   MakeCclConsumerFactory(&coalescer_, ctx.counters)),
        out_(ctx.out),
        counters_(ctx.counters) {
    if (!IsOff(ctx.config->ccl_socket)) {
      socket_ = std::make_unique<CclSocket>();
      if (Status s = socket_->Bind(ctx.config->ccl_socket); !s.ok()) {
        Log("CCL probe socket not available (" + s.message() + "): records come only from --ccl-dir files");
        socket_.reset();
      }
    }
  }

  int fd() const override { return socket_ ? socket_->fd() : -1; }
  SourcePass OnReadable(double) override { return {socket_ && socket_->OnReadable(&coalescer_, counters_), false}; }
  void EmitHeld() override { coalescer_.Flush(out_); }

 private:
  EventOutput* out_;
  AgentCounters* counters_;
  std::unique_ptr<CclSocket> socket_;
};

}  // namespace

void RegisterCclSource(SourceRegistry* r) {
  (void)r->Register("ccl", [](const SourceContext& ctx, std::unique_ptr<Source>* out) {
    *out = std::make_unique<CclInput>(ctx);
    return Status::Ok();
  });
}

}  // namespace aegis::agent
