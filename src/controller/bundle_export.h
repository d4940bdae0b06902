// An incident's data as an incident bundle (docs/formats.md), built from what the store
// holds, so that `aegis diagnose` on it reaches the incident's verdict:
//   topology.json, job.json (as the decision saw the job: its state for the trigger and
//   its end), nodes/HOST/{kernel.log, train.log} (each classified event's text written at
//   its own line number, preceded by its time and rank tag; the lines between are empty,
//   so that line numbers in evidence stay true: the controller receives classified events,
//   never raw logs), nodes/HOST/facts.json (the newest facts), nodes/HOST/ccl/*.jsonl (the
//   CCL snapshots received), switches/NAME.log, probes.json, metrics/NAME.json (the
//   metric series as Prometheus query_range bodies), incident.json (the incident and
//   its verdict).
// Only events received before the decision are included (all of them for an incident
// not decided yet), and of the job's hosts only what is the job's (job_scope.h: read
// within its window, not the hosts' past); job.json then names in `not_before` the hosts
// a person returned to service during the job.
// Redaction (`?redact=1`, `aegis incidents export --redact`), for sharing a tenant's
// incident (the full list and the pseudonyms' shapes: redaction.h): every log line keeps
// only the span its rule matched (found again with the rule's pattern), and in it, as in
// every other file, identifiers are replaced by pseudonyms that are the same in all files
// of the export: host names (also in the paths nodes/HOST/...), switch names
// (switches/NAME.log), pods, IP and MAC addresses, GPU UUIDs, job.json's id, user, name
// and other words of its own, filesystem paths, e-mail addresses, pids, uids and process
// names, a job exception's message; CCL snapshot files are renamed (their names hold a
// host and a pid). Kept: rule ids, classes, counts, times, line numbers, rank tags,
// device names and kinds, PCI addresses, Xid numbers, NCCL error names, counters, metric
// values. A redacted span must still be its rule's (checked with the rule's patterns);
// a line whose rule this controller does not know, or whose redaction no longer matches,
// is left empty. incident.json's verdict (evidence, history, summary, actions) is
// redacted the same way; history from train logs (another job's output) is dropped. So
// `aegis diagnose` on a redacted bundle reaches the incident's verdict, naming the
// pseudonyms of its hosts. The mapping is never written out.
//
// The document: {"format": 1, "incident": ID, "job": JOB, "redacted": bool,
// "files": {"relative/path": "text", ...}}; WriteBundle puts it into a directory.
// Thread-safe.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "common/status.h"
#include "controller/job_scope.h"
#include "match/live_rules.h"
#include "store/store.h"

namespace aegis::controller {

struct ExportOptions {
  bool redact = false;
  double lookback_s = 3600;  // metrics, switch logs and probes this long before the job started are included
  ScopeOptions scope;        // which of its hosts' events are the job's
};

Status ExportBundle(store::Store& store, const Rules& rules, const std::string& incident, const ExportOptions& options,
                    nlohmann::ordered_json* out);

// Writes the document's files under `dir`, a new or empty directory whose parent exists
// (NotFound when the parent is missing, AlreadyExists when `dir` holds anything). Every
// path must be a plain relative path (no "..", not absolute): InvalidArgument otherwise,
// before anything is written.
Status WriteBundle(const nlohmann::json& document, const std::string& dir);

}  // namespace aegis::controller
