#!/usr/bin/env bash
# `aegis diagnose --prometheus` against a real Prometheus server (Debian's package),
# started here on loopback and scraping an exposition file this test serves: one GPU
# runs hot; the verdict must name it. Bounded: everything stops within ~90 s.
set -u
AEGIS=$1
command -v prometheus >/dev/null || { echo "prometheus not installed: skipped"; exit 77; }
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
web=$(port); prom=$(port)

# The exposition: 4 hosts x 2 GPUs; node-3's gpu1 at 91 C, the rest near 62 C.
mkdir -p "$tmp/www"
{
  echo "# TYPE DCGM_FI_DEV_GPU_TEMP gauge"
  for h in 0 1 2 3; do for g in 0 1; do
    t=$((60 + h + g)); [ "$h$g" = "31" ] && t=91
    echo "DCGM_FI_DEV_GPU_TEMP{Hostname=\"node-$h\",gpu=\"$g\"} $t"
  done; done
  echo "# TYPE np_ecn_marked_roce_packets counter"
  for h in 0 1 2 3; do echo "np_ecn_marked_roce_packets{hostname=\"node-$h\",device=\"mlx5_0\"} 17"; done
} >"$tmp/www/metrics.txt"
python3 -m http.server "$web" --bind 127.0.0.1 --directory "$tmp/www" >"$tmp/web.log" 2>&1 &
pids+=($!)
cat >"$tmp/prometheus.yml" <<YML
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: exporter
    honor_labels: true
    metrics_path: /metrics.txt
    static_configs: [{targets: ["127.0.0.1:$web"]}]
YML
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" \
  --web.listen-address="127.0.0.1:$prom" >"$tmp/prom.log" 2>&1 &
pids+=($!)

# Wait (at most 60 s) until Prometheus holds 15 s of samples.
ok=0
for _ in $(seq 60); do
  n=$(python3 - "$prom" <<'PY' 2>/dev/null
import json, sys, urllib.request
u = f"http://127.0.0.1:{sys.argv[1]}/api/v1/query?query=count_over_time(DCGM_FI_DEV_GPU_TEMP%5B1m%5D)"
r = json.load(urllib.request.urlopen(u, timeout=2))["data"]["result"]
print(min(int(x["value"][1]) for x in r) if len(r) == 8 else 0)
PY
)
  [ "${n:-0}" -ge 15 ] && { ok=1; break; }
  sleep 1
done
[ $ok = 1 ] || { echo "FAIL: Prometheus did not collect samples"; tail -5 "$tmp/prom.log"; exit 1; }

mkdir -p "$tmp/bundle"
python3 - "$tmp/bundle" <<'PY'
import json, sys, datetime
d = sys.argv[1]
json.dump({"nodes": [{"host": f"node-{h}", "gpus": [{"index": 0}, {"index": 1}]} for h in range(4)]}, open(d + "/topology.json", "w"))
now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
json.dump({"id": "live", "state": "slow", "ended_at": now, "hosts": [f"node-{h}" for h in range(4)]}, open(d + "/job.json", "w"))
PY
"$AEGIS" diagnose "$tmp/bundle" --json --prometheus "http://127.0.0.1:$prom" --window 10 --min-sustained 5 --step 1 >"$tmp/v.json"
python3 - "$tmp/v.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
print(v["summary"])
assert v["stage"] == "metric_outlier", v
assert v["isolate"] == [{"host": "node-3", "component": "gpu", "device": "gpu1"}], v["isolate"]
assert any(e["file"].startswith("prometheus:") for e in v["evidence"]), v["evidence"]
print("prometheus live: 1 passed, 0 failed")
PY
