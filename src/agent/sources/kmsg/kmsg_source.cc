// "kmsg": the kernel log from /dev/kmsg (kmsg.h) as an agent source (reader_source.h).
// The device is opened at the first pass and, while it cannot be (no root, no
// CAP_SYSLOG), tried again every minute: each failed try is a failed pass.
#include <algorithm>

#include "agent/log.h"
#include "agent/log_consumer.h"
#include "agent/reader_source.h"
#include "agent/sources/builtin.h"
#include "agent/sources/kmsg/kmsg.h"

namespace aegis::agent {

namespace {

class KmsgInput : public ReaderSource<KmsgSource> {
 public:
  explicit KmsgInput(const SourceContext& ctx)
      : ReaderSource("kmsg", ctx.config->poll_s, ctx.config->kmsg_path, ctx.config->boot_id_path,
                     NodeLogTarget(ctx.config->node, SourceKind::kKernel, ctx.kernel_lines, ctx.config->env),
                     ctx.rules, ctx.out, ctx.counters, &ctx.state->kmsg) {}

  double due() const override {
    return reader().fd() < 0 ? std::min(ReaderSource::due(), next_open_) : ReaderSource::due();
  }

 protected:
  SourcePass BeforePoll(const SourceTick& t) override {
    SourcePass r;
    if (reader().fd() >= 0 || t.now < next_open_) return r;
    next_open_ = t.now + kRetryOpenS;
    if (Status s = reader().Open(); !s.ok()) {
      LogOnce("kmsg-open", "kernel log: " + s.message() + " (needs root or CAP_SYSLOG; tried again every minute)");
      r.failed = true;
    } else {
      r.more = true;  // read at once
    }
    return r;
  }

 private:
  static constexpr double kRetryOpenS = 60;
  double next_open_ = 0;
};

}  // namespace

void RegisterKmsgSource(SourceRegistry* r) {
  (void)r->Register("kmsg", [](const SourceContext& ctx, std::unique_ptr<Source>* out) {
    *out = std::make_unique<KmsgInput>(ctx);
    return Status::Ok();
  });
}

}  // namespace aegis::agent
