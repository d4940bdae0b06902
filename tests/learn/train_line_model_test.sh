#!/usr/bin/env bash
# aegis-train-line-model: the same corpus gives the model the build compiled in, byte for
# byte (one thread, a fixed seed); the held-out set is refused; a usage error is one line.
set -uo pipefail
: "${TRAIN:?}" "${CORPUS:?}" "${TRAINED_FROM:?}" "${BUILT:?}"  # TRAINED_FROM: the build's files, :-separated
IFS=: read -r -a trained_from <<<"$TRAINED_FROM"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }

"$TRAIN" --out "$tmp/m.bin" --cc "$tmp/m.cc" "${trained_from[@]}" 2>"$tmp/err"
check "trains from the development files" '[ $? -eq 0 ] && [ -s "$tmp/m.bin" ] && [ -s "$tmp/m.cc" ]'
check "the same model as the build's, byte for byte" 'cmp -s "$tmp/m.bin" "$BUILT"'
check "the training text is removed" '[ ! -e "$tmp/m.bin.train.txt" ]'

"$TRAIN" --out "$tmp/h.bin" --cc "$tmp/h.cc" "$CORPUS/frameworks.tsv" "$CORPUS/heldout.tsv" 2>"$tmp/err"
rc=$?
check "the held-out set is refused, before anything is written" '[ $rc -eq 2 ] && grep -q "held-out" "$tmp/err" && [ ! -e "$tmp/h.bin" ] && [ ! -e "$tmp/h.bin.train.txt" ]'

"$TRAIN" --out "$tmp/x.bin" 2>"$tmp/err"
rc=$?
check "usage error: exit 2, one line aegis: ..." '[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^aegis: " "$tmp/err"'

"$TRAIN" --out "$tmp/e.bin" --cc "$tmp/e.cc" "$tmp/no-such.tsv" 2>"$tmp/err"
rc=$?
check "a missing corpus file: exit 1, named" '[ $rc -eq 1 ] && grep -q "no-such.tsv" "$tmp/err"'
exit $fail
