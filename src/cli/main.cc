// aegis: the command-line front end. Thin: every decision is the engine's.
//   aegis diagnose BUNDLE [--json]        verdict for a saved incident bundle
//   aegis classify [FILE...] [--json]     class of every log line (stdin without FILE)
//   aegis rules check                     validate the rule set against its samples
//   aegis rules explain xid|sxid N [--json]  one entry of the Xid / SXid catalogue
//   aegis controller | jobs | status | incidents | hosts   the live system (cli/controller_cmd.h)
//   aegis agent ...                       the per-node agent (cli/agent_cmd.h)
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <iostream>

#include "cli/agent_cmd.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/controller_cmd.h"
#include "cli/rules_explain.h"
#include "match/matcher.h"
#include "rules/catalog.h"

int main(int argc, char** argv) {
  // `aegis ... | head` must end quietly, as other command-line tools do: killed by
  // SIGPIPE (status 141), not an error message about a failed write. A parent that
  // ignores SIGPIPE (some CI runners, daemons) would pass that on to us; undo it.
  std::signal(SIGPIPE, SIG_DFL);
  // The live system (controller, jobs, status, incidents, hosts) has its own parser and exit codes.
  if (int rc = aegis::RunLiveSystemCommand(argc, argv); rc >= 0) return rc;
  if (int rc = aegis::RunAgentCommand(argc, argv); rc >= 0) return rc;
  CLI::App app{"aegis: find the faulty device behind a failed, hung or slow training job"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("aegis ") + AEGIS_VERSION);
  // The main app's options (--rules) may come after a subcommand too (`aegis rules check
  // --rules DIR`, as a unit file appends them): subcommands made below inherit this and
  // pass what they do not know up to the app.
  app.fallthrough();
  std::vector<std::string> rule_dirs;
  aegis::AddRulesOption(app, &rule_dirs);

  aegis::DiagnoseArgs d;
  auto* diagnose = app.add_subcommand("diagnose", "diagnose an incident bundle (docs/formats.md)");
  diagnose->add_option("bundle", d.bundle, "bundle directory")->required();
  diagnose->add_flag("--json", d.json, "print the verdict as one JSON object");
  diagnose->add_option("--threads", d.threads, "scanning threads (default: one per core)")->check(CLI::Range(0, 4096));
  diagnose->add_option("--prometheus", d.prometheus, "also read the catalogued metrics from this Prometheus (http://host:port)");
  diagnose->add_option("--window", d.window_s, "metric outlier window T in seconds (default 600)")->check(CLI::PositiveNumber);
  diagnose->add_option("--min-sustained", d.min_sustained_s, "shortest excursion that counts, seconds (default 300)")
      ->check(CLI::NonNegativeNumber);
  diagnose->add_option("--step", d.step_s, "Prometheus sample step in seconds (default 15)")->check(CLI::PositiveNumber);
  diagnose->add_flag("--classic-outliers", d.classic_outliers, "mean / standard deviation instead of median / MAD");

  aegis::ClassifyArgs c;
  auto* classify = app.add_subcommand("classify", "classify log lines (docs/formats.md)");
  classify->add_option("files", c.files, "log files (default: standard input)");
  classify->add_flag("--json", c.json, "one JSON object per input line");

  auto* rules = app.add_subcommand("rules", "work with the rule catalogue");
  auto* check = rules->add_subcommand("check", "load the rules and match every rule against its samples");
  aegis::ExplainArgs ex;
  auto* explain = rules->add_subcommand("explain", "print an entry of the Xid or SXid catalogue");
  explain->add_option("table", ex.table, "xid or sxid")->required();
  explain->add_option("number", ex.number, "the Xid or SXid number")->required();
  explain->add_flag("--json", ex.json, "print the entry as one JSON object");
  rules->require_subcommand(1);
  aegis::DescribeLiveSystemCommands(app);
  aegis::DescribeAgentCommand(app);

  // A usage error is one line, `aegis: ...`, and exit status 2, as in every other command.
  if (auto rc = aegis::ParseCommandLine(app, argc, argv, aegis::CommandWord(argc, argv), [](const std::string& msg) {
        std::fprintf(stderr, "aegis: %s\n", msg.c_str());
        return 2;
      }))
    return *rc;
  try {
    aegis::Catalog catalog = aegis::Catalog::Load(rule_dirs);
    aegis::Matcher matcher(catalog);
    if (*diagnose) return aegis::RunDiagnose(d, matcher);
    if (*classify) return aegis::RunClassify(c, matcher);
    if (*check) return aegis::RunRulesCheck(matcher);
    if (*explain) return aegis::RunRulesExplain(ex, catalog);
  } catch (const aegis::CatalogError& e) {
    std::fprintf(stderr, "aegis: rules: %s\n", e.what());
    return 2;
  }
  return 0;
}
