#!/usr/bin/env bash
# make demo: generates a few incident bundles with the project's generator and shows
# what `aegis diagnose` concludes for each (the first one also as JSON).
set -euo pipefail
build=${1:-build}
out="$build/demo"
rm -rf "$out" && mkdir -p "$out"
scenarios=(xid79 user_exception rootdiag_missing switch_flap config_mismatch compute_hang ecn_surge)
for s in "${scenarios[@]}"; do
  "$build/aegis-gen" --scenario "$s" --seed 7 --hosts 32 --out "$out/$s" >/dev/null
done
echo "== aegis diagnose $out/xid79 --json"
"$build/aegis" diagnose "$out/xid79" --json | python3 -m json.tool | head -40
for s in "${scenarios[@]}"; do
  echo
  echo "== aegis diagnose $out/$s   (generated as: $(python3 -c "import json,sys; e=json.load(open(sys.argv[1])); print(e['scenario'], '->', e['action'], e['stage'])" "$out/$s/expected.json"))"
  "$build/aegis" diagnose "$out/$s" | head -12
done
