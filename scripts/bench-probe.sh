#!/usr/bin/env bash
# make bench, part 2: the CCL probe's cost on NCCL's hot path (bench/probe_bench.cc).
#  1. One proxy-step start / state / stop sequence with 1, 2 and 4 threads on one
#     communicator (and through each older API version; and a send and a receive with
#     every state NCCL 2.28 reports): real and CPU time, median and min-max of REPS
#     repetitions, and the share of a 512 KiB step at 400 Gb/s.
#  2. perf stat over a fixed number of sequences: cycles, instructions, cache misses per
#     sequence (hardware counters are often missing in VMs: then it says so and reports
#     the software counters it has).
#  3. callgrind: instructions per sequence (the difference of two fixed-count runs, so
#     set-up is not counted), in all and in the plugin alone: the repeatable figure.
#  4. NCCL's real event rate (a 10,240-rank job's proxy thread, 400 Gb/s of 512 KiB steps
#     each way) with the snapshot writer every 100 ms, every 1 s, and idle, interleaved:
#     the hot path's cost there, and the writer's own CPU share.
# Usage: scripts/bench-probe.sh [BUILD_DIR]  (REPS, LINE_RATE_SECONDS, LINE_RATE_ROUNDS override the defaults)
set -euo pipefail
build=${1:-build}
out="$build/bench"
reps=${REPS:-5}
secs=${LINE_RATE_SECONDS:-5}
rounds=${LINE_RATE_ROUNDS:-2}
bin="$build/aegis_probe_bench"
mkdir -p "$out"
export AEGIS_CCL_DIR="$out/probe-ccl" AEGIS_CCL_SOCKET=
rm -rf "$AEGIS_CCL_DIR"

echo "-- 1. one sequence, Google Benchmark, $reps repetitions"
AEGIS_CCL_INTERVAL_MS=1000 "$bin" --benchmark_repetitions="$reps" --benchmark_filter='BM_ProxyStep(Sequence(_v[1-4])?|NcclSend|NcclRecv)/' \
  --benchmark_out="$out/probe.json" --benchmark_out_format=json >/dev/null 2>"$out/probe-context.txt"
grep -E "^(Run on|Load Average)" "$out/probe-context.txt" || true
python3 - "$out/probe.json" <<'PY'
import json, statistics, sys
runs = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b.get("run_type") != "iteration":
        continue
    t = b.get("threads", 1)
    # real_time and cpu_time are per iteration over all threads' iterations: one thread's
    # sequence takes real_time * threads of wall time; cpu_time is CPU per sequence.
    runs.setdefault(b["run_name"], []).append((b["real_time"] * t, b["cpu_time"], t))
step_ns = 512 * 1024 * 8 / 400e9 * 1e9  # 10.5 us on the wire
for name, rs in runs.items():
    real = sorted(r[0] for r in rs); cpu = sorted(r[1] for r in rs)
    mr, mc = statistics.median(real), statistics.median(cpu)
    print(f"{name}: real {mr:.1f} ns per sequence per thread (min {real[0]:.1f}, max {real[-1]:.1f}), "
          f"CPU {mc:.1f} ns (min {cpu[0]:.1f}, max {cpu[-1]:.1f}); CPU = {100 * mc / step_ns:.3f}% of a 512 KiB step at 400 Gb/s")
PY

seqs=2000000
echo "-- 2. perf stat, $seqs sequences, one thread"
if command -v perf >/dev/null; then
  perf_out=$(AEGIS_PROBE_BENCH_SEQUENCES=$seqs perf stat -x, -e cycles,instructions,cache-misses,task-clock,context-switches \
    "$bin" --benchmark_filter='^BM_ProxyStepSequenceFixed/' 2>&1 >/dev/null || true)
  python3 - "$seqs" "$perf_out" <<'PY'
import sys
n = int(sys.argv[1])
for line in sys.argv[2].splitlines():
    f = line.split(",")
    if len(f) < 3 or not f[2]:
        continue
    value, event = f[0], f[2]
    if not value.startswith("<not"):
        try:
            float(value)
        except ValueError:
            continue  # the benchmark's own output
    if value.startswith("<not"):
        print(f"{event}: {value.strip('<>')} here (no hardware counters in this VM)")
    else:
        v, unit = float(value), f[1]
        if unit == "msec":  # task-clock
            print(f"{event}: {v * 1e6 / n:.1f} ns per sequence (whole run: {v:.0f} ms; set-up included)")
        else:
            print(f"{event}: {v / n:.3f} per sequence (whole run: {v:.0f}; set-up included)")
PY
else
  echo "perf not installed: skipped"
fi

echo "-- 3. callgrind, instructions per sequence"
if command -v valgrind >/dev/null; then
  # Whole program, and the plugin's own functions (what NCCL's thread runs in the probe).
  ir() {
    AEGIS_PROBE_BENCH_SEQUENCES=$2 valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.$1.$2" \
      "$bin" --benchmark_filter="^$1/" >/dev/null 2>&1
    callgrind_annotate --threshold=100 "$out/callgrind.$1.$2" 2>/dev/null | awk '
      /PROGRAM TOTALS/ { gsub(",", "", $1); total = $1 }
      /libnccl-profiler-aegis\.so\]$/ { gsub(",", "", $1); plugin += $1 }
      END { print total + 0, plugin + 0 }'
  }
  for b in BM_ProxyStepSequenceFixed BM_ProxyStepNcclSendFixed BM_ProxyStepNcclRecvFixed BM_ProxyStepSequenceFixed_v1; do
    python3 -c "
import sys
n, b = 200000, sys.argv[1]
(a, pa), (c, pc) = [tuple(map(int, x.split())) for x in sys.argv[2:4]]
print(f'{b}: {(c - a) / n:.1f} instructions per sequence, {(pc - pa) / n:.1f} of them in the plugin (400,000 vs 200,000 sequences)')
" "$b" "$(ir "$b" 200000)" "$(ir "$b" 400000)"
  done
else
  echo "valgrind not installed: skipped"
fi

echo "-- 4. NCCL's event rate: 10,240 ranks, 2 x 95,367 requests/s, $secs s per run, $rounds rounds interleaved"
: >"$out/probe-line-rate.jsonl"
for round in $(seq 1 "$rounds"); do
  for interval in 3600000 100 1000; do
    AEGIS_CCL_INTERVAL_MS=$interval "$bin" --line-rate "$secs" >>"$out/probe-line-rate.jsonl"
  done
done
python3 - "$out/probe-line-rate.jsonl" <<'PY'
import json, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    runs.setdefault(r["interval_ms"], []).append(r)
med = lambda rs, k: statistics.median(r[k] for r in rs)
for interval in sorted(runs, key=lambda i: -i):
    rs = runs[interval]
    writer = "writer idle     " if interval >= 3600000 else "writer %6.0f ms" % interval
    p50 = [r["seq_ns_p50"] for r in rs]
    print(f"{writer}: {med(rs, 'steps_per_s'):.0f} requests/s; per sequence p50 {med(rs, 'seq_ns_p50'):.1f} ns "
          f"(runs {min(p50):.1f}-{max(p50):.1f}), p99 {med(rs, 'seq_ns_p99'):.1f}, mean {med(rs, 'seq_ns_mean'):.1f}; "
          f"probe = {med(rs, 'probe_share_of_proxy_pct'):.3f}% of the proxy thread's time; "
          f"writer CPU {med(rs, 'writer_cpu_pct'):.4f}% of a core ({med(rs, 'writer_us_per_snapshot'):.0f} us per snapshot)")
PY
