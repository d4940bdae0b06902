#!/usr/bin/env bash
# Runs each libFuzzer target briefly from its seed corpus (copied, so the repo stays clean).
set -euo pipefail
build=$1
seconds=${2:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
targets=(line_fuzz json_fuzz scan_plan_fuzz controller_events_fuzz controller_job_fuzz controller_job_end_fuzz
         controller_host_state_fuzz controller_topology_fuzz controller_nesting_fuzz)
targets+=(agent_kmsg_fuzz agent_ccl_fuzz agent_sysfs_fuzz)
for t in "${targets[@]}"; do
  corpus=$(mktemp -d)
  cp "$root/fuzz/corpus/${t%_fuzz}/"* "$corpus/"
  echo "fuzz: $t for ${seconds}s"
  "$build/fuzz/$t" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=4096 -print_final_stats=0 \
    -artifact_prefix="$build/fuzz/" "$corpus" 2>&1 | tail -n 3
  rm -rf "$corpus"
done
echo "fuzz: ${#targets[@]} passed, 0 failed"
