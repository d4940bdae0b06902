#include "wire/ccl_event.h"

#include <map>

#include "ccl/reader.h"
#include "common/json_check.h"
#include "common/text.h"

namespace aegis::wire {

using nlohmann::json;

std::string EncodeCclEvent(std::string_view id, std::string_view node, std::string_view file, std::string_view record_json) {
  std::string ev;
  ev.reserve(record_json.size() + id.size() + file.size() + 2 * node.size() + 64);
  ev += "{\"id\":";
  ev += JsonQuoted(id);
  ev += ",\"type\":\"ccl\",\"node\":";
  ev += JsonQuoted(node);
  ev += ",\"file\":";
  ev += JsonQuoted(file);
  ev += ",\"record\":";
  ev += record_json;
  ev += '}';
  return ev;
}

Status DecodeCclEvent(const json& j, std::string_view node, CclRecord* out) {
  Status s = CheckString(j, "file", "ccl event");
  if (s.ok()) s = CheckObject(j, "record", "ccl event", true);
  if (!s.ok()) return s;
  const std::string file = j.contains("file") && j["file"].is_string() ? j["file"].get<std::string>() : "probe.jsonl";
  const std::string rel = CclFileOf(node, file);
  if (!IsSafeRelativePath(rel)) return Status::InvalidArgument("ccl event: file must be a plain file name");
  std::map<std::pair<std::string, int>, CclRecord> newest;
  CclFileStats stats = ReadCclText(j["record"].dump(), rel, std::string(node), &newest);
  if (stats.bad_lines != 0 || newest.size() != 1)
    return Status::InvalidArgument("ccl event: record is not a CCL snapshot (needs comm, rank and ts)");
  *out = std::move(newest.begin()->second);
  out->line = 0;
  return Status::Ok();
}

std::string CclFileOf(std::string_view node, std::string_view file) {
  const size_t slash = file.rfind('/');
  std::string_view base = slash == std::string_view::npos ? file : file.substr(slash + 1);
  std::string out = "nodes/" + std::string(node) + "/ccl/" + std::string(base);
  if (base.find(".jsonl") == std::string_view::npos) out += ".jsonl";  // what a bundle reader looks for
  return out;
}

}  // namespace aegis::wire
