// "journald": the kernel log through journalctl (journald.h) as an agent source
// (reader_source.h). The reader restarts the child when it is due; a start that fails and
// a child that exits are failed passes.
#include "agent/log_consumer.h"
#include "agent/reader_source.h"
#include "agent/sources/builtin.h"
#include "agent/sources/journald/journald.h"

namespace aegis::agent {

void RegisterJournaldSource(SourceRegistry* r) {
  (void)r->Register("journald", [](const SourceContext& ctx, std::unique_ptr<Source>* out) {
    *out = std::make_unique<ReaderSource<JournaldSource>>(
        "journald", ctx.config->poll_s, ctx.config->journalctl,
        NodeLogTarget(ctx.config->node, SourceKind::kKernel, ctx.kernel_lines, ctx.config->env), ctx.rules, ctx.out,
        ctx.counters, &ctx.state->journal);
    return Status::Ok();
  });
}

}  // namespace aegis::agent
