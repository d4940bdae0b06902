// Classifies the lines of a followed log file (the kernel log as a file, the job's log
// files) and turns what the rules find into "log" events with ids
// "<node>:<kernel|train>:<file identity>.<generation>:<line of the file>", and line
// numbers of the node's bundle file (nodes/NODE/kernel.log or train.log: several job log
// files share one numbering, see TrackedLogStream). Takes up reloaded rules at the next
// idle point. Single thread.
#pragma once
#include <memory>
#include <string>

#include "agent/counters.h"
#include "agent/event_output.h"
#include "agent/file_follower.h"
#include "agent/tracked_stream.h"
#include "match/live_rules.h"

namespace aegis::agent {

struct LogTarget {
  std::string node;
  SourceKind source = SourceKind::kTrain;
  std::string file;               // nodes/<node>/train.log
  VirtualLines* lines = nullptr;  // of that bundle file
};

// The node's bundle file of `source`: nodes/<node>/kernel.log or nodes/<node>/train.log.
LogTarget NodeLogTarget(const std::string& node, SourceKind source, VirtualLines* lines);

ConsumerFactory MakeLogConsumerFactory(LogTarget target, LiveRules* rules, EventOutput* out, AgentCounters* counters);

}  // namespace aegis::agent
