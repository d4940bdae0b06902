// "journald": the kernel log through journalctl (journald.h) as an agent source. The
// child is (re)started and the reader idle-flushed every poll_s; a start that fails and a
// child that exits are failed passes. A flush reads what the child wrote since poll()
// returned.
#include "agent/log_consumer.h"
#include "agent/sources/builtin.h"
#include "agent/sources/journald/journald.h"

namespace aegis::agent {

namespace {

class JournaldInput : public Source {
 public:
  explicit JournaldInput(const SourceContext& ctx)
      : Source("journald"),
        poll_s_(ctx.config->poll_s),
        reader_(ctx.config->journalctl, NodeLogTarget(ctx.config->node, SourceKind::kKernel, ctx.kernel_lines, ctx.config->env),
                ctx.rules, ctx.out, ctx.counters, &ctx.state->journal) {}

  int fd() const override { return reader_.fd(); }
  SourcePass OnReadable(double now) override {
    const uint64_t failures = reader_.failures();
    const bool more = reader_.OnReadable(now);
    return {more, reader_.failures() != failures};
  }
  double due() const override { return next_poll_; }
  SourcePass Poll(const SourceTick& t) override {
    const uint64_t failures = reader_.failures();
    SourcePass r;
    if (t.flush && reader_.fd() >= 0) r.more = reader_.OnReadable(t.now);
    if (t.now >= next_poll_ || t.flush) {
      next_poll_ = t.now + poll_s_;
      reader_.Poll(t.now);
    }
    r.failed = reader_.failures() != failures;
    return r;
  }
  void Flush() override { reader_.Flush(); }
  void SaveState() override { reader_.SaveState(); }
  void Stop() override { reader_.Stop(); }

 private:
  double poll_s_;
  JournaldSource reader_;
  double next_poll_ = 0;
};

}  // namespace

void RegisterJournaldSource(SourceRegistry* r) {
  (void)r->Register("journald", [](const SourceContext& ctx, std::unique_ptr<Source>* out) {
    *out = std::make_unique<JournaldInput>(ctx);
    return Status::Ok();
  });
}

}  // namespace aegis::agent
