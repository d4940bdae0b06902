// aegis-gen: writes synthetic incident bundles for tests, demos and benchmarks, or
// streams one live as a running cluster would.
//   aegis-gen --scenario xid79 --seed 3 --hosts 16 --out /tmp/b
//   aegis-gen --live /tmp/live --scenario xid79 --seed 3 --hosts 4 --fault-at 10 --duration 30
//   aegis-gen --scenario rootdiag --hosts 1250 --storm-hint 350000 --storm-xid 800000 --out /tmp/s
//   aegis-gen --list
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <string>

#include "gen/bundle_writer.h"
#include "gen/live.h"
#include "gen/scenarios.h"
#include "gen/storm.h"

namespace {

void List() {
  size_t width = 0;
  for (const auto& s : aegis::gen::Scenarios()) width = std::max(width, std::string(s.name).size());
  for (const auto& s : aegis::gen::Scenarios()) {
    std::string verdict = s.expect.action ? s.expect.action : "(by variant)";
    if (s.expect.cause) verdict += std::string(" ") + s.expect.cause;
    if (s.expect.stage) verdict += std::string(" ") + s.expect.stage;
    std::printf("%-*s  %-11s  %-32s  %s\n", static_cast<int>(width), s.name, aegis::gen::KindName(s.kind),
                verdict.c_str(), s.description);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"aegis-gen: synthetic incident bundles (the bundle spec) with an expected.json verdict"};
  aegis::gen::GenOptions o;
  aegis::gen::LiveOptions live;
  aegis::gen::StormOptions storm;
  std::string out, live_dir;
  bool list = false;
  double total_mb = 0;
  app.add_flag("--list", list, "list the scenarios: name, kind, expected verdict, description");
  app.add_option("--scenario", o.scenario, "scenario name");
  app.add_option("--seed", o.seed, "random seed");
  app.add_option("--hosts", o.hosts, "hosts in the job")->check(CLI::Range(2, 100000));
  app.add_option("--gpus", o.gpus, "GPUs (and NICs) per host")->check(CLI::Range(1, 16));
  app.add_option("--kernel-bytes", o.kernel_bytes, "noise bytes per kernel.log");
  app.add_option("--train-bytes", o.train_bytes, "noise bytes per train.log");
  app.add_option("--total-mb", total_mb, "spread this many MB of noise over all logs (overrides the per-file sizes)");
  app.add_flag("!--keep-files", o.drop_files, "do not drop random files of healthy hosts");
  app.add_option("--storm-hint", storm.hint_lines,
                 "also repeat NCCL's 'NCCL_IB_TIMEOUT set by environment' INFO line this many times over the training logs");
  app.add_option("--storm-xid", storm.xid_lines,
                 "also repeat one GPU's Xid 95 this many times in a healthy host's kernel log, two days before the job");
  app.add_option("--out", out, "bundle directory to write");
  app.add_option("--live", live_dir, "stream the scenario into this directory in real time");
  app.add_option("--rate", live.rate, "live: training-log noise lines per second per host")->check(CLI::PositiveNumber);
  app.add_option("--fault-at", live.fault_at, "live: seconds after the start the fault is written")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--duration", live.duration, "live: seconds the job runs until every rank timed out")
      ->check(CLI::PositiveNumber);
  app.add_option("--rotate-at", live.rotate_at, "live: rename every train.log to train.log.1 at this second")
      ->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);
  if (list) {
    List();
    return 0;
  }
  if (out.empty() == live_dir.empty()) {
    std::fprintf(stderr, "aegis-gen: give exactly one of --out and --live\n");
    return 2;
  }
  if (!aegis::gen::FindScenario(o.scenario)) {
    std::fprintf(stderr, "aegis-gen: unknown scenario '%s' (see --list)\n", o.scenario.c_str());
    return 2;
  }
  const bool storms = storm.hint_lines > 0 || storm.xid_lines > 0;
  if (storms && !live_dir.empty()) {
    std::fprintf(stderr, "aegis-gen: --storm-hint and --storm-xid write bundles (--out), not live streams\n");
    return 2;
  }
  try {
    if (!live_dir.empty()) {
      if (!app.count("--duration")) live.duration = live.fault_at + 20;
      aegis::gen::LiveGenOptions(o, live, 0);  // refuses options that cannot run, before anything is written
      std::printf("%s: live scenario %s, seed %llu, %d hosts, fault at +%.1f s, end at +%.1f s\n", live_dir.c_str(),
                  o.scenario.c_str(), static_cast<unsigned long long>(o.seed), o.hosts, live.fault_at, live.duration);
      std::fflush(stdout);
      const size_t bytes = aegis::gen::RunLive(o, live, live_dir);
      std::printf("%s: done, %zu bytes of logs, expected.json written\n", live_dir.c_str(), bytes);
      return 0;
    }
    if (total_mb > 0) {
      const double per_host = total_mb * 1e6 / o.hosts;
      o.kernel_bytes = static_cast<size_t>(per_host * 0.35);
      o.train_bytes = static_cast<size_t>(per_host * 0.65);
    }
    size_t bytes = 0;
    if (storms) {
      aegis::gen::Bundle b = aegis::gen::BuildBundle(o);
      aegis::gen::AddStorms(b, storm, o.seed);
      bytes = aegis::gen::BundleWriter(out).Write(b);
    } else {
      bytes = aegis::gen::GenerateBundle(o, out);
    }
    std::printf("%s: scenario %s, seed %llu, %d hosts, %.1f MB of logs\n", out.c_str(), o.scenario.c_str(),
                static_cast<unsigned long long>(o.seed), o.hosts, static_cast<double>(bytes) / 1e6);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "aegis-gen: %s\n", e.what());
    return 2;
  }
  return 0;
}
