#!/usr/bin/env bash
# Live incidents that see only their job and are decided while it runs, end to end on
# loopback with the controller's DEFAULT options (no --settle, no --max-isolate-share):
# HOSTS nodes (8), one `aegis agent` process each, three jobs one after the other on the
# same hosts, streamed by the generator into one directory (one cluster):
#  1. a job that fails by the user's fault (a Python exception): none / user_error;
#  2. a GPU falls off the bus (Xid 79): its host is isolated BEFORE the job ends (the
#     first isolation of 8 hosts goes ahead), the job's end is decided within END_LIMIT_S
#     (2) seconds of `aegis jobs end`, names the same host and drains nothing twice, and
#     `missing` is empty (every agent reported); then a person returns the host;
#  3. completion errors naming one peer, on the same hosts: the job gets its own verdict
#     (the generator's expected one), neither the first job's user_error nor the second
#     job's Xid, returned host and all.
# Environment: AEGIS, AEGIS_GEN (binaries); HOSTS (8); END_LIMIT_S (2).
set -u
hosts=${HOSTS:-8}
end_limit=${END_LIMIT_S:-2}
seed=5
source "$(dirname "$0")/live_common.sh"
oper=(--controller "$url" --token-file "$tmp/oper.token")
cl="$tmp/cluster"
api() { curl -sf -H "Authorization: Bearer oper-token-0123456789abcdef" "$@"; }
json_id() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['id'])" "$1"; }

# Streams one job into the cluster directory (in the background: $gen) and waits for its
# job.json; start_job then starts it.
stream_job() {  # scenario fault_at duration
  local before=""
  [ -f "$cl/job.json" ] && before=$(json_id "$cl/job.json")
  rm -f "$cl/expected.json"
  "$AEGIS_GEN" --live "$cl" --scenario "$1" --seed $seed --hosts "$hosts" --rate 20 --fault-at "$2" --duration "$3" \
    >>"$tmp/gen.log" 2>&1 &
  gen=$!
  for _ in $(seq 1 100); do
    [ -f "$cl/job.json" ] && [ -f "$cl/topology.json" ] && [ "$(json_id "$cl/job.json" 2>/dev/null)" != "$before" ] && break
    sleep 0.1
  done
  job=$(json_id "$cl/job.json")
}
start_job() { "$AEGIS" jobs start "${oper[@]}" --job "$cl/job.json" >/dev/null || { echo "jobs start failed"; fail=1; }; }
# The incidents of a job as JSON (GET /api/v1/incidents?job=).
incidents() { api "$url/api/v1/incidents?job=$1"; }
# Waits up to $2 seconds for the python condition $1 over `incs` (the job's incidents),
# `hosts` (GET /api/v1/hosts) and `job` (GET /api/v1/jobs/ID); 0.1 s between looks.
wait_for() {
  local deadline=$(($(date +%s) + $2))
  while [ "$(date +%s)" -le $deadline ]; do
    incidents "$job" >"$tmp/incs.json" 2>/dev/null && api "$url/api/v1/hosts" >"$tmp/hosts.json" 2>/dev/null &&
      api "$url/api/v1/jobs/$job" >"$tmp/job.json" 2>/dev/null && python3 -c "
import json,sys
incs=json.load(open('$tmp/incs.json')); hosts={h['host']: h for h in json.load(open('$tmp/hosts.json'))}
job=json.load(open('$tmp/job.json'))
sys.exit(0 if ($1) else 1)" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}
# Ends the job failed; prints how long its job_failed incident took to be decided after
# `aegis jobs end` was started (looked at every 50 ms), then waits until all $1 incidents
# of the job (its end and any it had while running) are decided.
end_job() {
  local t0 t1 id
  t0=$(date +%s.%N)
  "$AEGIS" jobs end "${oper[@]}" --job "$job" --state failed >"$tmp/end.json" || { echo "jobs end failed" >&2; }
  id=$(sed -n 's/.*"incident":"\([^"]*\)".*/\1/p' "$tmp/end.json")
  local deadline=$(($(date +%s) + 30))
  until api "$url/api/v1/incidents/${id:-none}" 2>/dev/null | grep -q '"decided_at":"'; do
    [ "$(date +%s)" -gt $deadline ] && { echo never; return; }
    sleep 0.05
  done
  t1=$(date +%s.%N)
  wait_for "len(incs)==$1 and all(i['decided_at'] for i in incs)" 30 || { echo never; return; }
  python3 -c "print(f'{$t1 - $t0:.2f}')"
}

mkdir -p "$cl"
# --- the first job: the user's fault ---
stream_job user_exception 5 10
for n in $(python3 -c "import json; print(' '.join(n['host'] for n in json.load(open('$cl/topology.json'))['nodes']))"); do
  agent_token "$n" >/dev/null
done
"$AEGIS" controller --listen "127.0.0.1:$port" --db "sqlite:$tmp/aegis.db" --topology "$cl/topology.json" \
  --token-file "$tmp/tokens" >>"$tmp/controller.log" 2>&1 &
ctl=$!
for _ in $(seq 1 100); do curl -sf "$url/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
start_job
nodes=$(python3 -c "import json; print(' '.join(json.load(open('$cl/job.json'))['hosts']))")
for n in $nodes; do
  "$AEGIS" agent --controller "$url" --node "$n" --kernel-log "$cl/nodes/$n/kernel.log" \
    --train-log "$cl/nodes/$n/train.log*" --ccl-socket none --ccl-dir "$cl/nodes/$n/ccl" \
    --facts "$cl/nodes/$n/facts.json" --state-dir "$tmp/agents/$n" --metrics-listen none \
    --token-file "$(agent_token "$n")" >>"$tmp/agent-$n.log" 2>&1 &
  pids+=($!)
done
wait "$gen"
job1=$job
took=$(end_job 1)
echo "job 1 ($job1): decided $took s after jobs end"
check "the first job (the user's fault) is decided: none / user_error" \
  "python3 -c \"import json; i=[i for i in json.load(open('$tmp/incs.json')) if i['verdict']]; v=i[0]['verdict']; assert (v['action'], v['stage'])==('none', 'user_error'), v\""

# --- the second job: a GPU falls off the bus while it runs ---
stream_job xid79 4 14
start_job
if wait_for "any(i['verdict'] and i['verdict']['action']=='isolate' and hosts[i['verdict']['isolate'][0]['host']]['state']=='isolated' for i in incs) and job['state']=='running'" 25; then
  early=$(python3 -c "import json; print([i for i in json.load(open('$tmp/incs.json')) if i['verdict']][0]['id'])")
  victim=$(python3 -c "import json; print([i for i in json.load(open('$tmp/incs.json')) if i['verdict']][0]['verdict']['isolate'][0]['host'])")
  running=$(kill -0 "$gen" 2>/dev/null && echo yes || echo no)
  echo "job 2 ($job): $victim isolated by $early while the job runs (generator still streaming: $running)"
fi
check "the faulty host is isolated before the job ends" '[ -n "${victim:-}" ]'
wait "$gen"
check "it is the host the fault was written on" \
  "python3 -c \"import json; e=json.load(open('$cl/expected.json')); assert e['isolate'][0]['host']=='${victim:-}', e['isolate']\""
api "$url/api/v1/incidents/${early:-none}" >"$tmp/early.json"
check "the early incident is a critical_error incident with one drain" \
  "python3 -c \"import json; i=json.load(open('$tmp/early.json')); assert i['trigger']=='critical_error' and len(i['actions'])==1, i\""
took=$(end_job 2)
echo "job 2 ($job): the job's end decided $took s after jobs end (limit $end_limit s)"
check "the job's end is decided within $end_limit s" "python3 -c \"import sys; sys.exit(0 if '$took'!='never' and float('$took') <= $end_limit else 1)\""
python3 - "$tmp/incs.json" "$tmp/hosts.json" "${victim:-}" "${early:-}" >"$tmp/check2.txt" 2>&1 <<'PY'
import json, sys
incs, hosts, victim, early = json.load(open(sys.argv[1])), {h["host"]: h for h in json.load(open(sys.argv[2]))}, sys.argv[3], sys.argv[4]
end = [i for i in incs if i["id"] != early]
assert len(end) == 1, [i["id"] for i in incs]
v = end[0]["verdict"]
assert v["action"] == "isolate" and [x["host"] for x in v["isolate"]] == [victim], v
assert not end[0]["actions"], end[0]["actions"]
assert hosts[victim]["state"] == "isolated" and hosts[victim]["incident"] == early, hosts[victim]
assert not v.get("missing"), v.get("missing")
print("job end:", v["action"], v["stage"], [x["host"] for x in v["isolate"]], "missing:", v.get("missing", []))
PY
rc=$?; cat "$tmp/check2.txt"
check "the job's end agrees with the early decision, drains nothing twice, and no agent is missing" '[ $rc -eq 0 ]'
"$AEGIS" hosts return "${oper[@]}" --host "${victim:-none}" --reason "GPU reseated" >"$tmp/returned.json"
check "a person returns the host to service (aegis hosts return)" \
  "python3 -c \"import json; h=json.load(open('$tmp/returned.json')); assert h['state']=='in_service' and h['changed'], h\""

# --- the third job: completion errors naming one peer ---
stream_job rootdiag 4 10
start_job
wait "$gen"
took=$(end_job 1)
echo "job 3 ($job): decided $took s after jobs end"
python3 - "$tmp/incs.json" "$tmp/hosts.json" "$cl/expected.json" >"$tmp/check3.txt" 2>&1 <<'PY'
import json, sys
incs, hosts, e = json.load(open(sys.argv[1])), {h["host"]: h for h in json.load(open(sys.argv[2]))}, json.load(open(sys.argv[3]))
v = [i for i in incs if i["verdict"]][-1]["verdict"]
assert (v["action"], v["stage"]) == (e["action"], e["stage"]), (v["action"], v["stage"], v["summary"], e["action"], e["stage"])
assert [i["host"] for i in v["isolate"]] == [i["host"] for i in e["isolate"]], v["isolate"]
# Isolated, or held by the isolation limit (one host per hour of 8): its own verdict either way.
h = hosts[e["isolate"][0]["host"]]
assert h["state"] in ("isolated", "held"), h
print("job 3:", v["action"], v["stage"], [x["host"] for x in v["isolate"]], "->", h["state"], h["reason"])
PY
rc=$?; cat "$tmp/check3.txt"
check "the third job gets its own verdict, not an earlier job's" '[ $rc -eq 0 ]'

if [ $fail -ne 0 ]; then
  echo "--- controller log (tail)"; tail -30 "$tmp/controller.log"
  echo "--- last incidents"; head -c 4000 "$tmp/incs.json"; echo
fi
exit $fail
