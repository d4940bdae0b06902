#!/usr/bin/env bash
# `aegis rules explain` as a user runs it: an entry for a person and as JSON, exit codes,
# one stderr line for what is not in the catalogue, an operator's override shown.
set -u
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; else echo "ok: $1"; fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$AEGIS" rules explain xid 145 >"$tmp/out" 2>"$tmp/err"; rc=$?
check "explain xid 145 exits 0" '[ $rc -eq 0 ] && [ ! -s "$tmp/err" ]'
check "text names the entry, bucket and class" 'head -1 "$tmp/out" | grep -q "^Xid 145: NVLINK: RLW Error (NVLINK_RLW_ERROR)$" &&
  grep -q "^  bucket  *WORKFLOW_NVLINK5_ERR" "$tmp/out" && grep -q "^  class  *critical (the mapping gives bucket WORKFLOW_NVLINK5_ERR critical)" "$tmp/out"'
check "text lists the decode cases in order" 'grep -q "^    1\. .*Nonfatal.* -> hint (bucket IGNORE)" "$tmp/out" && grep -q "^    2\. .*Fatal.* -> critical (bucket RESET_GPU)" "$tmp/out"'
check "text gives source and action" 'grep -q "^  source  *NVIDIA Xid catalogue" "$tmp/out" && grep -q "^  action  *." "$tmp/out"'

"$AEGIS" rules explain xid 13 >"$tmp/out13"
check "a deviation is shown with its reason" 'grep -q "^  class  *user (deviates: the mapping gives bucket RESTART_APP hint) because NVIDIA" "$tmp/out13"'

"$AEGIS" rules explain sxid 20034 --json >"$tmp/s.json"; rc=$?
check "explain sxid --json exits 0" '[ $rc -eq 0 ]'
check "json is one object with every field" '[ "$(wc -l <"$tmp/s.json")" -eq 1 ] && python3 -c "
import json,sys
j=json.load(open(sys.argv[1]))
need={\"table\",\"number\",\"name\",\"mnemonic\",\"bucket\",\"bucket_class\",\"class\",\"deviation\",\"component\",\"investigate\",\"action\",\"source\",\"loaded_from\",\"decode\"}
assert need <= set(j), need-set(j)
assert j[\"table\"]==\"sxid\" and j[\"number\"]==20034 and j[\"bucket\"]==\"RESET_GPU\" and j[\"class\"]==\"critical\"
assert j[\"deviation\"] is None and j[\"component\"]==\"nvlink\"
d=j[\"decode\"]
assert [c[\"class\"] for c in d]==[\"hint\",\"hint\",\"critical\",\"hint\",\"critical\"] and all(c[\"shared\"] and c[\"samples\"] for c in d), d
" "$tmp/s.json"'

for bad in "xid 999" "sxid 1" "xid abc" "xid -1" "gpu 79"; do
  "$AEGIS" rules explain $bad >"$tmp/o" 2>"$tmp/e"; rc=$?
  check "explain $bad exits 2 with one stderr line" '[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && [ ! -s "$tmp/o" ]'
done

# An operator's override: shown as such, with the file it came from.
mkdir -p "$tmp/rules" && cat >"$tmp/rules/site.yaml" <<'YAML'
xids:
  - {xid: 63, class: critical}
YAML
"$AEGIS" --rules "$tmp/rules" rules explain xid 63 --json >"$tmp/o63.json"
check "an operator override is explained" 'python3 -c "
import json,sys
j=json.load(open(sys.argv[1]))
assert j[\"class\"]==\"critical\" and j[\"bucket\"]==\"IGNORE\" and j[\"bucket_class\"]==\"hint\", j
assert \"site.yaml\" in j[\"deviation\"] and \"site.yaml\" in j[\"loaded_from\"], j
" "$tmp/o63.json"'
cat >"$tmp/rules/site.yaml" <<'YAML'
xids:
  - {xid: 63, bucket: NO_SUCH_BUCKET}
YAML
"$AEGIS" --rules "$tmp/rules" rules explain xid 63 >/dev/null 2>"$tmp/e"; rc=$?
check "a bad override exits 2 naming file and entry" '[ $rc -eq 2 ] && grep -q "site.yaml:2 (xid 63): unknown bucket" "$tmp/e"'

[ $fail -eq 0 ] && echo "rules explain: all checks passed" || echo "rules explain: FAILED"
exit $fail
