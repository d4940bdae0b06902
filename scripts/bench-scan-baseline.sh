#!/usr/bin/env bash
# Scanning speed of this build against an earlier revision's, on the same bytes: the
# revision is built (its aegis_core only, once, kept under BUILD/baseline-REV), a small
# driver (bench/scan_files.cc) is linked against each, and the two scan the benchmark's
# training and kernel logs in turns, so that a noisy neighbour slows both alike.
# Usage: scripts/bench-scan-baseline.sh BUILD [REV] (default REV: b1476fb, the revision
# whose figures were the scanning speed before the rule catalogue grew from 78 to 141 rules).
set -euo pipefail
build=$1
rev=${2:-b1476fb}
rounds=${BENCH_RUNS:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
if ! git -C "$root" rev-parse --verify -q "$rev^{commit}" >/dev/null; then
  echo "baseline: revision $rev is not in this checkout's history; skipped"
  exit 0
fi
base="$build/baseline-$rev"
if [ ! -f "$base/.built" ]; then
  rm -rf "$base"
  mkdir -p "$base/src"
  git -C "$root" archive "$rev" | tar -x -C "$base/src"
  cmake -S "$base/src" -B "$base/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$base/build" --target aegis_core >/dev/null
  touch "$base/.built"
fi
"${CXX:-c++}" -std=c++20 -O2 -I"$base/src/src" -isystem /usr/include/hs "$root/bench/scan_files.cc" \
  "$base/build/src/libaegis_core.a" -lhs -lre2 -lyaml-cpp -lfmt -lsimdjson -pthread -o "$base/scan_files"
logs="$build/bench/noise"
mkdir -p "$logs"
[ -f "$logs/kernel.log" ] || "$build/aegis_write_noise_logs" "$logs"
python3 - "$base/scan_files" "$build/aegis_scan_files" "$logs" "$rounds" "$rev" <<'PY'
import statistics, subprocess, sys
old, new, logs, rounds, rev = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
files = [f"{logs}/train.log", f"{logs}/kernel.log"]
got = {("old", f): [] for f in files} | {("new", f): [] for f in files}
for _ in range(rounds):
    for who, exe in (("old", old), ("new", new)):
        out = subprocess.run([exe, "3"] + files, check=True, capture_output=True, text=True).stdout
        for line in out.splitlines():
            f, mib = line.rsplit(" ", 1)
            got[(who, f)].append(float(mib))
for f in files:
    o, n = got[("old", f)], got[("new", f)]
    ratios = [b / a for a, b in zip(o, n)]
    print(f"{f.rsplit('/', 1)[1]:10s} {rev}: {statistics.median(o):5.0f} MiB/s ({min(o):.0f}-{max(o):.0f})   "
          f"this build: {statistics.median(n):5.0f} MiB/s ({min(n):.0f}-{max(n):.0f})   "
          f"ratio {statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})")
PY
