// aegis-gen: writes synthetic incident bundles for tests, demos and benchmarks.
//   aegis-gen --scenario xid79 --seed 3 --hosts 16 --out /tmp/b
//   aegis-gen --list
#include <CLI/CLI.hpp>
#include <cstdio>

#include "gen/scenarios.h"

int main(int argc, char** argv) {
  CLI::App app{"aegis-gen: synthetic incident bundles (spec/bundle.md) with an expected.json verdict"};
  aegis::gen::GenOptions o;
  std::string out;
  bool list = false;
  double total_mb = 0;
  app.add_flag("--list", list, "list the scenarios");
  app.add_option("--scenario", o.scenario, "scenario name");
  app.add_option("--seed", o.seed, "random seed");
  app.add_option("--hosts", o.hosts, "hosts in the job")->check(CLI::Range(2, 100000));
  app.add_option("--gpus", o.gpus, "GPUs (and NICs) per host")->check(CLI::Range(1, 16));
  app.add_option("--kernel-bytes", o.kernel_bytes, "noise bytes per kernel.log");
  app.add_option("--train-bytes", o.train_bytes, "noise bytes per train.log");
  app.add_option("--total-mb", total_mb, "spread this many MB of noise over all logs (overrides the per-file sizes)");
  app.add_flag("!--keep-files", o.drop_files, "do not drop random files of healthy hosts");
  app.add_option("--out", out, "bundle directory to write");
  CLI11_PARSE(app, argc, argv);
  if (list) {
    for (const auto& s : aegis::gen::ScenarioNames()) std::printf("%s\n", s.c_str());
    return 0;
  }
  if (out.empty()) {
    std::fprintf(stderr, "aegis-gen: --out is required\n");
    return 2;
  }
  if (total_mb > 0) {
    const double per_host = total_mb * 1e6 / o.hosts;
    o.kernel_bytes = static_cast<size_t>(per_host * 0.35);
    o.train_bytes = static_cast<size_t>(per_host * 0.65);
  }
  try {
    size_t bytes = aegis::gen::GenerateBundle(o, out);
    std::printf("%s: scenario %s, seed %llu, %d hosts, %.1f MB of logs\n", out.c_str(), o.scenario.c_str(),
                static_cast<unsigned long long>(o.seed), o.hosts, static_cast<double>(bytes) / 1e6);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "aegis-gen: %s\n", e.what());
    return 2;
  }
  return 0;
}
