#include "cli/status_cmd.h"

#include <fmt/format.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "common/text.h"
#include "engine/verdict.h"
#include "store/records.h"

namespace aegis {

namespace {

// Every string the controller sent goes to a terminal through here: a control character
// in a person's reason or a host name (a newline that would forge a line of this table,
// an escape sequence) is shown as U+FFFD.
std::string Text(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_string()) return "-";
  return SanitizeForOutput(j[key].get_ref<const std::string&>());
}

const nlohmann::json& Member(const nlohmann::json& j, const char* key) {
  static const nlohmann::json kNone;
  return j.is_object() && j.contains(key) ? j[key] : kNone;
}

std::string ForPerson(const nlohmann::json& doc, const nlohmann::json& agents) {
  std::string out;
  const nlohmann::json& hosts = Member(doc, "hosts");
  auto in_service = [](const nlohmann::json& h) {
    return store::ParseHostState(Text(h, "state")) == store::HostState::kInService;
  };
  size_t out_of_service = 0;
  for (const auto& h : hosts) out_of_service += !in_service(h);
  out += fmt::format("Hosts: {} known, {} not in service\n", hosts.size(), out_of_service);
  for (const auto& h : hosts) {
    if (in_service(h)) continue;
    out += fmt::format("  {:<20} {:<10} since {}  {}  {}\n", Text(h, "host"), Text(h, "state"), Text(h, "since"),
                       Text(h, "incident"), Text(h, "reason"));
  }
  // Agents: how many report; the silent ones by name (a node whose lines would not be seen).
  if (agents.is_array()) {
    size_t silent = 0;
    for (const auto& a : agents) silent += Member(a, "silent") == true;
    out += fmt::format("Agents: {} reporting, {} silent\n", agents.size() - silent, silent);
    for (const auto& a : agents) {
      if (Member(a, "silent") != true) continue;
      const std::string heard = Text(a, "heard_at");
      out += fmt::format("  {:<20} {}\n", Text(a, "node"),
                         heard == "-" ? "not heard in 10 minutes" : "last heard " + heard);
    }
  }
  const nlohmann::json& incidents = Member(doc, "incidents");
  out += fmt::format("Incidents: {}\n", incidents.size());
  for (const auto& inc : incidents) {
    const nlohmann::json& stored = Member(inc, "verdict");
    Verdict v;
    Status read = stored.is_object() ? VerdictFromJson(stored.dump(), &v) : Status::NotFound("not decided");
    if (read.ok())
      out += fmt::format("  {:<8} job {}  decided {}: {} ({}, {}) {}\n", Text(inc, "id"), Text(inc, "job"),
                         Text(inc, "decided_at"), ToString(v.action), ToString(v.cause), ToString(v.stage), SanitizeForOutput(v.summary));
    else if (stored.is_object())
      out += fmt::format("  {:<8} job {}  decided {}: a verdict this version cannot read ({})\n", Text(inc, "id"),
                         Text(inc, "job"), Text(inc, "decided_at"), SanitizeForOutput(read.message()));
    else
      out += fmt::format("  {:<8} job {}  opened {}: not decided yet\n", Text(inc, "id"), Text(inc, "job"),
                         Text(inc, "opened_at"));
    for (const auto& a : Member(inc, "actions"))
      out += fmt::format("           {} {} via {}{}: {}\n", Text(a, "do"), Text(a, "host"), Text(a, "backend"),
                         Member(a, "dry_run") == true ? " (dry run)" : "", Text(a, "result"));
  }
  return out;
}

}  // namespace

CLI::App* AddStatusCommand(CLI::App& app, StatusArgs* a) {
  auto* cmd = app.add_subcommand("status", "hosts and incidents as the controller sees them");
  AddClientOptions(cmd, &a->client);
  cmd->add_flag("--json", a->json, "print the status document (one JSON object)");
  return cmd;
}

int RunStatus(const StatusArgs& a) {
  controller::Reply reply;
  if (int rc = CallController(a.client, "GET", "/api/v1/status", "", &reply); rc != 0) return rc;
  auto doc = nlohmann::json::parse(reply.body, nullptr, false);
  if (!doc.is_object() || !doc.contains("hosts") || !doc.contains("incidents") || !doc["hosts"].is_array() ||
      !doc["incidents"].is_array())
    return Fail("the controller's status is not a status document", 1);
  // --json: the controller's document as it sent it (one line, its field order). A
  // person also sees the agents (from a controller without /api/v1/agents: not shown).
  nlohmann::json agents;
  if (!a.json) {
    controller::Reply agents_reply;
    if (CallController(a.client, "GET", "/api/v1/agents", "", &agents_reply) == 0)
      agents = nlohmann::json::parse(agents_reply.body, nullptr, false);
  }
  std::string out = a.json ? reply.body : ForPerson(doc, agents);
  if (a.json && (out.empty() || out.back() != '\n')) out += '\n';
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

}  // namespace aegis
