#!/usr/bin/env bash
# make bench: the performance figures quoted in the README.
#  1. Log scanning throughput on one core (Google Benchmark, bench/scan_bench.cc), and the
#     same logs scanned by this build and by revision b1476fb in turns (before the catalogue grew).
#  2. The CCL probe's cost per proxy-step sequence, 1 / 2 / 4 threads (scripts/bench-probe.sh).
#  3. A generated 1,250-host x 8-GPU bundle (>= 1 GB of logs): `aegis diagnose` wall time
#     against `cat` and ripgrep on the same files, interleaved (medians and ranges), and
#     its peak memory; beside it the same bundle with a log storm (NCCL's
#     NCCL_IB_TIMEOUT INFO line 350,000 times over the training logs, one host's kernel log
#     with 800,000 Xid 95 lines), against `cat` of its own files, in the same rounds.
#  4. CCL analysis of 10,000 GPUs; 5. metric analysis of 1,250 hosts.
#  6. The controller with 1,250 simulated agents: ingest rate, verdict latency, re-deciding
#     a live 1,250-host incident.  7. The node agent at steady state: CPU share and RSS.
#  8. The store's append rate: SQLite (FULL, NORMAL) and PostgreSQL (a server of its own).
set -euo pipefail
build=${1:-build}
out="$build/bench"
mkdir -p "$out"
runs=${BENCH_RUNS:-5}

echo "== 1. scanning throughput, one core"
"$build/aegis_bench" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_out="$out/scan.json" --benchmark_out_format=json | grep -E "median|^BM_ParseLinePrefix" || true

echo "== 1b. scanning the same logs: revision b1476fb (78 rules) against this build, one core, interleaved"
scripts/bench-scan-baseline.sh "$build" b1476fb

echo "== 2. CCL probe cost"
scripts/bench-probe.sh "$build"

echo "== 3. 1,250 hosts x 8 GPUs, and the same with a log storm"
big="$out/big-1250"
storm="$out/storm-1250"
gen_big=("$build/aegis-gen" --scenario rootdiag --seed 11 --hosts 1250 --gpus 8 --total-mb 1100 --keep-files)
if [ ! -f "$big/.complete" ]; then
  rm -rf "$big"
  "${gen_big[@]}" --out "$big"
  touch "$big/.complete"
fi
if [ ! -f "$storm/.complete" ]; then
  rm -rf "$storm"
  "${gen_big[@]}" --storm-hint 350000 --storm-xid 800000 --out "$storm"
  touch "$storm/.complete"
fi
python3 - "$build/aegis" "$big" "$storm" "$runs" "$out/big.json" "$out/storm.json" <<'PY'
import json, os, resource, statistics, subprocess, sys, time
aegis, big, storm, runs, out, storm_out = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6]
def logs(bundle):
    files = []
    for root, _, names in os.walk(bundle):
        files += [os.path.join(root, n) for n in names if n.endswith(".log")]
    return sorted(files)
files, storm_files = logs(big), logs(storm)
size, storm_size = (sum(os.path.getsize(f) for f in fs) for fs in (files, storm_files))
def timed(cmd, **kw):
    t = time.perf_counter(); subprocess.run(cmd, check=True, **kw); return time.perf_counter() - t
def diagnose(bundle, verdict_path):
    # Peak memory of this child alone: a fresh process per run reports its own maximum.
    t = time.perf_counter()
    p = subprocess.Popen([aegis, "diagnose", bundle, "--json"], stdout=open(verdict_path, "w"))
    _, status, usage = os.wait4(p.pid, 0)
    elapsed = time.perf_counter() - t
    if status != 0: raise SystemExit(f"aegis diagnose {bundle} failed ({status})")
    return elapsed, usage.ru_maxrss
cat_cmd, storm_cat_cmd = ["cat"] + files, ["cat"] + storm_files
# ripgrep counting matches of the same rule patterns, on as many threads as aegis uses.
patterns = out + ".patterns"
with open(patterns, "w") as f:
    subprocess.run([os.path.join(os.path.dirname(aegis), "aegis_rule_patterns")], check=True, stdout=f)
rg_cmd = ["rg", "--no-config", "-c", "-f", patterns, "--threads", str(os.cpu_count())] + files
timed(cat_cmd, stdout=subprocess.DEVNULL)  # warm the page cache
timed(storm_cat_cmd, stdout=subprocess.DEVNULL)
# Interleaved, so that a noisy neighbour slows all of them alike; medians and spread reported.
cat, diag, rg, rss = [], [], [], []
scat, sdiag, srss = [], [], []
for _ in range(runs):
    cat.append(timed(cat_cmd, stdout=subprocess.DEVNULL))
    d, m = diagnose(big, out + ".verdict"); diag.append(d); rss.append(m)
    scat.append(timed(storm_cat_cmd, stdout=subprocess.DEVNULL))
    d, m = diagnose(storm, storm_out + ".verdict"); sdiag.append(d); srss.append(m)
    t = time.perf_counter(); subprocess.run(rg_cmd, stdout=subprocess.DEVNULL); rg.append(time.perf_counter() - t)
def right(bundle, verdict_path):
    verdict = json.load(open(verdict_path))
    expected = json.load(open(os.path.join(bundle, "expected.json")))
    return verdict["isolate"] == expected["isolate"] and verdict["stage"] == expected["stage"]
def summary(c, d, r, nbytes, nfiles, correct):
    return {
        "files": nfiles, "bytes": nbytes,
        "cat_median_s": statistics.median(c), "diagnose_median_s": statistics.median(d),
        "cat_range_s": [min(c), max(c)], "diagnose_range_s": [min(d), max(d)],
        "ratio": statistics.median(d) / statistics.median(c),
        "ratio_range": [min(x / y for x, y in zip(d, c)), max(x / y for x, y in zip(d, c))],
        "diagnose_mb_per_s": nbytes / 1e6 / statistics.median(d),
        "peak_rss_mb": max(r) / 1024.0,
        "verdict_correct": correct,
    }
res = summary(cat, diag, rss, size, len(files), right(big, out + ".verdict"))
res["rg_median_s"] = statistics.median(rg)
res["diagnose_vs_rg"] = statistics.median(diag) / statistics.median(rg)
sres = summary(scat, sdiag, srss, storm_size, len(storm_files), right(storm, storm_out + ".verdict"))
sverdict = json.load(open(storm_out + ".verdict"))
sres["storm"] = json.load(open(os.path.join(storm, "expected.json")))["storm"]
sres["storm_counts_shown"] = [e.get("count", 1) for e in sverdict.get("history", []) if e["rule"] == "xid-95"]
json.dump(res, open(out, "w"), indent=2)
json.dump(sres, open(storm_out, "w"), indent=2)
def report(name, r):
    print(f"{name}: {r['files']} files, {r['bytes']/1e9:.2f} GB")
    print(f"  cat (median of {runs}):      {r['cat_median_s']:.2f} s  (range {r['cat_range_s'][0]:.2f}-{r['cat_range_s'][1]:.2f})")
    print(f"  diagnose (median of {runs}): {r['diagnose_median_s']:.2f} s  (range {r['diagnose_range_s'][0]:.2f}-"
          f"{r['diagnose_range_s'][1]:.2f}) = {r['ratio']:.2f}x cat (per-run ratios {r['ratio_range'][0]:.2f}-"
          f"{r['ratio_range'][1]:.2f}), {r['diagnose_mb_per_s']:.0f} MB/s")
    print(f"  peak memory:             {r['peak_rss_mb']:.0f} MB")
    print(f"  verdict matches the generated fault: {r['verdict_correct']}")
report("plain bundle", res)
print(f"  ripgrep -c with the {sum(1 for _ in open(patterns))} rule patterns (median of {runs}): {res['rg_median_s']:.2f} s; "
      f"diagnose takes {res['diagnose_vs_rg']:.2f}x the time ripgrep needs only to count them")
report(f"storm bundle ({sres['storm']['hint_lines']} NCCL INFO lines, {sres['storm']['xid_lines']} Xid 95 lines on "
       f"{sres['storm']['xid_host']})", sres)
print(f"  the Xid storm in the verdict's history, counted: {sres['storm_counts_shown']}")
PY

echo "== 4. CCL analysis: 10,000 GPUs, each in a TP, a DP and a PP communicator (3 snapshots each)"
ccl="$out/ccl-10k"
if [ ! -f "$ccl/.complete" ]; then
  rm -rf "$ccl"
  "$build/aegis-gen" --scenario compute_hang --seed 5 --hosts 1250 --gpus 8 --kernel-bytes 100 --train-bytes 100 \
    --keep-files --out "$ccl" >/dev/null
  find "$ccl/nodes" -name '*.log' -delete  # the counters alone
  touch "$ccl/.complete"
fi
python3 - "$build/aegis" "$ccl" "$runs" "$out/ccl.json" <<'PY'
import json, os, resource, statistics, subprocess, sys, time
aegis, ccl, runs, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
files = [os.path.join(r, n) for r, _, ns in os.walk(ccl) for n in ns if n.endswith(".jsonl")]
size = sum(os.path.getsize(f) for f in files)
lines = sum(1 for f in files for _ in open(f))
times = []
for _ in range(runs):
    t = time.perf_counter()
    v = json.loads(subprocess.run([aegis, "diagnose", ccl, "--json"], check=True, capture_output=True).stdout)
    times.append(time.perf_counter() - t)
exp = json.load(open(os.path.join(ccl, "expected.json")))
res = {"files": len(files), "records": lines, "bytes": size, "median_s": statistics.median(times),
       "peak_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0,
       "verdict_correct": v["isolate"] == exp["isolate"] and v["stage"] == exp["stage"]}
json.dump(res, open(out, "w"), indent=2)
print(f"{len(files)} snapshot files, {lines} records, {size/1e6:.0f} MB")
print(f"aegis diagnose (parse + verdict, whole process), median of {runs}: {res['median_s']:.2f} s; peak {res['peak_rss_mb']:.0f} MB")
print(f"verdict matches the generated fault: {res['verdict_correct']}")
PY

echo "== 5. metric analysis: 1,250 hosts x 25 metrics, 8 series per host, 10 minutes at 15 s"
"$build/aegis_metrics_bench" --benchmark_out="$out/metrics.json" --benchmark_out_format=json | grep -E "^BM_" || true

echo "== 6. controller: 1,250 simulated agents over HTTP"
"$build/aegis_controller_bench"

echo "== 7. node agent at steady state (${AGENT_BENCH_SECONDS:-60} s)"
"$build/aegis_agent_bench" "${AGENT_BENCH_SECONDS:-60}" 20

echo "== 8. store: events appended per second"
"$build/tests/store/store_bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_out="$out/store.json" --benchmark_out_format=json | grep -E "median|^BM_" || true
