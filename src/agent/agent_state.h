// What the agent persists of its sources in STATE_DIR/state.json (replaced atomically,
// fsync'ed, at most once a second and only when it changed): the checkpoint of every
// followed file by identity, of /dev/kmsg (boot id, next sequence number) and of the
// journal (cursor). The queue and the line-number reservations have their own files
// (disk_queue.h, tracked_stream.h). A state file that cannot be read is set aside as
// state.json.bad and the agent starts afresh (files are read again from their start;
// the ids of what they give are the same, so the controller keeps one copy). Pure
// functions.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "agent/file_follower.h"
#include "agent/tracked_stream.h"
#include "common/status.h"

namespace aegis::agent {

// Where /dev/kmsg was read to (sources/kmsg): in which boot, up to which record.
struct KmsgState {
  std::string boot_id;
  Checkpoint cp;  // pos.offset: the next sequence number to read
};

struct AgentState {
  FileStates kernel_files, train_files, ccl_files;
  KmsgState kmsg;
  Checkpoint journal;
};

std::string AgentStateToJson(const AgentState& s);
Status AgentStateFromJson(std::string_view text, AgentState* out);

}  // namespace aegis::agent
