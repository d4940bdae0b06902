#!/usr/bin/env bash
# Compares the probe's declared NCCL profiler ABI, every version (abi_dump), with the debug
# info of the installed libnccl.so.2 (NCCL 2.28 ships it with the CUDA toolkit and still
# declares v1 to v5). A fact NCCL's library does not declare (a version it dropped) is
# listed, not failed; a fact that differs fails. Skips (77) when gdb or a libnccl with
# debug info is not on this machine.
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
mapfile -t facts < <("$dump")
args=()
for i in "${!facts[@]}"; do
  args+=(-ex "echo @@$i\\n" -ex "print ${facts[$i]% *}")
done
out=$(gdb -batch "${args[@]}" "$lib" 2>&1)
# One "@@i" marker per fact, followed by "$n = value" or gdb's error.
declare -A got
key=""
while IFS= read -r line; do
  case "$line" in
    @@*) key=${line#@@} ;;
    '$'[0-9]*' = '*) [ -n "$key" ] && got[$key]=${line#*= } ;;
  esac
done <<<"$out"
if [ ${#got[@]} -eq 0 ]; then echo "abi-check: $lib has no debug info for the profiler ABI: skipped"; exit 77; fi
fail=0 compared=0 absent=0
for i in "${!facts[@]}"; do
  expr=${facts[$i]% *} value=${facts[$i]##* }
  if [ -z "${got[$i]+x}" ]; then
    echo "not declared by this NCCL: $expr"
    absent=$((absent + 1))
  elif [ "${got[$i]}" != "$value" ]; then
    echo "MISMATCH: $expr: NCCL says ${got[$i]}, probe declares $value"
    fail=1
  fi
  [ -n "${got[$i]+x}" ] && compared=$((compared + 1))
done
versions=$(for v in 1 2 3 4 5; do
  [ -n "$(printf '%s\n' "${facts[@]}" | grep -n "ncclProfiler_v${v}_t\b" | head -1)" ] || continue
  n=0; for i in "${!facts[@]}"; do
    case "${facts[$i]}" in *_v${v}_t*) [ -n "${got[$i]+x}" ] && n=$((n + 1)) ;; esac
  done
  printf 'v%s: %s facts; ' "$v" "$n"
done)
echo "abi-check: $compared layout facts compared against $lib (${versions}$absent not declared there): $([ $fail = 0 ] && echo all match || echo MISMATCH)"
exit $fail
