// "kernel_file" (--kernel-log FILE) and "train_logs" (--train-log GLOB...): log files
// followed as they grow (file_source.h), their lines classified by the rules
// (log_consumer.h).
#include "agent/file_source.h"
#include "agent/log_consumer.h"
#include "agent/sources/builtin.h"

namespace aegis::agent {

void RegisterLogFileSources(SourceRegistry* r) {
  (void)r->Register("kernel_file", [](const SourceContext& ctx, std::unique_ptr<Source>* out) {
    const LogTarget target = NodeLogTarget(ctx.config->node, SourceKind::kKernel, ctx.kernel_lines, ctx.config->env);
    *out = std::make_unique<FileSource>("kernel_file", ctx, std::vector<std::string>{ctx.config->kernel_log},
                                        &ctx.state->kernel_files,
                                        MakeLogConsumerFactory(target, ctx.rules, ctx.out, ctx.counters));
    return Status::Ok();
  });
  (void)r->Register("train_logs", [](const SourceContext& ctx, std::unique_ptr<Source>* out) {
    const LogTarget target = NodeLogTarget(ctx.config->node, SourceKind::kTrain, ctx.train_lines, ctx.config->env);
    *out = std::make_unique<FileSource>("train_logs", ctx, ctx.config->train_logs, &ctx.state->train_files,
                                        MakeLogConsumerFactory(target, ctx.rules, ctx.out, ctx.counters));
    return Status::Ok();
  });
}

}  // namespace aegis::agent
