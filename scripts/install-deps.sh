#!/usr/bin/env bash
# Installs the Debian packages Aegis builds and tests with, only those missing.
# Idempotent: a machine that has everything runs no apt command at all.
set -euo pipefail
pkgs=(
  cmake ninja-build g++ clang libclang-rt-14-dev pkg-config make python3
  libvectorscan-dev libre2-dev libfasttext-dev nlohmann-json3-dev libsimdjson-dev libcli11-dev libfmt-dev libyaml-cpp-dev libcpp-httplib-dev libssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev valgrind
  prometheus ripgrep curl jq openssl gdb
  libsqlite3-dev libpq-dev postgresql
)
missing=()
for p in "${pkgs[@]}"; do
  # No pipe into `grep -q` under pipefail: grep may exit before the writer is done.
  [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-deps: installing ${missing[*]}"
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
