#!/usr/bin/env bash
# GPU check of the CCL probe, for a machine with NVIDIA GPUs, CUDA and NCCL: builds the
# probe and a small all-reduce program against the installed NCCL, runs it with
# NCCL_PROFILER_PLUGIN=aegis, and validates the snapshots it wrote (every rank launched
# and completed every all-reduce, GPU index known, durations measured on the GPU).
# Usage: tools/gpu-check.sh [BUILD_DIR]   (prints PASS or FAIL lines; exit 0 on PASS)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-gpu}
iters=${ITERS:-50}
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
cuda=${CUDA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")}
nccl_inc=""
for d in "${NCCL_HOME:-}/include" "$cuda/include" /usr/include /usr/local/include; do
  [ -f "$d/nccl.h" ] && { nccl_inc=$d; break; }
done
nccl_lib=""
for d in "${NCCL_HOME:-}/lib" "$cuda/lib" "$cuda/lib64" /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/local/lib; do
  [ -f "$d/libnccl.so.2" ] || [ -f "$d/libnccl.so" ] && { nccl_lib=$d; break; }
done
[ -n "$nccl_inc" ] && [ -n "$nccl_lib" ] || { echo "FAIL: nccl.h / libnccl not found"; exit 1; }
echo "NCCL: $(grep -E '#define NCCL_(MAJOR|MINOR|PATCH) ' "$nccl_inc/nccl.h" | awk '{print $3}' | paste -sd.) ($nccl_lib)"

# The probe alone (it needs no CUDA or NCCL to build).
mkdir -p "$build"
c++ -std=c++20 -O2 -fPIC -shared -fvisibility=hidden -I"$root/src" "$root"/src/probe/{plugin,comm_state,event_pool,writer}.cc \
  -o "$build/libnccl-profiler-aegis.so" -ldl -pthread -static-libstdc++ -static-libgcc
nvcc -O2 -I"$nccl_inc" "$root/tools/gpu-check/allreduce.cu" -L"$nccl_lib" -lnccl -o "$build/allreduce"

out=$(mktemp -d)
AEGIS_CCL_DIR="$out" AEGIS_CCL_INTERVAL_MS=200 AEGIS_CCL_SOCKET= NCCL_PROFILER_PLUGIN=aegis NCCL_DEBUG=${NCCL_DEBUG:-WARN} \
  LD_LIBRARY_PATH="$build:$nccl_lib:${LD_LIBRARY_PATH:-}" "$build/allreduce" "$iters"
python3 - "$out" "$iters" <<'PY'
import glob, json, sys
out, iters = sys.argv[1], int(sys.argv[2])
latest = {}
for f in glob.glob(out + "/*.jsonl"):
    for line in open(f):
        r = json.loads(line)
        k = (r["comm"], r["rank"])
        if k not in latest or latest[k]["ts"] <= r["ts"]:
            latest[k] = r
ok = bool(latest)
if not latest:
    print("FAIL: no snapshot written (was the plugin loaded? see NCCL_DEBUG=INFO)")
for (comm, rank), r in sorted(latest.items()):
    ar = r["coll"].get("AllReduce", {})
    tds = [c["td_us"] for c in r["recent"]]
    good = ar.get("launched") == iters and ar.get("completed") == iters and r["gpu"] is not None and len(tds) > 0
    ok &= good
    print(f"{'PASS' if good else 'FAIL'}: comm {comm} rank {rank}/{r['nranks']} gpu {r['gpu']}: "
          f"AllReduce launched {ar.get('launched')} completed {ar.get('completed')} (want {iters}); "
          f"recent {len(tds)} collectives, median td {sorted(tds)[len(tds)//2] if tds else None} us; net entries {len(r['net'])}")
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
