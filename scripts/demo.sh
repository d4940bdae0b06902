#!/usr/bin/env bash
# make demo: generates a few incident bundles with the project's generator and shows
# what `aegis diagnose` concludes for each (the first one also as JSON).
# Every output is written to a file first and then printed: a pipe into `head` would
# close early and, under pipefail, fail the script whenever the writer lost the race.
set -euo pipefail
build=${1:-build}
out=${2:-$build/demo}
rm -rf "$out" && mkdir -p "$out"
scenarios=(xid79 user_exception rootdiag_missing switch_flap config_symmetric compute_hang ecn_surge)
for s in "${scenarios[@]}"; do
  "$build/aegis-gen" --scenario "$s" --seed 7 --hosts 32 --out "$out/$s" >/dev/null
done
echo "== aegis diagnose $out/xid79 --json"
"$build/aegis" diagnose "$out/xid79" --json >"$out/xid79.verdict.json"
python3 -m json.tool "$out/xid79.verdict.json" >"$out/xid79.verdict.pretty"
sed -n '1,40p' "$out/xid79.verdict.pretty"
for s in "${scenarios[@]}"; do
  echo
  expected=$(python3 -c "import json,sys; e=json.load(open(sys.argv[1])); print(e['scenario'], '->', e['action'], e['stage'])" "$out/$s/expected.json")
  echo "== aegis diagnose $out/$s   (generated as: $expected)"
  "$build/aegis" diagnose "$out/$s" >"$out/$s.verdict.txt"
  sed -n '1,12p' "$out/$s.verdict.txt"
done
