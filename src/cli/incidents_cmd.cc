#include "cli/incidents_cmd.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "controller/bundle_export.h"
#include "common/json_check.h"

namespace aegis {

CLI::App* AddIncidentsCommand(CLI::App& app, IncidentsArgs* a) {
  auto* cmd = app.add_subcommand("incidents", "work with the controller's incidents");
  cmd->require_subcommand(1);
  auto* exp = cmd->add_subcommand("export", "write an incident's data as a bundle that aegis diagnose reads");
  AddClientOptions(exp, &a->client);
  exp->add_option("id", a->id, "the incident's id (inc-42)")->required();
  exp->add_option("--out", a->out, "the bundle directory to write")->required();
  exp->add_flag("--redact", a->redact, "for sharing: keep only what rules matched in each log line, and replace hosts, "
                "addresses, switches, users, job names, paths, pids and process names by pseudonyms "
                "(the same in every file); the result still diagnoses to the verdict");
  return cmd;
}

int RunIncidents(const IncidentsArgs& a) {
  if (!IsSafeName(a.id)) return Fail("\"" + a.id + "\" is not an incident id");
  controller::Reply reply;
  const std::string path = "/api/v1/incidents/" + a.id + "/bundle" + (a.redact ? "?redact=1" : "");
  if (int rc = CallController(a.client, "GET", path, "", &reply); rc != 0) return rc;
  auto doc = nlohmann::json::parse(reply.body, nullptr, false);
  if (doc.is_discarded()) return Fail("the controller's bundle is not JSON", 1);
  if (Status s = controller::WriteBundle(doc, a.out); !s.ok())
    return Fail(s.message(), s.IsInvalidArgument() ? 1 : 2);
  std::printf("%s: incident %s written (%zu files%s)\n", a.out.c_str(), a.id.c_str(), doc["files"].size(),
              a.redact ? ", redacted" : "");
  return 0;
}

}  // namespace aegis
