#!/usr/bin/env bash
# The live system's commands as users run them: aegis controller (a real process on a free
# loopback port, plain HTTP and HTTPS), aegis jobs start|end, aegis status [--json],
# aegis incidents export [--redact], aegis diagnose on the export, aegis hosts return|set,
# aegis tokens create|list|revoke with a reload by SIGHUP.
# Exit codes: 0 on success, 2 with one line on stderr on bad usage or an unreachable
# controller.
set -uo pipefail
: "${AEGIS:?}" "${AEGIS_GEN:?}"
dir=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$dir"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# expect_exit CODE CMD...: runs CMD, checks its exit code and that a failure says one line.
expect_exit() {
  local want=$1; shift
  "$@" >"$dir/out" 2>"$dir/err"; local got=$?
  [ "$got" = "$want" ] || fail "exit $got (wanted $want): $* -- $(cat "$dir/err")"
  if [ "$want" != 0 ]; then [ "$(wc -l <"$dir/err")" = 1 ] || fail "stderr is not one line: $(cat "$dir/err")"; fi
}

start_controller() {  # start_controller LOG ARGS...: sets $url
  local log=$1; shift
  "$AEGIS" controller --listen 127.0.0.1:0 "$@" >"$log" 2>"$log.err" &
  pids+=($!)
  for _ in $(seq 100); do
    url=$(sed -n 's/^aegis controller: listening on \([^ ]*\) .*/\1/p' "$log")
    [ -n "$url" ] && return 0
    sleep 0.1
  done
  fail "controller did not start: $(cat "$log.err")"
}

"$AEGIS_GEN" --scenario xid79 --seed 4 --hosts 4 --out "$dir/gen" >/dev/null || fail "aegis-gen"
echo "cli-test-token-0123456789" >"$dir/token"
chmod 600 "$dir/token"  # a token file others may read is refused
start_controller "$dir/ctl.log" --db "sqlite:$dir/aegis.db" --topology "$dir/gen/topology.json" --settle 0 \
  --max-isolate-share 1 --token-file "$dir/token"
c=(--controller "$url" --token-file "$dir/token")

# A job that started ten minutes ago, and the Xid 79 an agent reports from node-0002's kernel log.
now=$(date +%s)
jq --arg s "$(date -u -d @$((now - 600)) +%FT%TZ)" \
  '.state = "running" | .started_at = $s | del(.ended_at) | .user = "alice" | .name = "alice-llm-finetune"' \
  "$dir/gen/job.json" >"$dir/job.json"
job=$(jq -r .id "$dir/job.json")
pci=$(jq -r '.nodes[] | select(.host == "node-0002") | .gpus[3].pci' "$dir/gen/topology.json" | cut -d. -f1)
expect_exit 0 "$AEGIS" jobs start "${c[@]}" --job "$dir/job.json"
[ "$(jq -r .created "$dir/out")" = true ] || fail "jobs start: $(cat "$dir/out")"
text="NVRM: Xid (PCI:$pci): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
jq -n --arg pci "$pci" --arg text "$text" --argjson ts $((now - 60)) '{node: "node-0002", agent: "a1", events: [
  {id: "k1", type: "log", source: "kernel", file: "nodes/node-0002/kernel.log", line: 7, ts: $ts, ts_exact: true,
   ts_zoned: true, rule: "xid-79", class: "critical", component: "gpu", xid: 79, fields: {pci: $pci, xid: "79"}, text: $text}]}' \
  >"$dir/events.json"
code=$(curl -s -o "$dir/post" -w '%{http_code}' -H "Authorization: Bearer $(cat "$dir/token")" \
  -H 'Content-Type: application/json' --data-binary @"$dir/events.json" "$url/api/v1/events")
[ "$code" = 200 ] && [ "$(jq .accepted "$dir/post")" = 1 ] || fail "posting events: $code $(cat "$dir/post")"
[ "$(jq -r .scope.job "$dir/post")" = "$job" ] || fail "the answer's scope: $(cat "$dir/post")"

# A critical error of a running job: decided at once, while the job runs.
for _ in $(seq 100); do
  "$AEGIS" status "${c[@]}" --json >"$dir/status.json" || fail "status --json"
  [ "$(jq -r '.incidents[0].decided_at' "$dir/status.json")" != null ] && break
  sleep 0.1
done
early=$(jq -r '.incidents[0].id' "$dir/status.json")
[ "$(jq -r '.incidents[0].verdict.stage' "$dir/status.json")" = critical_error ] || fail "no early incident: $(cat "$dir/status.json")"

expect_exit 0 "$AEGIS" jobs end "${c[@]}" --job "$job" --state failed
inc=$(jq -r .incident "$dir/out")
[ -n "$inc" ] && [ "$inc" != null ] && [ "$inc" != "$early" ] || fail "jobs end opened no incident: $(cat "$dir/out")"
for _ in $(seq 100); do
  "$AEGIS" status "${c[@]}" --json >"$dir/status.json" || fail "status --json"
  [ "$(jq -r --arg i "$inc" '.incidents[] | select(.id == $i) | .decided_at' "$dir/status.json")" != null ] && break
  sleep 0.1
done
# status --json: exactly the documented shape.
[ "$(jq -c 'keys_unsorted' "$dir/status.json")" = '["hosts","incidents"]' ] || fail "status keys"
[ "$(jq -c '.hosts[0] | keys_unsorted' "$dir/status.json")" = '["host","state","since","incident","reason"]' ] || fail "host keys"
[ "$(jq -c '.incidents[0] | keys_unsorted' "$dir/status.json")" = '["id","job","opened_at","decided_at","verdict","actions"]' ] ||
  fail "incident keys"
[ "$(jq -c --arg i "$early" '.incidents[] | select(.id == $i) | .actions[0] | keys_unsorted' "$dir/status.json")" = \
  '["host","do","backend","dry_run","at","result"]' ] || fail "action keys"
# The host was isolated by the early incident; the job's end names it again, drains nothing twice.
[ "$(jq -r '.hosts[] | select(.host == "node-0002") | "\(.state) \(.incident) \(.reason)"' "$dir/status.json")" = \
  "isolated $early Xid 79 on gpu3" ] || fail "node-0002: $(jq -c .hosts "$dir/status.json")"
[ "$(jq -r --arg i "$inc" '.incidents[] | select(.id == $i) | "\(.verdict.action) \(.verdict.isolate[0].host) \(.actions | length)"' \
  "$dir/status.json")" = "isolate node-0002 0" ] || fail "verdict"
[ "$(jq -r --arg i "$early" '.incidents[] | select(.id == $i) | .actions[0] | "\(.do) \(.backend) \(.dry_run) \(.result)"' \
  "$dir/status.json")" = "drain none false recorded" ] || fail "action"
jq -e '.hosts[0].since | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$")' "$dir/status.json" >/dev/null ||
  fail "time format"
expect_exit 0 "$AEGIS" status "${c[@]}"
grep -q "node-0002 *isolated" "$dir/out" || fail "status for a person: $(cat "$dir/out")"

# The export reaches the same verdict.
expect_exit 0 "$AEGIS" incidents export "${c[@]}" "$inc" --out "$dir/export"
expect_exit 0 "$AEGIS" diagnose "$dir/export" --json
[ "$(jq -r '"\(.action) \(.isolate[0].host) \(.isolate[0].device) \(.evidence[0].line)"' "$dir/out")" = \
  "isolate node-0002 gpu3 7" ] || fail "diagnose of the export: $(cat "$dir/out")"
expect_exit 0 "$AEGIS" incidents export "${c[@]}" "$inc" --out "$dir/redacted" --redact
# Redacted: the same verdict, its host by pseudonym, and nothing of the originals in any
# file or path: host and switch names, addresses, the job's id, user and name.
expect_exit 0 "$AEGIS" diagnose "$dir/redacted" --json
isolated=$(jq -r .isolate[0].host "$dir/out")
[ "$(jq -r '"\(.action) \(.isolate[0].device) \(.evidence[0].line)"' "$dir/out")" = "isolate gpu3 7" ] &&
  [[ "$isolated" =~ ^host-[0-9]+$ ]] && [ -d "$dir/redacted/nodes/$isolated" ] ||
  fail "diagnose of the redacted export: $(cat "$dir/out")"
jq -e --arg h "$isolated" '[.nodes[].host] | index($h)' "$dir/redacted/topology.json" >/dev/null ||
  fail "the redacted topology has no $isolated"
grep -rq "name=<unknown>" "$dir/redacted" && fail "redaction kept text outside the match"
originals=$(jq -r '.nodes[] | .host, .mgmt_ip, (.nics[] | .ip, .switch), (.gpus[] | .uuid)' "$dir/gen/topology.json"
            jq -r '.id, .user, .name' "$dir/job.json")
[ "$(wc -l <<<"$originals")" -gt 8 ] || fail "no identifiers to look for"
grep -rqwF node-0002 "$dir/export" || fail "the search finds nothing even where it must"
while read -r id; do
  grep -rqwF -- "$id" "$dir/redacted" && fail "the redacted export holds $id: $(grep -rlwF -- "$id" "$dir/redacted")"
  find "$dir/redacted" -name "*$id*" | grep -q . && fail "a redacted file's path holds $id"
done <<<"$originals"

# A person returns the host, or sets a state.
expect_exit 0 "$AEGIS" hosts return "${c[@]}" --host node-0002 --reason "GPU replaced"
[ "$(jq -r '"\(.state) \(.changed) \(.reason)"' "$dir/out")" = "in_service true GPU replaced" ] || fail "hosts return: $(cat "$dir/out")"
expect_exit 0 "$AEGIS" hosts set "${c[@]}" --host node-0003 --state held --reason "firmware update"
[ "$(jq -r .state "$dir/out")" = held ] || fail "hosts set: $(cat "$dir/out")"
expect_exit 2 "$AEGIS" hosts set "${c[@]}" --host node-0003 --state exploded
# A reason is free text, but it cannot forge a line of `aegis status` or drive the terminal.
expect_exit 0 "$AEGIS" hosts set "${c[@]}" --host node-0003 --state repair --reason $'update\n  node-0001  in_service  \e[2Jforged'
expect_exit 0 "$AEGIS" status "${c[@]}"
grep -q "^  node-0001  in_service" "$dir/out" && fail "a reason forged a status line: $(cat "$dir/out")"
grep -q $'\e' "$dir/out" && fail "an escape sequence reached the terminal"
grep -q "forged" "$dir/out" || fail "the reason is not shown: $(cat "$dir/out")"
grep -q "^Agents: [0-9]* reporting, [0-9]* silent" "$dir/out" || fail "status names no agents: $(cat "$dir/out")"
expect_exit 2 "$AEGIS" hosts return "${c[@]}" --host no-such-host

# Bad usage and unreachable controllers: 2 and one line.
expect_exit 2 "$AEGIS" status
expect_exit 2 "$AEGIS" status --controller http://127.0.0.1:1 --json
grep -q "connection refused" "$dir/err" || fail "a refused connection in words: $(cat "$dir/err")"
expect_exit 2 "$AEGIS" status --controller "not a url"
expect_exit 2 "$AEGIS" jobs end "${c[@]}" --job "$job" --state exploded
expect_exit 2 "$AEGIS" jobs end "${c[@]}" --job no-such-job --state failed
expect_exit 2 "$AEGIS" jobs start "${c[@]}" --job "$dir/missing.json"
expect_exit 2 "$AEGIS" incidents export "${c[@]}" inc-999 --out "$dir/none"
expect_exit 2 "$AEGIS" incidents export "${c[@]}" "$inc" --out "$dir/no/such/dir"   # a mistyped path is not made
[ -e "$dir/no" ] && fail "export made a missing parent"
expect_exit 2 "$AEGIS" incidents export "${c[@]}" "$inc" --out "$dir/export"        # nor written over another
expect_exit 2 "$AEGIS" status --controller "$url" --json                   # no token
AEGIS_TOKEN=$(cat "$dir/token") expect_exit 0 "$AEGIS" status --controller "$url" --json
expect_exit 2 "$AEGIS" controller --listen 127.0.0.1:99999 --db "sqlite:$dir/x.db"
expect_exit 2 "$AEGIS" controller --listen 0.0.0.0:0 --db "sqlite:$dir/x.db"  # no tokens on an open address
expect_exit 2 "$AEGIS" controller --listen 127.0.0.1:0 --db "mysql://nope"
expect_exit 1 "$AEGIS" jobs end "${c[@]}" --job "$job" --state done          # it already failed: a conflict

# Tokens: one per node, only their digests in the file, revoked by a reload (SIGHUP).
expect_exit 0 "$AEGIS" tokens create --file "$dir/tokens" --scope operator --name ops --out "$dir/ops.token"
expect_exit 0 "$AEGIS" tokens create --file "$dir/tokens" --node gpu-1
agent_tok=$(cat "$dir/out")
[ ${#agent_tok} = 64 ] || fail "tokens create printed \"$agent_tok\""
[ "$(stat -c %a "$dir/tokens")" = 600 ] && [ "$(stat -c %a "$dir/ops.token")" = 600 ] || fail "token files readable by others"
grep -q "$agent_tok" "$dir/tokens" && fail "the token file holds the token itself"
expect_exit 0 "$AEGIS" tokens list --file "$dir/tokens"
grep -q "agent@gpu-1 " "$dir/out" && grep -q " ops " "$dir/out" || fail "tokens list: $(cat "$dir/out")"
expect_exit 2 "$AEGIS" tokens create --file "$dir/tokens" --node "bad/name"
expect_exit 2 "$AEGIS" tokens revoke --file "$dir/tokens" --node gpu-9
start_controller "$dir/tok.log" --db "sqlite:$dir/tok.db" --token-file "$dir/tokens"
tok_pid=${pids[-1]}
post() {  # post TOKEN NODE: the status of an empty batch from NODE
  curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $1" -H 'Content-Type: application/json' \
    --data "{\"node\": \"$2\", \"agent\": \"a\", \"events\": []}" "$url/api/v1/events"
}
[ "$(post "$agent_tok" gpu-1)" = 200 ] || fail "gpu-1's token refused for gpu-1"
[ "$(post "$agent_tok" gpu-2)" = 403 ] || fail "gpu-1's token accepted for gpu-2"
expect_exit 0 "$AEGIS" tokens revoke --file "$dir/tokens" --node gpu-1
kill -HUP "$tok_pid"
for _ in $(seq 100); do [ "$(post "$agent_tok" gpu-1)" = 401 ] && break; sleep 0.1; done
[ "$(post "$agent_tok" gpu-1)" = 401 ] || fail "a revoked token is still taken after SIGHUP"
expect_exit 0 "$AEGIS" status --controller "$url" --token-file "$dir/ops.token" --json
expect_exit 2 "$AEGIS" tokens revoke --file "$dir/tokens" --name ops  # the last one: it would revoke nothing
chmod 644 "$dir/tokens"
expect_exit 1 "$AEGIS" tokens list --file "$dir/tokens"
grep -q "chmod 600" "$dir/err" || fail "a token file others may read: $(cat "$dir/err")"

# HTTPS with the controller's own certificate.
if command -v openssl >/dev/null; then
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
    -keyout "$dir/key.pem" -out "$dir/cert.pem" 2>/dev/null || fail "openssl"
  start_controller "$dir/tls.log" --db "sqlite:$dir/tls.db" --tls-cert "$dir/cert.pem" --tls-key "$dir/key.pem"
  case "$url" in https://*) ;; *) fail "TLS controller serves $url" ;; esac
  expect_exit 0 "$AEGIS" status --controller "$url" --ca-file "$dir/cert.pem" --json
  expect_exit 2 "$AEGIS" status --controller "$url" --json   # an unknown CA
  grep -q "certificate is not trusted" "$dir/err" || fail "an unknown CA in words: $(cat "$dir/err")"
  expect_exit 2 "$AEGIS" status --controller "http://${url#https://}" --json   # TLS expected
  grep -q "https://" "$dir/err" || fail "plain HTTP to a TLS server in words: $(cat "$dir/err")"
fi

# SIGTERM stops it cleanly.
kill -TERM "${pids[0]}"; wait "${pids[0]}"; rc=$?
[ "$rc" = 0 ] || fail "controller exit on SIGTERM: $rc"
echo "controller cli: ok"
