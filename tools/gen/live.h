// Scenario generator, live streams: the bundle of a scenario written as a running cluster
// writes it, so that node agents following the files (and the controller behind them) can
// be tested end to end. topology.json, job.json (state "running", no ended_at) and the
// facts come first; then every node's kernel.log and train.log lines, the CCL snapshots
// and the switch logs are appended in time order, paced in real time, each batch flushed
// as it is written; lines older than the start (kernel history, a job that started
// earlier) are written at once. The fault is written at --fault-at seconds, every rank
// has timed out by --duration; then probes and metrics, job.json with its final state and
// ended_at, and expected.json (both replaced atomically). Content is the offline bundle's
// for the same seed, apart from the timestamps and the amount of noise.
//
// A directory streamed into before is one cluster running its next job (its ids are kept
// in DIR/jobs, one per line): the job's id is made unique there by a suffix ("-2", "-3"),
// and every node's logs go on in the same files. The cluster is the seed's: run the jobs
// of one directory with one seed (and --hosts) and any scenarios, e.g. a job that fails by
// the user's fault and then one with a hardware fault on the same hosts.
#pragma once
#include <optional>
#include <string>

#include "gen/scenarios.h"

namespace aegis::gen {

struct LiveOptions {
  double fault_at = 10;   // seconds after the start the fault's first line is written
  double duration = 30;   // seconds after the start the job ends (every rank timed out)
  double rate = 2;        // training-log noise lines per second per host (a quarter of it in kernel.log)
  double rotate_at = -1;  // seconds after the start every train.log is renamed to train.log.1 (< 0: never)
  // The stream's start (epoch seconds); default: now. With `paced` false every line is
  // written at once, as if time ran: tests of the content use it.
  std::optional<double> start;
  bool paced = true;
};

// The generator options of a live run that starts at `t0`: its timeline, and noise
// amounts from the rate. Throws std::invalid_argument for options that cannot run.
GenOptions LiveGenOptions(const GenOptions& options, const LiveOptions& live, double t0);

// Throws std::invalid_argument for bad options or an unknown scenario, std::runtime_error
// when a file cannot be written. Returns the bytes of logs and snapshots written.
size_t RunLive(const GenOptions& options, const LiveOptions& live, const std::string& dir);

}  // namespace aegis::gen
