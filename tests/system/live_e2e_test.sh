#!/usr/bin/env bash
# The live system end to end, as a cluster runs it, on loopback: the generator writes a
# scenario's logs as live streams for HOSTS nodes; one `aegis agent` process per node
# follows them and ships events to one `aegis controller` (SQLite). Checks:
#  1. the fault is decided within seconds of the job's end: the generator's expected
#     verdict, and the host state it implies, in `aegis status --json` (the host may have
#     been isolated already while the job ran, by an early critical_error incident);
#  2. the controller killed with SIGKILL mid-stream and restarted loses nothing and decides
#     nothing twice: every record a rule matches in the streamed files reached the store
#     exactly once (the store's log events, whose repeats arrive as counts, against
#     `aegis classify` of the same files), each evidence is in `aegis incidents export`,
#     one incident, decided once, and `aegis diagnose` on the export agrees;
#  3. the controller killed again, a fault written while it is down: the agents deliver
#     it after the restart and the next job's failure isolates that host.
# Environment: AEGIS, AEGIS_GEN (binaries). HOSTS (default 24).
set -u
hosts=${HOSTS:-24}
source "$(dirname "$0")/live_common.sh"
cl="$tmp/cluster"

start_controller() {
  "$AEGIS" controller --listen "127.0.0.1:$port" --db "sqlite:$tmp/aegis.db" --sqlite-sync normal \
    --topology "$cl/topology.json" --token-file "$tmp/tokens" --dry-run --settle 4 --slow-check 0 --max-isolate-share 0.25 \
    >>"$tmp/controller.log" 2>&1 &
  ctl=$!
  for _ in $(seq 1 100); do
    curl -sf "$url/healthz" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "controller did not come up"; cat "$tmp/controller.log"; return 1
}
status_json() { "$AEGIS" status --controller "$url" --token-file "$tmp/oper.token" --json 2>/dev/null; }
# Waits up to $2 seconds for the python condition $1 over the status document `s`.
wait_status() {
  local deadline=$((SECONDS + $2))
  while [ $SECONDS -lt $deadline ]; do
    status_json >"$tmp/status.json" && python3 -c "
import json,sys
s=json.load(open('$tmp/status.json'))
sys.exit(0 if ($1) else 1)" && return 0
    sleep 0.5
  done
  return 1
}

# --- the cluster starts: topology and job first, then the streams ---
"$AEGIS_GEN" --live "$cl" --scenario xid79 --seed 5 --hosts "$hosts" --rate 20 --fault-at 12 --duration 22 --rotate-at 7 \
  >"$tmp/gen.log" 2>&1 &
gen=$!
for _ in $(seq 1 100); do [ -f "$cl/job.json" ] && [ -f "$cl/topology.json" ] && break; sleep 0.1; done
for n in $(python3 -c "import json; print(' '.join(n['host'] for n in json.load(open('$cl/topology.json'))['nodes']))"); do
  agent_token "$n" >/dev/null
done
start_controller || exit 1
nodes=$(python3 -c "import json; print(' '.join(json.load(open('$cl/job.json'))['hosts']))")
for n in $nodes; do
  "$AEGIS" agent --controller "$url" --node "$n" --kernel-log "$cl/nodes/$n/kernel.log" \
    --train-log "$cl/nodes/$n/train.log*" --ccl-socket none --ccl-dir "$cl/nodes/$n/ccl" \
    --facts "$cl/nodes/$n/facts.json" --state-dir "$tmp/agents/$n" --metrics-listen none \
    --token-file "$(agent_token "$n")" >>"$tmp/agent-$n.log" 2>&1 &
  pids+=($!)
done
"$AEGIS" jobs start --controller "$url" --token-file "$tmp/oper.token" --job "$cl/job.json"
check "jobs start exits 0" '[ $? -eq 0 ]'

# --- kill -9 mid-stream (before the fault), restart ---
sleep 5
kill -9 "$ctl"; wait "$ctl" 2>/dev/null
sleep 3
start_controller || exit 1
wait "$gen"
check "the generator streamed the scenario" '[ -f "$cl/expected.json" ]'
job=$(python3 -c "import json; print(json.load(open('$cl/job.json'))['id'])")
sleep 3  # the agents' last lines
t_end=$(date +%s.%N)
"$AEGIS" jobs end --controller "$url" --token-file "$tmp/oper.token" --job "$job" --state failed >"$tmp/end.json"
check "jobs end exits 0" '[ $? -eq 0 ]'
inc=$(python3 -c "import json; print(json.load(open('$tmp/end.json'))['incident'])")
exp_host=$(python3 -c "import json; print(json.load(open('$cl/expected.json'))['isolate'][0]['host'])")
if wait_status "any(i['id']=='$inc' and i.get('decided_at') for i in s['incidents'])" 30; then
  t_dec=$(date +%s.%N)
  echo "decided $(python3 -c "print(f'{$t_dec - $t_end:.1f}')") s after jobs end (settle 4 s)"
fi
check "the failed job's incident is decided within 30 s" '[ -n "${t_dec:-}" ]'
python3 - "$tmp/status.json" "$cl/expected.json" "$job" "$inc" >"$tmp/check1.txt" 2>&1 <<'PY'
import json, sys
s, e, job, inc = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4]
incs = [i for i in s["incidents"] if i["job"] == job]
# The job's end, and at most one incident opened while it ran (a critical error).
assert 1 <= len(incs) <= 2 and all(i["decided_at"] for i in incs), f"{len(incs)} incidents for the job"
for i in incs:
    v = i["verdict"]
    assert (v["action"], v["stage"]) == (e["action"], e["stage"]), (v["action"], v["stage"], e["action"], e["stage"])
    assert [(x["host"], x["device"]) for x in v["isolate"]] == [(x["host"], x["device"]) for x in e["isolate"]], v["isolate"]
hosts = {h["host"]: h for h in s["hosts"]}
h = e["isolate"][0]["host"]
assert hosts[h]["state"] == "isolated", hosts[h]
assert hosts[h]["incident"] in [i["id"] for i in incs]
assert all(a["dry_run"] for i in incs for a in i["actions"]), incs
assert sum(len(i["actions"]) for i in incs) == 1, "one drain for the host, whichever incident took it out"
v = [i for i in incs if i["id"] == inc][0]["verdict"]
print("verdict", v["action"], v["stage"], v["isolate"], "host", h, hosts[h]["state"], "incidents", [i["id"] for i in incs])
PY
rc=$?; cat "$tmp/check1.txt"
check "status shows the expected verdict and the isolated host" '[ $rc -eq 0 ]'

# --- nothing lost, nothing twice ---
job_incidents=$(python3 -c "import json; s=json.load(open('$tmp/status.json')); print(len([i for i in s['incidents'] if i['job']=='$job']))")
"$AEGIS" incidents export --controller "$url" --token-file "$tmp/oper.token" "$inc" --out "$tmp/export"
check "incidents export exits 0" '[ $? -eq 0 ]'
python3 - "$AEGIS" "$cl" "$tmp/export" "$tmp/aegis.db" $nodes >"$tmp/check2.txt" 2>&1 <<'PY'
import json, os, sqlite3, subprocess, sys
aegis, cl, exp, db, nodes = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
def classified(path):
    out = subprocess.run([aegis, "classify", "--json", path], capture_output=True, text=True, check=True).stdout
    return [json.loads(l) for l in out.splitlines()]
# The store's log events, each counting the records it stands for (an agent ships the
# repeats of one evidence as one event with a count).
stored = {}
for node, body in sqlite3.connect(db).execute("SELECT node, body FROM events WHERE type = 'log'"):
    e = json.loads(body)
    key = (e["source"], e["class"], e["rule"])
    stored.setdefault(node, {})[key] = stored.get(node, {}).get(key, 0) + e.get("count", 1)
missing = extra = total = 0
for n in nodes:
    # The streamed kernel log, and the training log in its two parts (rotated once).
    want = {}
    for o in classified(os.path.join(cl, "nodes", n, "kernel.log")):
        if o["class"] != "none": want[("kernel", o["class"], o["rule"])] = want.get(("kernel", o["class"], o["rule"]), 0) + 1
    for part in ("train.log.1", "train.log"):
        p = os.path.join(cl, "nodes", n, part)
        if os.path.exists(p):
            for o in classified(p):
                if o["class"] != "none": want[("train", o["class"], o["rule"])] = want.get(("train", o["class"], o["rule"]), 0) + 1
    got = stored.get(n, {})
    exported = set()
    for kind in ("kernel", "train"):
        p = os.path.join(exp, "nodes", n, kind + ".log")
        if os.path.exists(p):
            for o in classified(p):
                if o["class"] != "none": exported.add((kind, o["class"], o["rule"]))
    for k in set(want) - exported:
        missing += 1; print("not in the export", n, k)
    for k in set(want) | set(got):
        total += want.get(k, 0)
        if got.get(k, 0) < want.get(k, 0): missing += want[k] - got.get(k, 0); print("missing", n, k, want[k], got.get(k, 0))
        if got.get(k, 0) > want.get(k, 0): extra += got[k] - want.get(k, 0); print("extra", n, k, want.get(k, 0), got[k])
print(f"{total} classified records in the streamed files; {missing} missing and {extra} extra in the store and export")
sys.exit(1 if missing or extra or total == 0 else 0)
PY
rc=$?; tail -3 "$tmp/check2.txt"
check "every classified record reached the controller exactly once across the restart" '[ $rc -eq 0 ]'
"$AEGIS" diagnose "$tmp/export" --json >"$tmp/export-verdict.json"
check "aegis diagnose on the export reaches the incident's verdict" 'python3 -c "
import json
v=json.load(open(\"$tmp/export-verdict.json\")); e=json.load(open(\"$cl/expected.json\"))
assert (v[\"action\"], v[\"stage\"], [i[\"host\"] for i in v[\"isolate\"]]) == (e[\"action\"], e[\"stage\"], [i[\"host\"] for i in e[\"isolate\"]]), v"'

# --- a fault written while the controller is down ---
python3 - "$cl/job.json" "$tmp/job2.json" "$exp_host" <<'PY'
import json, sys, time
j = json.load(open(sys.argv[1]))
j["id"] += "-restart"
j["state"] = "running"
j["hosts"] = [h for h in j["hosts"] if h != sys.argv[3]]
j["started_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 1))
j.pop("ended_at", None)
json.dump(j, open(sys.argv[2], "w"))
PY
"$AEGIS" jobs start --controller "$url" --token-file "$tmp/oper.token" --job "$tmp/job2.json"
victim=$(python3 -c "import json; print(json.load(open('$tmp/job2.json'))['hosts'][3])")
sleep 1
kill -9 "$ctl"; wait "$ctl" 2>/dev/null
echo "$(date -u +%Y-%m-%dT%H:%M:%S.%6N+00:00) $victim kernel: NVRM: Xid (PCI:0000:18:00): 48, pid=1, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 0, subpartition 0." \
  >>"$cl/nodes/$victim/kernel.log"
sleep 4  # the agents queue it while nobody answers
start_controller || exit 1
sleep 4
"$AEGIS" jobs end --controller "$url" --token-file "$tmp/oper.token" --job "$(python3 -c "import json; print(json.load(open('$tmp/job2.json'))['id'])")" --state failed
check "the fault written while the controller was down is delivered and decided" \
  "wait_status \"any(i['job'].endswith('-restart') and i.get('decided_at') and i['verdict']['action']=='isolate' and [x['host'] for x in i['verdict']['isolate']]==['$victim'] for i in s['incidents']) and any(h['host']=='$victim' and h['state']=='isolated' for h in s['hosts'])\" 30"
check "the first job's incidents are still decided once" \
  "python3 -c \"import json; s=json.load(open('$tmp/status.json')); assert len([i for i in s['incidents'] if i['job']=='$job'])==$job_incidents\""
if [ $fail -ne 0 ]; then
  echo "--- controller log (tail)"; tail -30 "$tmp/controller.log"
  echo "--- status"; cat "$tmp/status.json" | head -c 3000; echo
fi
exit $fail
