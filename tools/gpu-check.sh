#!/usr/bin/env bash
# GPU check of the CCL probe, for a machine with NVIDIA GPUs, CUDA and NCCL.
#  1. Builds the probe (it needs no CUDA or NCCL) and tools/gpu-check/allreduce.cu against
#     the installed NCCL.
#  2. Runs the NCCL job ROUNDS times without the plugin and ROUNDS times with it
#     (NCCL_PROFILER_PLUGIN=aegis, snapshots every AEGIS_CCL_INTERVAL_MS, default 100),
#     alternating, and prints per message size the median latency and bus bandwidth of
#     both side by side, with the plugin's overhead in percent. The job is an all-reduce
#     over every visible GPU; on a single GPU, a send/receive of the rank to itself (NCCL
#     copies a one-rank all-reduce without a collective, so the probe would see nothing).
#  3. Validates every snapshot the plugin runs wrote (gpu-check/validate_snapshots.py):
#     format v1, each rank launched and completed every operation, GPU index known,
#     durations measured, nothing left posted.
# Results go to BUILD_DIR/gpu-check/ (summary.json, runs/, snapshots/).
# Usage: tools/gpu-check.sh [--compile-only] [BUILD_DIR]
#   ITERS (50), WARMUP (5), MAX_BYTES (268435456), ROUNDS (3) override the defaults.
# Prints PASS or FAIL lines; exit 0 on PASS (with --compile-only: once both build).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
compile_only=0
if [ "${1:-}" = "--compile-only" ]; then compile_only=1; shift; fi
build=${1:-$root/build-gpu}
iters=${ITERS:-50} warmup=${WARMUP:-5} max_bytes=${MAX_BYTES:-268435456} rounds=${ROUNDS:-3}
out="$build/gpu-check"
mkdir -p "$out"

nvcc_bin=$(command -v nvcc || true)
[ -z "$nvcc_bin" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc_bin=/usr/local/cuda/bin/nvcc
[ -n "$nvcc_bin" ] || { echo "FAIL: nvcc not found (set PATH or CUDA_HOME)"; exit 1; }
cuda=${CUDA_HOME:-$(dirname "$(dirname "$(readlink -f "$nvcc_bin")")")}
nccl_inc="" nccl_lib=""
for d in "${NCCL_HOME:-/nonexistent}/include" "$cuda/include" /usr/include /usr/local/include; do
  [ -f "$d/nccl.h" ] && { nccl_inc=$d; break; }
done
for d in "${NCCL_HOME:-/nonexistent}/lib" "$cuda/lib" "$cuda/lib64" /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/local/lib; do
  { [ -f "$d/libnccl.so.2" ] || [ -f "$d/libnccl.so" ]; } && { nccl_lib=$d; break; }
done
[ -n "$nccl_inc" ] && [ -n "$nccl_lib" ] || { echo "FAIL: nccl.h / libnccl not found (set NCCL_HOME)"; exit 1; }
nccl_version=$(grep -E '#define NCCL_(MAJOR|MINOR|PATCH) ' "$nccl_inc/nccl.h" | awk '{print $3}' | paste -sd.)
echo "NCCL $nccl_version ($nccl_lib), CUDA $("$nvcc_bin" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')"

# 1. Build. The probe alone: its four sources, libstdc++ and libgcc linked in.
c++ -std=c++20 -O2 -fPIC -shared -fvisibility=hidden -Wall -Wextra -Werror -I"$root/src" \
  "$root"/src/probe/{plugin,comm_state,event_pool,writer}.cc -o "$build/libnccl-profiler-aegis.so" \
  -ldl -pthread -static-libstdc++ -static-libgcc -Wl,--no-undefined
"$nvcc_bin" -O2 -std=c++17 -I"$nccl_inc" "$root/tools/gpu-check/allreduce.cu" -L"$nccl_lib" -lnccl \
  -Xlinker -rpath="$nccl_lib" -o "$build/gpu-check-allreduce"
exported=$(nm -D --defined-only "$build/libnccl-profiler-aegis.so" | grep -c ' ncclProfiler_v[1-5]$' || true)
[ "$exported" = 5 ] || { echo "FAIL: the plugin exports $exported of ncclProfiler_v1..v5"; exit 1; }
echo "built: $build/libnccl-profiler-aegis.so (ncclProfiler_v1..v5), $build/gpu-check-allreduce"
if [ "$compile_only" = 1 ]; then echo "PASS: compile only"; exit 0; fi

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "FAIL: no GPU visible (nvidia-smi)"; exit 1
fi
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader

# 2. Runs, alternating, so that drift hits both sides alike.
rm -rf "$out/runs" "$out/snapshots"
mkdir -p "$out/runs" "$out/snapshots"
for round in $(seq 1 "$rounds"); do
  env -u NCCL_PROFILER_PLUGIN NCCL_DEBUG="${NCCL_DEBUG:-WARN}" LD_LIBRARY_PATH="$nccl_lib:${LD_LIBRARY_PATH:-}" \
    "$build/gpu-check-allreduce" "$iters" "$warmup" "$max_bytes" >"$out/runs/without-$round.jsonl"
  snap="$out/snapshots/round-$round"
  mkdir -p "$snap"
  AEGIS_CCL_DIR="$snap" AEGIS_CCL_INTERVAL_MS="${AEGIS_CCL_INTERVAL_MS:-100}" AEGIS_CCL_SOCKET= \
    NCCL_PROFILER_PLUGIN=aegis NCCL_DEBUG="${NCCL_DEBUG:-WARN}" LD_LIBRARY_PATH="$build:$nccl_lib:${LD_LIBRARY_PATH:-}" \
    "$build/gpu-check-allreduce" "$iters" "$warmup" "$max_bytes" >"$out/runs/with-$round.jsonl"
done

python3 - "$out" "$nccl_version" <<'PY'
import glob, json, statistics, sys
out, version = sys.argv[1], sys.argv[2]
def load(kind):
    rows, summary = {}, None
    for f in sorted(glob.glob(f"{out}/runs/{kind}-*.jsonl")):
        for line in open(f):
            r = json.loads(line)
            if r.get("summary"):
                summary = r
            else:
                rows.setdefault(int(r["bytes"]), []).append(r)
    return rows, summary
without, summary = load("without")
with_, _ = load("with")
print(f"{summary['op']} over {summary['ranks']} GPU(s), NCCL {version}; medians of {len(next(iter(without.values())))} runs")
print(f"{'bytes':>12} {'us without':>11} {'us with':>9} {'busbw without':>14} {'busbw with':>11} {'overhead':>9}")
table = []
for b in sorted(without):
    us0 = statistics.median(r["us"] for r in without[b]); us1 = statistics.median(r["us"] for r in with_[b])
    bw0 = statistics.median(r["busbw_gbs"] for r in without[b]); bw1 = statistics.median(r["busbw_gbs"] for r in with_[b])
    over = 100.0 * (us1 / us0 - 1.0)
    table.append({"bytes": b, "us_without": us0, "us_with": us1, "busbw_without_gbs": bw0, "busbw_with_gbs": bw1,
                  "overhead_pct": over})
    print(f"{b:>12} {us0:>11.2f} {us1:>9.2f} {bw0:>11.2f} GB/s {bw1:>7.2f} GB/s {over:>8.2f}%")
big = [t["overhead_pct"] for t in table if t["bytes"] >= 1 << 20]
if big:
    print(f"overhead at >= 1 MiB: median {statistics.median(big):.2f}% (max {max(big):.2f}%)")
json.dump({"nccl": version, "summary": summary, "table": table}, open(f"{out}/summary.json", "w"), indent=1)
open(f"{out}/expect.args", "w").write(
    " ".join(f"--expect {f}={summary['per_rank']}" for f in summary["funcs"]) + f" --ranks {summary['ranks']}")
PY

# 3. Snapshots: every plugin run, validated on its own.
ok=0
nccl_minor=$(echo "$nccl_version" | cut -d. -f2)
api=$(case "$nccl_minor" in 23) echo 1;; 24|25) echo 2;; 26) echo 3;; 27) echo 4;; *) echo 5;; esac)
for snap in "$out"/snapshots/round-*; do
  echo "== $(basename "$snap")"
  # shellcheck disable=SC2046
  python3 "$root/tools/gpu-check/validate_snapshots.py" "$snap" $(cat "$out/expect.args") --api "$api" --require-gpu || ok=1
done
echo "$([ $ok = 0 ] && echo PASS || echo FAIL): gpu-check ($out/summary.json)"
exit $ok
