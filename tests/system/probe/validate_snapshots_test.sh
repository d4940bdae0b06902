#!/usr/bin/env bash
# tools/gpu-check/validate_snapshots.py on snapshots the probe really wrote (through the
# harness, tests/system/probe/probe_driver.cc): it passes what is right and fails what is not.
# Usage: validate_snapshots_test.sh PROBE_DRIVER PLUGIN_SO VALIDATOR
set -u
driver=$1 plugin=$2 validator=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
expect() {  # expect pass|fail DESCRIPTION ARGS...
  local want=$1 what=$2
  shift 2
  if python3 "$validator" "$@" >"$tmp/out" 2>&1; then got=pass; else got=fail; fi
  if [ "$got" != "$want" ]; then
    echo "WRONG: $what: validator said $got, expected $want"
    cat "$tmp/out"
    fail=1
  else
    echo "ok: $what ($got)"
  fi
}
run() {  # run DIR API ITERS
  mkdir -p "$1"
  env AEGIS_CCL_DIR="$1" AEGIS_CCL_INTERVAL_MS=10 AEGIS_CCL_SOCKET= "$driver" "$plugin" "$3" 3 0 1 "$2" 2 >/dev/null
}
run "$tmp/v5" 5 12
run "$tmp/v2" 2 9
expect pass "a healthy run (API v5)" "$tmp/v5" --expect AllReduce=12 --ranks 4 --api 5
expect pass "a healthy run (API v2)" "$tmp/v2" --expect AllReduce=9 --ranks 4 --api 2
expect fail "a count that is not the run's" "$tmp/v5" --expect AllReduce=13 --ranks 4
expect fail "another rank count" "$tmp/v5" --expect AllReduce=12 --ranks 8
expect fail "another API version" "$tmp/v2" --expect AllReduce=9 --api 5
expect fail "no GPU index (none here)" "$tmp/v5" --expect AllReduce=12 --require-gpu
expect fail "an empty directory" "$tmp/none"
cp -r "$tmp/v5" "$tmp/bad-line" && echo '{"v": 2, "comm": "x"}' >>"$(ls "$tmp"/bad-line/*.jsonl | head -1)"
expect fail "a record of another format" "$tmp/bad-line" --expect AllReduce=12
cp -r "$tmp/v5" "$tmp/back" && f=$(ls "$tmp"/back/*.jsonl | head -1) &&
  head -1 "$f" | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); r["ts"]+=100; r["coll"]["AllReduce"]["launched"]=0; print(json.dumps(r))' >>"$f"
expect fail "a counter that goes back" "$tmp/back"
cp -r "$tmp/v5" "$tmp/stuck" && f=$(ls "$tmp"/stuck/*.jsonl | head -1) &&
  tail -1 "$f" | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); r["ts"]+=100; r["net"][0]["posted"]+=1; print(json.dumps(r))' >>"$f"
expect fail "a request posted and never completed" "$tmp/stuck" --expect AllReduce=12
exit $fail
