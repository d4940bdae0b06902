// A source: one input of the agent (the kernel log from /dev/kmsg or journald, followed
// log files, the CCL probe's records, the node's counters, its facts), as the agent's loop
// sees it. Each lives in its own folder, src/agent/sources/<name>/, and registers a
// factory under its name (source_registry.h); the loop builds its list from the config
// and drives every source through this interface, never by name.
//
// What the loop does with a source, on its one thread, in this order each pass:
//   1. poll() on fd() (when >= 0) together with every other source's, with a timeout no
//      later than the earliest due(); OnReadable() when the fd is readable;
//   2. Poll() when due() has come, or the controller asked for a flush (tick.flush: read
//      everything there is now, whatever the period);
//   3. Flush() when flushing and no source has more input waiting: records held back for
//      continuation lines are emitted;
//   4. EmitHeld() every ccl_flush_s, before positions are saved and when flushing:
//      records a source coalesces are emitted (then the loop flushes the held log events);
//   5. the events are appended to the disk queue; only then SaveState() (at most every
//      state_s), so a persisted position never covers an event not queued yet.
// At the end: Stop(), EmitHeld(), the events queued, SaveState().
//
// A source adds its events to the EventOutput of its SourceContext and keeps its
// position in its part of the AgentState, which it reads when it is created and writes
// in SaveState(). Lifetime: created by Agent::Start(), destroyed with the Agent (after
// its metrics server stopped). Threads: every call above comes from the loop thread; only
// RenderMetrics() may come from the metrics server's thread while the loop runs.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "agent/agent_config.h"
#include "agent/agent_state.h"
#include "agent/counters.h"
#include "agent/event_output.h"
#include "agent/prom_text.h"
#include "agent/tracked_stream.h"
#include "match/live_rules.h"

namespace aegis::agent {

// What a source is made from. Everything outlives the source.
struct SourceContext {
  const AgentConfig* config = nullptr;
  LiveRules* rules = nullptr;
  EventOutput* out = nullptr;          // events, queued by the loop after each pass
  AgentCounters* counters = nullptr;
  AgentState* state = nullptr;         // positions, persisted by the loop
  VirtualLines* kernel_lines = nullptr;  // line numbers of nodes/<node>/kernel.log
  VirtualLines* train_lines = nullptr;   // and of nodes/<node>/train.log
};

// When the loop calls Poll().
struct SourceTick {
  double now = 0;      // steady clock, seconds: the loop's schedule (due())
  double epoch = 0;    // wall clock, seconds since the epoch (sample times)
  bool flush = false;  // the controller waits for this node: read everything there is now
};

// What one call did.
struct SourcePass {
  bool more = false;    // a read budget ran out: more input waits (the loop does not sleep)
  bool failed = false;  // the pass could not do its work (the source says why in the log)
};

class Source {
 public:
  explicit Source(std::string name) : name_(std::move(name)) {}
  virtual ~Source() = default;
  Source(const Source&) = delete;
  Source& operator=(const Source&) = delete;

  // The name it is registered under: the `source` label of its metrics.
  const std::string& name() const { return name_; }
  // The descriptor to wait on for input; -1 when none (now).
  virtual int fd() const { return -1; }
  // fd() is readable (or hung up).
  virtual SourcePass OnReadable(double now) {
    (void)now;
    return {};
  }
  // Steady time when Poll() is wanted next: the source keeps its own periods (-infinity:
  // at once, e.g. more input waits).
  virtual double due() const = 0;
  // Periodic work: read files, sample counters, reopen a device, idle-flush a stream.
  virtual SourcePass Poll(const SourceTick& tick) = 0;
  // The controller asked for a flush: what is held back for continuation lines is
  // emitted now.
  virtual void Flush() {}
  // What the source coalesces (the newest CCL record per communicator and rank) is
  // emitted; called before positions are saved.
  virtual void EmitHeld() {}
  // Writes the source's positions into the AgentState (the loop persists it).
  virtual void SaveState() {}
  // The agent stops: everything read is emitted, positions saved.
  virtual void Stop() {}
  // Families of its own on /metrics (the node sampler's aegis_node_*). Any thread.
  virtual void RenderMetrics(PromText* out) const { (void)out; }
  // Inputs it was told to read that do not exist (yet): a named file that is not there.
  // Shown on /metrics and /healthz until they appear. Any thread.
  virtual std::vector<std::string> MissingInputs() const { return {}; }

 private:
  std::string name_;
};

}  // namespace aegis::agent
