#!/usr/bin/env bash
# Compares the probe's declared NCCL profiler ABI (abi_dump) with the debug info of the
# installed libnccl.so.2 (NCCL 2.28 ships it with the CUDA toolkit). Skips (77) when gdb
# or a libnccl with debug info is not on this machine.
set -u
dump=$1
lib=${NCCL_LIB:-}
if [ -z "$lib" ]; then
  for c in /usr/local/cuda/lib/libnccl.so.2 /usr/local/cuda*/lib*/libnccl.so.2 /usr/lib/x86_64-linux-gnu/libnccl.so.2 \
           /usr/lib/aarch64-linux-gnu/libnccl.so.2; do
    [ -f "$c" ] && { lib=$c; break; }
  done
fi
if [ -z "$lib" ] || ! command -v gdb >/dev/null; then echo "abi-check: no libnccl.so.2 or no gdb: skipped"; exit 77; fi
args=()
while read -r expr value; do args+=(-ex "print $expr"); done < <("$dump")
out=$(gdb -batch "${args[@]}" "$lib" 2>&1)
if echo "$out" | grep -q "No symbol table\|No struct type"; then echo "abi-check: $lib has no debug info: skipped"; exit 77; fi
fail=0; i=0
mapfile -t got < <(echo "$out" | sed -n 's/^\$[0-9]* = //p')
while read -r expr value; do
  if [ "${got[$i]:-?}" != "$value" ]; then echo "MISMATCH: $expr: NCCL says ${got[$i]:-?}, probe declares $value"; fail=1; fi
  i=$((i + 1))
done < <("$dump")
echo "abi-check: $i layout facts compared against $lib: $([ $fail = 0 ] && echo all match || echo MISMATCH)"
exit $fail
