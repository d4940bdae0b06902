#!/usr/bin/env bash
# Runs each libFuzzer target briefly from its seed corpus (copied, so the repo stays clean).
set -euo pipefail
build=$1
seconds=${2:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
for t in line_fuzz json_fuzz; do
  corpus=$(mktemp -d)
  cp "$root/fuzz/corpus/${t%_fuzz}/"* "$corpus/"
  echo "fuzz: $t for ${seconds}s"
  "$build/fuzz/$t" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=4096 -print_final_stats=0 \
    -artifact_prefix="$build/fuzz/" "$corpus" 2>&1 | tail -n 3
  rm -rf "$corpus"
done
echo "fuzz: 2 passed, 0 failed"
