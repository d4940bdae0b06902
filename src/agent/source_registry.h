// The agent's sources by name, and the list its loop drives.
//
// SourceRegistry: a factory per source name. Each source folder (src/agent/sources/<name>/)
// defines a Register<Name>Source(SourceRegistry*) that adds its factories; the built-in
// registry (SourceRegistry::Builtin(), defined in sources/builtin.cc, the one list of
// them) calls every one. Nothing here includes a source: the loop knows sources only
// through source.h. Thread-safe once built (Builtin() is built once, then read-only).
//
// SourceNamesFor(config): which sources a config asks for, in the loop's order, e.g.
// --kernel-log kmsg -> "kmsg", a file -> "kernel_file"; --train-log -> "train_logs";
// --ccl-socket / --ccl-dir -> "ccl"; "node_sampler" always; --facts -> "facts".
//
// SourceList: the sources built for one agent, each with its tallies for /metrics
// (aegis_agent_source_runs_total, _errors_total, _last_run_seconds, by `source`). The loop
// thread runs sources through Run(); Render() may run on the metrics server's thread.
#pragma once
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "agent/prom_text.h"
#include "agent/source.h"
#include "common/status.h"
#include "env/env.h"

namespace aegis::agent {

// Builds one source; an error status stops the agent's start.
using SourceFactory = std::function<Status(const SourceContext& ctx, std::unique_ptr<Source>* out)>;

class SourceRegistry {
 public:
  // Every source of src/agent/sources/.
  static const SourceRegistry& Builtin();

  // AlreadyExists when the name is taken; InvalidArgument for an empty name.
  Status Register(const std::string& name, SourceFactory factory);
  // InvalidArgument naming the unknown source and the known ones.
  Status Create(const std::string& name, const SourceContext& ctx, std::unique_ptr<Source>* out) const;
  bool Has(const std::string& name) const { return factories_.count(name) > 0; }
  std::vector<std::string> names() const;  // sorted

 private:
  std::map<std::string, SourceFactory> factories_;
};

// The sources `config` asks for, in the loop's order.
std::vector<std::string> SourceNamesFor(const AgentConfig& config);

// Tallies of one source, read by /metrics (relaxed atomics).
struct SourceStats {
  std::atomic<uint64_t> runs{0};        // OnReadable and Poll calls
  std::atomic<uint64_t> errors{0};      // of those, the ones that failed
  std::atomic<double> last_run_s{0};    // duration of the last one
};

class SourceList {
 public:
  // `env` (not owned; null: Env::Default()): its monotonic clock times each pass.
  explicit SourceList(Env* env = nullptr);
  // Builds `names` through `registry`, in order; the first failure is returned (with the
  // source's name) and nothing is kept.
  Status Build(const SourceRegistry& registry, const std::vector<std::string>& names, const SourceContext& ctx);
  void Add(std::unique_ptr<Source> source);

  size_t size() const { return entries_.size(); }
  Source& operator[](size_t i) { return *entries_[i]->source; }
  const Source& operator[](size_t i) const { return *entries_[i]->source; }
  const SourceStats& stats(size_t i) const { return entries_[i]->stats; }

  // Loop thread: source i's OnReadable / Poll, timed and counted.
  SourcePass OnReadable(size_t i, double now);
  SourcePass Poll(size_t i, const SourceTick& tick);

  // The three per-source families, then each source's own (RenderMetrics). Any thread,
  // once the list is built.
  void Render(PromText* out) const;
  // Every source's MissingInputs(), as "source: input". Any thread, once the list is built.
  std::vector<std::string> MissingInputs() const;

 private:
  struct Entry {
    std::unique_ptr<Source> source;
    SourceStats stats;
  };
  SourcePass Timed(size_t i, const std::function<SourcePass()>& pass);

  Env* env_;
  std::vector<std::unique_ptr<Entry>> entries_;
};

}  // namespace aegis::agent
