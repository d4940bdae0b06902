#!/usr/bin/env bash
# `aegis agent` as an operator runs it: exit 2 with one line on stderr on bad usage, 0 after
# SIGTERM with its positions and queued events on disk, 1 when another agent holds the
# state directory.
set -u
AEGIS=$1
tmp=$(mktemp -d)
pid=0
trap 'if [ "$pid" -gt 0 ]; then kill "$pid" 2>/dev/null; fi; rm -rf "$tmp"' EXIT
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }
lines() { wc -l <"$1" | tr -d ' '; }

"$AEGIS" agent >/dev/null 2>"$tmp/err"; rc=$?
check "no --controller exits 2 with one line" '[ $rc -eq 2 ] && [ "$(lines "$tmp/err")" = 1 ] && grep -q -- --controller "$tmp/err"'
"$AEGIS" agent --controller http://127.0.0.1:8470 >/dev/null 2>"$tmp/err"; rc=$?
check "no --node exits 2" '[ $rc -eq 2 ] && [ "$(lines "$tmp/err")" = 1 ] && grep -q -- --node "$tmp/err"'
"$AEGIS" agent --controller ftp://x --node n >/dev/null 2>"$tmp/err"; rc=$?
check "a bad URL exits 2" '[ $rc -eq 2 ] && [ "$(lines "$tmp/err")" = 1 ]'
"$AEGIS" agent --controller http://127.0.0.1:8470 --node n --no-such-option >/dev/null 2>"$tmp/err"; rc=$?
check "an unknown option exits 2 with one line starting aegis:" '[ $rc -eq 2 ] && [ "$(lines "$tmp/err")" = 1 ] && grep -q "^aegis: " "$tmp/err"'
"$AEGIS" agent --controller http://127.0.0.1:8470 --node >/dev/null 2>"$tmp/err"; rc=$?
check "an option without its value exits 2" '[ $rc -eq 2 ] && [ "$(lines "$tmp/err")" = 1 ]'
"$AEGIS" agent --controller http://127.0.0.1:8470 --node n --token-file "$tmp/none" >/dev/null 2>"$tmp/err"; rc=$?
check "an unreadable token file exits 2" '[ $rc -eq 2 ] && [ "$(lines "$tmp/err")" = 1 ]'
"$AEGIS" agent --controller http://127.0.0.1:8470 --node n --metrics-listen nowhere >/dev/null 2>"$tmp/err"; rc=$?
check "a bad --metrics-listen exits 2" '[ $rc -eq 2 ]'
"$AEGIS" agent --help >"$tmp/out" 2>&1; rc=$?
check "--help exits 0 and lists the options" '[ $rc -eq 0 ] && grep -q -- --train-log "$tmp/out" && grep -q -- --state-dir "$tmp/out"'
"$AEGIS" --help >"$tmp/out" 2>&1
check "aegis --help lists agent" 'grep -q "agent" "$tmp/out"'

# A run: the controller is down (nothing listens on port 1), lines are classified and
# queued, SIGTERM stops it cleanly, the token never appears in its output.
mkdir -p "$tmp/logs"
echo "NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus." >"$tmp/logs/rank0.log"
echo "s3cret-token-value" >"$tmp/token"
"$AEGIS" agent --controller http://127.0.0.1:1 --node node-0007 --kernel-log none \
  --train-log "$tmp/logs/*.log" --ccl-socket "$tmp/ccl.sock" --facts none --state-dir "$tmp/state" \
  --metrics-listen 127.0.0.1:0 --token-file "$tmp/token" >"$tmp/run.out" 2>"$tmp/run.err" &
pid=$!
for _ in $(seq 50); do [ -s "$tmp/state/state.json" ] && grep -q emitted_through\":\ 1 "$tmp/state/state.json" 2>/dev/null && break; sleep 0.1; done
"$AEGIS" agent --controller http://127.0.0.1:1 --node node-0007 --kernel-log none --ccl-socket none \
  --state-dir "$tmp/state" --metrics-listen none >/dev/null 2>"$tmp/err2"; rc=$?
check "a second agent on the same state directory exits 1" '[ $rc -eq 1 ] && grep -q "another agent" "$tmp/err2"'
kill -TERM $pid; wait $pid; rc=$?
check "SIGTERM stops it with 0" '[ $rc -eq 0 ]'
check "the event waits in the queue" 'grep -q "xid-79" "$tmp"/state/queue/*.seg'
check "the position was persisted" 'grep -q "rank0.log" "$tmp/state/state.json"'
check "the socket file is removed" '[ ! -e "$tmp/ccl.sock" ]'
check "the token is never logged" '! grep -q s3cret "$tmp/run.err" "$tmp/run.out"'
pid=0
exit $fail
