#!/usr/bin/env bash
# make bench, part 2: the CCL probe's hot-path cost (bench/probe_bench.cc).
set -euo pipefail
build=${1:-build}
out="$build/bench"
mkdir -p "$out"
"$build/aegis_probe_bench" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_out="$out/probe.json" --benchmark_out_format=json | grep -E "median" || true
python3 - "$out/probe.json" <<'PY'
import json, sys
runs = {b["run_name"]: b for b in json.load(open(sys.argv[1]))["benchmarks"] if b.get("aggregate_name") == "median"}
for name, b in sorted(runs.items()):
    threads = b.get("threads", 1)
    per_thread_ns = b["real_time"] * threads  # real_time is per iteration across threads
    # One work request per NCCL step; a 512 KiB step at 400 Gb/s takes 10.5 us on the wire.
    step_ns = 512 * 1024 * 8 / 400e9 * 1e9
    print(f"{name}: {per_thread_ns:.1f} ns per sequence per thread; "
          f"{100 * per_thread_ns / step_ns:.2f}% of a 512 KiB step at 400 Gb/s")
PY

