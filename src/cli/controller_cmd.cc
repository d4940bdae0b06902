#include "cli/controller_cmd.h"

#include <pthread.h>
#include <signal.h>

#include <cstdio>

#include "cli/command_line.h"
#include "cli/hosts_cmd.h"
#include "cli/tokens_cmd.h"
#include "cli/incidents_cmd.h"
#include "cli/jobs_cmd.h"
#include "cli/status_cmd.h"
#include "common/listen_address.h"
#include "controller/controller.h"
#include "controller/http_api.h"

namespace aegis {

namespace {

struct ControllerArgs {
  controller::ControllerOptions o;
  std::string sqlite_sync = "full";
  std::vector<std::string> actions;
  double max_body_mb = 4;
};

void AddControllerCommand(CLI::App& app, ControllerArgs* a) {
  auto* cmd = app.add_subcommand("controller", "run the controller: ingest, jobs, incidents, decisions, HTTP API");
  controller::ControllerOptions& o = a->o;
  cmd->add_option("--listen", o.listen, "HOST:PORT, [ADDRESS]:PORT or :PORT (every interface) to serve the API on (port 0: any free port)")->capture_default_str();
  cmd->add_option("--db", o.db, "store: sqlite:PATH or postgresql://user@host/db (the last --db given counts)")
      ->capture_default_str()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  cmd->add_option("--sqlite-sync", a->sqlite_sync,
                  "SQLite: full (fsync every commit) or normal (survives a crash of the controller, not of the machine)")
      ->capture_default_str()
      ->check(CLI::IsMember({"full", "normal"}));
  cmd->add_option("--topology", o.topology_file, "topology.json to load at start (replaces the stored one)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--token-file", o.token_file, "bearer tokens and their scopes (agent, operator, read)")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--allow-anonymous", o.allow_anonymous, "serve a non-loopback address without --token-file");
  cmd->add_flag("--allow-shared-agent-token", o.allow_shared_agent_token,
                "accept an agent token bound to no node (each node may then post about every other)");
  cmd->add_option("--tls-cert", o.tls_cert, "serve HTTPS with this certificate (PEM)")->check(CLI::ExistingFile);
  cmd->add_option("--tls-key", o.tls_key, "and this private key (PEM)")->check(CLI::ExistingFile);
  cmd->add_flag("--dry-run", o.dry_run, "record and show every decision; execute no action");
  cmd->add_option("--action", a->actions, "action backend: slurm, kubernetes or exec:CMD (repeatable; recorded, not executed in this release)");
  cmd->add_option("--hang-after", o.hang_after_s, "seconds without a CCL counter change on any rank before a hang is declared")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-isolate-share", o.max_isolate_share,
                  "decisions isolate at most this share of the topology's hosts (at least one) per --isolate-window; more are held for a person")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--isolate-window", o.isolate_window_s,
                  "seconds over which isolations count against --max-isolate-share (at least one host is always allowed)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--settle", o.settle_s, "seconds to wait for a failed job's agents to report before deciding anyway")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--report-interval", o.report_s,
                  "seconds between the posts of agents whose node runs a job (so that they hear of its end at once)")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 60.0));
  cmd->add_option("--slow-check", o.slow_check_s, "seconds between straggler checks of running jobs (0: off)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option_function<double>(
         "--event-retention-days", [&o](double days) { o.event_retention_s = days * 86400; },
         "delete events received this many days ago (default 30; 0: keep them), never those of a job still followed")
      ->check(CLI::Range(0.0, 36500.0));
  cmd->add_option("--prometheus", o.prometheus, "also read slow-job metrics from this Prometheus (http://host:port)");
  cmd->add_option("--name", o.name, "this instance's name in decisions (default host:pid)");
  cmd->add_option("--client-deadline", o.client_deadline_s,
                  "seconds a connection may stay open, whatever it does (a client sending a byte a second holds "
                  "a worker no longer); 0: no limit")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-ingest-in-flight", o.max_ingest_in_flight, "event posts served at once; more are answered 503")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--max-body-mb", a->max_body_mb, "largest request body accepted, MiB")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 1024.0));
}

int RunController(ControllerArgs& a, const std::vector<std::string>& rule_dirs) {
  controller::ControllerOptions o = a.o;
  o.rule_dirs = rule_dirs;
  o.sqlite_sync_full = a.sqlite_sync == "full";
  o.max_body_bytes = static_cast<size_t>(a.max_body_mb * (1u << 20));
  for (const std::string& spec : a.actions) {
    controller::ActionTarget b;
    if (Status s = controller::ParseActionTarget(spec, &b); !s.ok()) return Fail(s.message());
    o.actions.push_back(b);
  }
  ListenAddress where;
  if (Status s = ParseListenAddress(o.listen, &where); !s.ok()) return Fail("--listen: " + s.message());
  if (o.token_file.empty() && !o.allow_anonymous && !IsLoopbackHost(where.host))
    return Fail("controller: listening on " + where.host + " without --token-file would let anyone post events and isolate hosts; give --token-file (or --allow-anonymous)");

  // Signals are taken by this thread alone (sigwait), so every thread started below
  // inherits them blocked.
  sigset_t signals;
  sigemptyset(&signals);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&signals, sig);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  std::unique_ptr<controller::Controller> c;
  if (Status s = controller::Controller::Open(o, &c); !s.ok()) return Fail("controller: " + s.ToString());
  controller::HttpApi api(c.get());
  if (Status s = api.Start(where.host, where.port); !s.ok()) return Fail("controller: " + s.message());
  c->Start();
  const bool tls = !o.tls_cert.empty();
  std::printf("aegis controller: listening on %s://%s:%d (store %s, name %s%s%s)\n", tls ? "https" : "http", where.host.c_str(),
              api.port(), std::string(c->store().backend()).c_str(), c->options().name.c_str(),
              o.dry_run ? ", dry run" : "", o.token_file.empty() ? ", no authentication" : "");
  std::fflush(stdout);
  for (;;) {
    int sig = 0;
    if (sigwait(&signals, &sig) != 0) continue;
    if (sig == SIGHUP) {
      Status s = c->ReloadRules();
      std::fprintf(stderr, "aegis controller: rules %s\n", s.ok() ? "reloaded" : ("not reloaded: " + s.message()).c_str());
      if (!o.token_file.empty()) {
        s = c->ReloadTokens();
        std::fprintf(stderr, "aegis controller: tokens %s\n", s.ok() ? "reloaded" : ("not reloaded: " + s.message()).c_str());
      }
      continue;
    }
    break;
  }
  std::fprintf(stderr, "aegis controller: stopping\n");
  api.Stop();
  c->Stop();
  return 0;
}

}  // namespace

void AddClientOptions(CLI::App* cmd, ClientArgs* args) {
  cmd->add_option("--controller", args->controller, "the controller's URL (http://HOST:PORT)")->required();
  cmd->add_option("--token-file", args->token_file, "a file holding the bearer token (else $AEGIS_TOKEN)");
  cmd->add_option("--ca-file", args->ca_file, "HTTPS: trust this CA certificate (else $AEGIS_CA_FILE, else the system's)");
}

int Fail(const std::string& line, int code) {
  std::fprintf(stderr, "aegis: %s\n", line.c_str());
  return code;
}

int CallController(const ClientArgs& args, const std::string& method, const std::string& path, const std::string& body,
                   controller::Reply* reply) {
  std::unique_ptr<controller::ApiClient> client;
  if (Status s = controller::ApiClient::Create({args.controller, args.token_file, args.ca_file}, &client); !s.ok())
    return Fail(s.message());
  if (Status s = client->Call(method, path, body, reply); !s.ok()) return Fail(s.message());
  if (reply->status >= 200 && reply->status < 300) return 0;
  const int code = reply->status == 400 || reply->status == 401 || reply->status == 403 || reply->status == 404 ? 2 : 1;
  return Fail(reply->Error() + " (HTTP " + std::to_string(reply->status) + ")", code);
}

void DescribeLiveSystemCommands(CLI::App& app) {
  for (auto [name, what] : {std::pair{"controller", "run the controller (aegis controller --help)"},
                            std::pair{"jobs", "tell the controller a job started or ended (aegis jobs --help)"},
                            std::pair{"status", "hosts and incidents as the controller sees them"},
                            std::pair{"hosts", "return a host to service, or set its state (aegis hosts --help)"},
                            std::pair{"incidents", "export an incident as a bundle (aegis incidents export --help)"},
                            std::pair{"tokens", "create, revoke or list the controller's API tokens (aegis tokens --help)"}}) {
    auto* cmd = app.add_subcommand(name, what);
    cmd->allow_extras();
  }
}

int RunLiveSystemCommand(int argc, char** argv) {
  const std::string word = CommandWord(argc, argv);
  if (word != "controller" && word != "jobs" && word != "status" && word != "incidents" && word != "hosts" &&
      word != "tokens")
    return -1;

  CLI::App app{"aegis: find the faulty device behind a failed, hung or slow training job"};
  app.require_subcommand(1);
  std::vector<std::string> rule_dirs;
  AddRulesOption(app, &rule_dirs);
  ControllerArgs ctl;
  AddControllerCommand(app, &ctl);
  JobsArgs jobs;
  CLI::App* jobs_cmd = AddJobsCommand(app, &jobs);
  StatusArgs status;
  CLI::App* status_cmd = AddStatusCommand(app, &status);
  IncidentsArgs incidents;
  CLI::App* incidents_cmd = AddIncidentsCommand(app, &incidents);
  HostsArgs hosts;
  CLI::App* hosts_cmd = AddHostsCommand(app, &hosts);
  TokensArgs tokens;
  CLI::App* tokens_cmd = AddTokensCommand(app, &tokens);
  // One line on a usage error: what was wrong, and where to look.
  if (auto exit_code = ParseCommandLine(app, argc, argv, word, [](const std::string& line) { return Fail(line); }))
    return *exit_code;
  if (*app.get_subcommand("controller")) return RunController(ctl, rule_dirs);
  if (*jobs_cmd) return RunJobs(jobs);
  if (*status_cmd) return RunStatus(status);
  if (*incidents_cmd) return RunIncidents(incidents);
  if (*hosts_cmd) return RunHosts(hosts);
  if (*tokens_cmd) return RunTokens(tokens);
  return Fail("no command given (see aegis --help)");
}

}  // namespace aegis
