// "kmsg": the kernel log from /dev/kmsg (kmsg.h) as an agent source. The device is
// opened at the first pass and, while it cannot be (no root, no CAP_SYSLOG), tried again
// every minute: each failed try is a failed pass. The reader's idle flush runs every
// poll_s; a flush reads what the kernel queued since poll() returned.
#include <algorithm>

#include "agent/log.h"
#include "agent/log_consumer.h"
#include "agent/sources/builtin.h"
#include "agent/sources/kmsg/kmsg.h"

namespace aegis::agent {

namespace {

class KmsgInput : public Source {
 public:
  explicit KmsgInput(const SourceContext& ctx)
      : Source("kmsg"),
        poll_s_(ctx.config->poll_s),
        reader_(ctx.config->kmsg_path, ctx.config->boot_id_path,
                NodeLogTarget(ctx.config->node, SourceKind::kKernel, ctx.kernel_lines, ctx.config->env), ctx.rules, ctx.out,
                ctx.counters, &ctx.state->kmsg) {}

  int fd() const override { return reader_.fd(); }
  SourcePass OnReadable(double now) override { return {reader_.OnReadable(now), false}; }
  double due() const override { return reader_.fd() < 0 ? std::min(next_poll_, next_open_) : next_poll_; }
  SourcePass Poll(const SourceTick& t) override {
    SourcePass r;
    if (reader_.fd() < 0 && t.now >= next_open_) {
      next_open_ = t.now + 60;
      if (Status s = reader_.Open(); !s.ok()) {
        LogOnce("kmsg-open", "kernel log: " + s.message() + " (needs root or CAP_SYSLOG; tried again every minute)");
        r.failed = true;
      } else {
        r.more = true;  // read at once
      }
    }
    if (t.flush && reader_.fd() >= 0) r.more |= reader_.OnReadable(t.now);
    if (t.now >= next_poll_ || t.flush) {
      next_poll_ = t.now + poll_s_;
      reader_.Poll(t.now);
    }
    return r;
  }
  void Flush() override { reader_.Flush(); }
  void SaveState() override { reader_.SaveState(); }
  void Stop() override { reader_.Stop(); }

 private:
  double poll_s_;
  KmsgSource reader_;
  double next_open_ = 0, next_poll_ = 0;
};

}  // namespace

void RegisterKmsgSource(SourceRegistry* r) {
  (void)r->Register("kmsg", [](const SourceContext& ctx, std::unique_ptr<Source>* out) {
    *out = std::make_unique<KmsgInput>(ctx);
    return Status::Ok();
  });
}

}  // namespace aegis::agent
