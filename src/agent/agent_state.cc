#include "agent/agent_state.h"

namespace aegis::agent {

namespace {

using nlohmann::json;

json CheckpointJson(const Checkpoint& c) {
  json j = {{"offset", c.pos.offset}, {"line", c.line}, {"emitted_through", c.emitted_through}};
  if (!c.pos.cursor.empty()) j["cursor"] = c.pos.cursor;
  return j;
}

bool ReadU64(const json& j, const char* key, uint64_t* out) {
  auto it = j.find(key);
  if (it == j.end()) return true;
  if (!it->is_number_unsigned()) return false;
  *out = it->get<uint64_t>();
  return true;
}

Status ReadCheckpoint(const json& j, Checkpoint* c) {
  if (!j.is_object()) return Status::Corruption("state: a checkpoint is not an object");
  if (!ReadU64(j, "offset", &c->pos.offset) || !ReadU64(j, "line", &c->line) ||
      !ReadU64(j, "emitted_through", &c->emitted_through) || c->line == 0)
    return Status::Corruption("state: a checkpoint has a bad number");
  if (auto it = j.find("cursor"); it != j.end()) {
    if (!it->is_string()) return Status::Corruption("state: a cursor is not text");
    c->pos.cursor = it->get<std::string>();
  }
  return Status::Ok();
}

json FilesJson(const FileStates& files) {
  json j = json::object();
  for (const auto& [id, f] : files) {
    json e = CheckpointJson(f.cp);
    e["path"] = f.path;
    e["gen"] = f.gen;
    e["seen"] = f.seen;
    j[id] = std::move(e);
  }
  return j;
}

Status ReadFiles(const json& j, FileStates* out) {
  if (!j.is_object()) return Status::Corruption("state: files is not an object");
  for (const auto& [id, e] : j.items()) {
    FileState f;
    if (Status s = ReadCheckpoint(e, &f.cp); !s.ok()) return s;
    if (!ReadU64(e, "gen", &f.gen)) return Status::Corruption("state: bad generation for " + id);
    if (auto p = e.find("path"); p != e.end() && p->is_string()) f.path = p->get<std::string>();
    if (auto p = e.find("seen"); p != e.end() && p->is_number()) f.seen = p->get<double>();
    (*out)[id] = std::move(f);
  }
  return Status::Ok();
}

}  // namespace

std::string AgentStateToJson(const AgentState& s) {
  json j;
  j["version"] = 1;
  j["kernel_files"] = FilesJson(s.kernel_files);
  j["train_files"] = FilesJson(s.train_files);
  j["ccl_files"] = FilesJson(s.ccl_files);
  j["kmsg"] = CheckpointJson(s.kmsg.cp);
  j["kmsg"]["boot_id"] = s.kmsg.boot_id;
  j["journal"] = CheckpointJson(s.journal);
  return j.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

Status AgentStateFromJson(std::string_view text, AgentState* out) {
  json j = json::parse(text, nullptr, false);
  if (!j.is_object()) return Status::Corruption("state.json is not a JSON object");
  AgentState s;
  for (auto [key, files] : {std::pair{"kernel_files", &s.kernel_files}, std::pair{"train_files", &s.train_files},
                            std::pair{"ccl_files", &s.ccl_files}}) {
    if (auto it = j.find(key); it != j.end())
      if (Status st = ReadFiles(*it, files); !st.ok()) return st;
  }
  if (auto it = j.find("kmsg"); it != j.end()) {
    if (Status st = ReadCheckpoint(*it, &s.kmsg.cp); !st.ok()) return st;
    if (auto b = it->find("boot_id"); b != it->end() && b->is_string()) s.kmsg.boot_id = b->get<std::string>();
  }
  if (auto it = j.find("journal"); it != j.end())
    if (Status st = ReadCheckpoint(*it, &s.journal); !st.ok()) return st;
  *out = std::move(s);
  return Status::Ok();
}

}  // namespace aegis::agent
