# Shared by the live system tests (sourced, not run): a check that records failures, a
# scratch directory and the processes to kill on exit (the caller's `pids`, `ctl`, `gen`),
# a free loopback port, an operator's token and one token per agent (agent_token NODE).
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}" ${ctl:-} ${gen:-}; do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url="http://127.0.0.1:$port"
# The operator's token is written by hand; each agent gets its own from `aegis tokens
# create --node` (agent_token NODE prints the path of that node's token file).
umask 077
printf 'operator oper-token-0123456789abcdef  e2e\n' >"$tmp/tokens"
echo "oper-token-0123456789abcdef" >"$tmp/oper.token"
agent_token() {
  [ -f "$tmp/agent-$1.token" ] ||
    "$AEGIS" tokens create --file "$tmp/tokens" --node "$1" --out "$tmp/agent-$1.token" 2>/dev/null
  echo "$tmp/agent-$1.token"
}
