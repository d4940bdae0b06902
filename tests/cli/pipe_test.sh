#!/usr/bin/env bash
# The front door under pipes (issue: `make demo` failed on a clean clone about half the
# time). 1. The demo script itself, several times in a row, so that a race shows.
# 2. `aegis` writing into a pipe that its reader closes early (`aegis ... | head`) ends
# quietly: no message on stderr, no core, status 0 or 141 (killed by SIGPIPE), also when
# the parent ignores SIGPIPE (the CLI restores the default action).
set -u
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; else echo "ok: $1"; fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build=$(dirname "$AEGIS")

# DEMO_RUNS: 5 in the release build; sanitizer builds, ten times slower, run it once.
for i in $(seq 1 "${DEMO_RUNS:-5}"); do
  bash "$DEMO" "$build" "$tmp/demo" >"$tmp/demo.out" 2>"$tmp/demo.err"; rc=$?
  check "demo run $i exits 0" '[ $rc -eq 0 ]'
  check "demo run $i prints every verdict" '[ "$(grep -c "^== aegis diagnose" "$tmp/demo.out")" -eq 8 ]'
  check "demo run $i: nothing on stderr" '[ ! -s "$tmp/demo.err" ]'
done

"$AEGIS_GEN" --scenario rootdiag --seed 3 --hosts 64 --out "$tmp/b" >/dev/null
# Enough output that the writer is still writing when `head` has gone.
python3 -c 'import sys; sys.stdout.write("NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.\n" * 100000)' >"$tmp/big.log"

quiet_close() {  # $1: label; rest: the command
  local label=$1; shift
  for i in 1 2 3; do
    ( "$@" 2>"$tmp/err" | head -1 >/dev/null; echo "${PIPESTATUS[0]}" >"$tmp/rc" )
    rc=$(cat "$tmp/rc")
    check "$label (run $i): status 0 or 141, got $rc" '[ "$rc" -eq 0 ] || [ "$rc" -eq 141 ]'
    check "$label (run $i): nothing on stderr" '[ ! -s "$tmp/err" ]'
  done
}
quiet_close "diagnose | head" "$AEGIS" diagnose "$tmp/b"
quiet_close "diagnose --json | head" "$AEGIS" diagnose "$tmp/b" --json
quiet_close "classify --json | head" "$AEGIS" classify --json "$tmp/big.log"
quiet_close "classify | head" "$AEGIS" classify "$tmp/big.log"
# The classify output is far larger than a pipe buffer: the close must have been seen.
( "$AEGIS" classify --json "$tmp/big.log" 2>"$tmp/err" | head -1 >/dev/null; echo "${PIPESTATUS[0]}" >"$tmp/rc" )
check "classify into a closed pipe is ended by SIGPIPE (141)" '[ "$(cat "$tmp/rc")" -eq 141 ]'
# A parent that ignores SIGPIPE (some CI runners and daemons do).
( trap '' PIPE; "$AEGIS" classify --json "$tmp/big.log" 2>"$tmp/err" | head -1 >/dev/null; echo "${PIPESTATUS[0]}" >"$tmp/rc" )
check "with SIGPIPE ignored by the parent: still 141" '[ "$(cat "$tmp/rc")" -eq 141 ]'
check "with SIGPIPE ignored by the parent: nothing on stderr" '[ ! -s "$tmp/err" ]'
ls core* >/dev/null 2>&1 && { echo "FAIL: a core file was written"; fail=1; }
exit $fail
