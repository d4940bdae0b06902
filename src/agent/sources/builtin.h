// The agent's built-in sources, one folder each; every folder's Register function adds
// its factories under the names SourceNamesFor (source_registry.h) gives:
//   kmsg/          "kmsg"          the kernel log from /dev/kmsg
//   journald/      "journald"      the kernel log through journalctl
//   log_files/     "kernel_file"   the kernel log as a file (--kernel-log FILE)
//                  "train_logs"    the job's log files (--train-log GLOB...)
//   ccl/           "ccl"           the CCL probe's socket and snapshot files
//   node_sampler/  "node_sampler"  RDMA port counters and GPU readings
//   facts/         "facts"         the node's facts for ConfigCheck
// A new source: a folder here with its Register function, declared below and called in
// builtin.cc (SourceRegistry::Builtin), and its name in SourceNamesFor.
#pragma once
#include "agent/source_registry.h"

namespace aegis::agent {

void RegisterKmsgSource(SourceRegistry* registry);
void RegisterJournaldSource(SourceRegistry* registry);
void RegisterLogFileSources(SourceRegistry* registry);
void RegisterCclSource(SourceRegistry* registry);
void RegisterNodeSamplerSource(SourceRegistry* registry);
void RegisterFactsSource(SourceRegistry* registry);

}  // namespace aegis::agent
