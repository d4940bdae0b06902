#include "cli/hosts_cmd.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "common/json_check.h"

namespace aegis {

CLI::App* AddHostsCommand(CLI::App& app, HostsArgs* a) {
  auto* hosts = app.add_subcommand("hosts", "change a host's state as a person");
  hosts->require_subcommand(1);
  a->back = hosts->add_subcommand("return", "a host goes back in service (after a repair or a check)");
  a->set = hosts->add_subcommand("set", "set a host's state");
  for (CLI::App* cmd : {a->back, a->set}) {
    AddClientOptions(cmd, &a->client);
    cmd->add_option("--host", a->host, "the host")->required();
    cmd->add_option("--reason", a->reason, "why (kept in the host's history)");
  }
  a->set->add_option("--state", a->state, "the new state")
      ->required()
      ->check(CLI::IsMember({"in_service", "isolated", "repair", "offline", "held"}));
  return hosts;
}

int RunHosts(const HostsArgs& a) {
  if (!IsSafeName(a.host)) return Fail("--host \"" + a.host + "\" is not a host name");
  nlohmann::json body = {{"state", *a.back ? std::string("in_service") : a.state}};
  if (!a.reason.empty()) body["reason"] = a.reason;
  controller::Reply reply;
  if (int rc = CallController(a.client, "POST", "/api/v1/hosts/" + a.host + "/state", body.dump(), &reply); rc != 0)
    return rc;
  std::fwrite(reply.body.data(), 1, reply.body.size(), stdout);
  return 0;
}

}  // namespace aegis
