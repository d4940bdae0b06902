#!/usr/bin/env bash
# The aegis CLI as a user runs it: exit codes, stderr, JSON shape, classify line count.
set -u
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; else echo "ok: $1"; fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Unusable bundle: exit 2 and exactly one line on stderr.
"$AEGIS" diagnose "$tmp/none" --json >"$tmp/out" 2>"$tmp/err"; rc=$?
check "missing bundle exits 2" '[ $rc -eq 2 ]'
check "missing bundle: one stderr line" '[ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ]'
mkdir -p "$tmp/bad" && echo '{"nodes": [' >"$tmp/bad/topology.json" && echo '{}' >"$tmp/bad/job.json"
"$AEGIS" diagnose "$tmp/bad" --json >/dev/null 2>"$tmp/err"; rc=$?
check "invalid topology exits 2" '[ $rc -eq 2 ] && grep -q topology.json "$tmp/err"'

# A generated bundle: exit 0, one JSON object with every verdict field.
"$AEGIS_GEN" --scenario xid79 --seed 5 --hosts 6 --out "$tmp/b" >/dev/null
"$AEGIS" diagnose "$tmp/b" --json >"$tmp/v.json"; rc=$?
check "diagnose exits 0" '[ $rc -eq 0 ]'
check "verdict has every field" 'python3 -c "
import json,sys
v=json.load(open(sys.argv[1]))
need={\"format\",\"job\",\"kind\",\"action\",\"cause\",\"stage\",\"isolate\",\"repair\",\"offline\",\"evidence\",\"missing\",\"summary\"}
assert need <= set(v), need-set(v)
assert v[\"action\"]==\"isolate\" and v[\"isolate\"][0][\"component\"]==\"gpu\"
" "$tmp/v.json"'
"$AEGIS" diagnose "$tmp/b" >"$tmp/v.txt"
check "human output starts with the decision" 'head -1 "$tmp/v.txt" | grep -q "^ISOLATE: "'
check "human output lists evidence with file:line" 'grep -qE "nodes/node-[0-9]+/kernel.log:[0-9]+" "$tmp/v.txt"'

# classify: one JSON object per input line, in order, from a file and from stdin.
printf 'noise\nNVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.\n\xff\xfe garbage\nNCCL WARN socketProgress: Connection closed by remote peer node2<42830>\n' >"$tmp/l.log"
"$AEGIS" classify --json "$tmp/l.log" >"$tmp/c.json"; rc=$?
check "classify exits 0" '[ $rc -eq 0 ]'
check "classify: one object per line" '[ "$(wc -l <"$tmp/c.json")" -eq 4 ]'
check "classify: classes and fields" 'python3 -c "
import json,sys
rows=[json.loads(l) for l in open(sys.argv[1])]
assert [r[\"class\"] for r in rows]==[\"none\",\"critical\",\"none\",\"dist\"], rows
assert rows[1][\"xid\"]==79 and rows[1][\"device\"]==\"0000:18:00\" and rows[1][\"rule\"]==\"xid-79\"
assert rows[3][\"peer\"]==\"node2\" and [r[\"line\"] for r in rows]==[1,2,3,4]
" "$tmp/c.json"'
check "classify reads stdin" '[ "$("$AEGIS" classify --json <"$tmp/l.log" | wc -l)" -eq 4 ]'
check "classify: fallback only where a catch-all rule decided" 'python3 -c "
import json,sys
rows=[json.loads(l) for l in open(sys.argv[1])]
assert all(\"fallback\" not in r for r in rows), rows
" "$tmp/c.json" && printf "x:1:2 [0] foo.cc:12 NCCL WARN something no rule knows\n" | "$AEGIS" classify --json | python3 -c "
import json,sys
r=json.loads(sys.stdin.read())
assert r[\"class\"] in (\"dist\", \"config\", \"user\", \"hint\") and r[\"fallback\"] is True and r[\"rule\"]==\"nccl-warn-fallback\", r
"'

# Operator rules: override without rebuilding; a broken rule file is refused clearly.
mkdir -p "$tmp/rules" && cat >"$tmp/rules/site.yaml" <<'YAML'
rules:
  - {id: site-noise-is-critical, class: critical, component: host, priority: 90, pattern: '^noise$', samples: ['noise']}
YAML
check "--rules adds a rule" '"$AEGIS" --rules "$tmp/rules" classify --json "$tmp/l.log" | head -1 | grep -q "\"critical\""'
check "rules check passes" '"$AEGIS" --rules "$tmp/rules" rules check >/dev/null'
builtin=$("$AEGIS" rules check | tail -1 | cut -d' ' -f1)
check "--rules after the subcommand is read too (a unit file appends it)" \
  '[ "$("$AEGIS" rules check --rules "$tmp/rules" | tail -1 | cut -d" " -f1)" -eq $((builtin + 1)) ] &&
   "$AEGIS" classify --json "$tmp/l.log" --rules "$tmp/rules" | head -1 | grep -q "\"critical\""'
echo "rules: [ {id: x" >"$tmp/rules/broken.yaml"
"$AEGIS" --rules "$tmp/rules" classify "$tmp/l.log" >/dev/null 2>"$tmp/err"; rc=$?
check "broken rules exit 2 naming the file" '[ $rc -eq 2 ] && grep -q broken.yaml "$tmp/err"'

echo "rule:" >"$tmp/rules/broken.yaml"  # a misspelled top-level key
"$AEGIS" --rules "$tmp/rules" rules check >/dev/null 2>"$tmp/err"; rc=$?
check "an unknown key in a rule file exits 2 naming the file, line and key" \
  '[ $rc -eq 2 ] && grep -q "broken.yaml:1: unknown key .rule." "$tmp/err"'

# Usage errors: one line that starts "aegis:", exit 2, whatever the mistake.
for args in "--bogus" "diagnose" "diagnose $tmp/b --threads -3" "rules" "rules explain"; do
  "$AEGIS" $args >"$tmp/out" 2>"$tmp/err"; rc=$?
  check "usage error ($args): exit 2, one line aegis: ..." \
    '[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^aegis: " "$tmp/err" && [ ! -s "$tmp/out" ]'
done
check "--version names the release" '"$AEGIS" --version | grep -qE "^aegis [0-9]+\.[0-9]+\.[0-9]+$"'

[ $fail -eq 0 ] && echo "cli: all checks passed" || echo "cli: FAILED"
exit $fail
