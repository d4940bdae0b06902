// What node agents would post for a generated incident (tools/gen): each host's kernel and
// training logs scanned as an agent does (the engine's Scanner) and sent as classified log
// events (wire::LogEventToWire plus an id), its facts, its CCL snapshot lines, its metric series,
// the switches' logs and the probes; in batches as POST /api/v1/events bodies. Shared by
// the controller's tests and its benchmark.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gen/bundle.h"
#include "match/matcher.h"

namespace aegis::controller::test {

struct AgentPost {
  std::string node;
  nlohmann::json body;  // {"node", "agent", "events": [...]}
};

struct SimOptions {
  std::string id_prefix;  // event ids: PREFIX-NODE-N; empty: the job's id
  size_t batch_events = 400;     // events per post at most
  bool include_ccl = true;
  bool include_metrics = true;
  // Stamp log and CCL events as an agent running through the job does: read_at the line's
  // time (not before the job's start; an untimed line at the start) and, with tag_job,
  // the job's id.
  bool stamp = true;
  bool tag_job = true;
  // Repeats of one evidence sent as one event with a count, as an agent coalesces a storm.
  bool fold_repeats = false;
};

// Every event of the bundle, grouped in posts per node (in file order).
std::vector<AgentPost> PostsFromBundle(gen::Bundle& bundle, const Matcher& matcher, const SimOptions& options = {});

// A heartbeat post from `node`'s agent at agent time `at`.
AgentPost HeartbeatPost(const std::string& node, double at, const std::string& id);

// topology.json and job.json (state running) of the bundle, as text.
std::string TopologyText(const gen::Bundle& bundle);
std::string RunningJobText(const gen::Bundle& bundle);

}  // namespace aegis::controller::test
