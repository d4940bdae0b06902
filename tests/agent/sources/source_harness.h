// A source as the agent's loop holds it: built by name through the built-in registry from
// a config the test fills, with the context (rules, output, counters, state, line
// numbering) the agent would give it, in a scratch directory. For the tests of each
// source's adapter (sources/<name>/<name>_source.cc). Single thread.
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "agent/agent_config.h"
#include "agent/source.h"
#include "test_support.h"

namespace aegis::agent::testing {

class SourceHarness {
 public:
  // config: node "node-0007", everything else at its default, to be changed before Create.
  explicit SourceHarness(const ScratchDir& dir);

  // The source registered as `name`, or null (with a test failure) when it cannot be built.
  std::unique_ptr<Source> Create(const std::string& name);
  // The events made since the last call, parsed.
  std::vector<nlohmann::json> Take();

  AgentConfig config;
  AgentCounters counters;
  EventOutput out{&counters};
  AgentState state;
  VirtualLines kernel_lines, train_lines;
};

}  // namespace aegis::agent::testing
