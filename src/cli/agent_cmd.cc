#include "cli/agent_cmd.h"

#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "agent/agent.h"
#include "cli/command_line.h"

namespace aegis {

namespace {

agent::Agent* g_agent = nullptr;

void OnSignal(int sig) {
  agent::Agent* a = g_agent;
  if (!a) return;
  if (sig == SIGHUP) a->ReloadRules();
  else a->Stop();
}

// One line starting "aegis:", as every command's usage errors (the running agent's own
// log lines say "aegis agent:").
int Usage(const std::string& message) {
  std::fprintf(stderr, "aegis: %s\n", message.c_str());
  return 2;
}

struct AgentArgs {
  agent::AgentConfig config;
  double queue_max_mb = 1024;
};

void AddAgentOptions(CLI::App* a, AgentArgs* args) {
  agent::AgentConfig& c = args->config;
  a->add_option("--controller", c.controller, "controller URL: http://HOST:PORT or https://HOST:PORT; several, comma-separated, for controllers on one database (the next is tried when one fails)");
  a->add_option("--node", c.node, "this node's name, as the topology names it");
  a->add_option("--kernel-log", c.kernel_log, "kmsg (default), journald, none, or a file to follow");
  a->add_option("--train-log", c.train_logs, "glob of the job's log files; repeatable");
  a->add_option("--ccl-socket", c.ccl_socket, "the CCL probe's datagram socket (default /run/aegis/ccl.sock; none: off)");
  a->add_option("--ccl-dir", c.ccl_dir, "directory of the CCL probe's snapshot files (*.jsonl)");
  a->add_option("--facts", c.facts, "auto (default: read from the node), none, or a facts.json file");
  a->add_option("--state-dir", c.state_dir, "positions and the on-disk queue (default /var/lib/aegis-agent)");
  a->add_option("--metrics-listen", c.metrics_listen, "address of /metrics (default 127.0.0.1:9470; none: off)");
  a->add_option("--token-file", c.token_file, "file holding the bearer token (default: $AEGIS_TOKEN)");
  a->add_option("--ca-file", c.ca_file, "CA bundle that signed an https:// controller's certificate");
  a->add_option("--queue-max-mb", args->queue_max_mb, "bound of the on-disk queue in MiB (default 1024)");
  a->add_option("--proc-root", c.roots.proc, "where the node's /proc is (default /proc; /host/proc in a container)");
  a->add_option("--sys-root", c.roots.sys, "where the node's /sys is (default /sys)");
}

int Run(AgentArgs& args, const std::vector<std::string>& rule_dirs) {
  agent::AgentConfig c = args.config;
  c.rule_dirs = rule_dirs;
  if (c.token_file.empty())
    if (const char* t = std::getenv("AEGIS_TOKEN")) c.token = t;
  if (!(args.queue_max_mb >= 1 && args.queue_max_mb <= (1u << 24)))
    return Usage("--queue-max-mb must be between 1 and 16777216");
  c.queue_max_bytes = static_cast<uint64_t>(args.queue_max_mb * 1024 * 1024);
  if (Status s = agent::ValidateConfig(&c); !s.ok()) return Usage(s.message());

  agent::Agent a(std::move(c));
  if (Status s = a.Start(); !s.ok()) {
    std::fprintf(stderr, "aegis: %s\n", s.message().c_str());
    return s.IsInvalidArgument() ? 2 : 1;
  }
  g_agent = &a;
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
  ::signal(SIGPIPE, SIG_IGN);  // a controller closing a connection must not kill the agent
  a.Run();
  g_agent = nullptr;
  return 0;
}

}  // namespace

void DescribeAgentCommand(CLI::App& app) {
  app.add_subcommand("agent", "run the per-node agent: follow logs and counters, ship events (aegis agent --help)")
      ->allow_extras();
}

int RunAgentCommand(int argc, char** argv) {
  if (CommandWord(argc, argv) != "agent") return -1;

  CLI::App app{"aegis: find the faulty device behind a failed, hung or slow training job"};
  app.require_subcommand(1);
  std::vector<std::string> rule_dirs;
  AddRulesOption(app, &rule_dirs);
  AgentArgs args;
  CLI::App* cmd = app.add_subcommand("agent", "run the per-node agent (docs/agent.md)");
  AddAgentOptions(cmd, &args);
  if (auto exit_code = ParseCommandLine(app, argc, argv, "agent", Usage)) return *exit_code;
  return Run(args, rule_dirs);
}

}  // namespace aegis
