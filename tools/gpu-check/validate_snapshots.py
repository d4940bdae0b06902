#!/usr/bin/env python3
"""Validates the CCL probe's snapshot files (format v1, docs/formats.md) after a run.

Every line must be a record of format v1 with the right types; counters of one
(communicator, rank) never go back from one record to the next; and the newest record of
each (communicator, rank) must show what the run did: each expected function launched and
completed exactly N times, every network request posted was completed, durations
measured. Prints one PASS / FAIL line per (communicator, rank) and a last PASS or FAIL.

Usage: validate_snapshots.py DIR [--expect FUNC=N ...] [--ranks N] [--api N] [--require-gpu]
"""
import argparse
import glob
import json
import os
import re
import sys

NUM = (int, float)


def check_types(r):
    """The problems of one record's shape, as strings (empty: well formed)."""
    bad = []

    def want(obj, key, types, where="", optional=False):
        if key not in obj:
            if not optional:
                bad.append(f"{where}{key} missing")
            return
        v = obj[key]
        if isinstance(v, bool) or not isinstance(v, types):
            bad.append(f"{where}{key} has type {type(v).__name__}")

    if r.get("v") != 1:
        bad.append(f"v is {r.get('v')!r}, not 1")
    want(r, "ts", NUM)
    want(r, "host", str)
    want(r, "pid", int)
    if "gpu" not in r or not (r["gpu"] is None or (isinstance(r["gpu"], int) and not isinstance(r["gpu"], bool))):
        bad.append("gpu is neither an integer nor null")
    if not isinstance(r.get("comm"), str) or not re.fullmatch(r"[0-9a-f]{16}", r["comm"]):
        bad.append("comm is not 16 hex digits")
    want(r, "comm_name", str)
    for k in ("nranks", "nnodes", "rank"):
        want(r, k, int)
    want(r, "api", int, optional=True)
    coll = r.get("coll")
    if not isinstance(coll, dict):
        bad.append("coll is not an object")
    else:
        for f, c in coll.items():
            for k in ("launched", "completed"):
                want(c if isinstance(c, dict) else {}, k, int, f"coll.{f}.")
    net = r.get("net")
    if not isinstance(net, list):
        bad.append("net is not a list")
    else:
        for i, n in enumerate(net):
            where = f"net[{i}]."
            for k in ("peer", "posted", "completed", "bytes"):
                want(n, k, int, where)
            if n.get("dir") not in ("send", "recv"):
                bad.append(f"{where}dir is {n.get('dir')!r}")
            for k in ("recent_gbps", "last_post_ts", "last_done_ts"):
                want(n, k, NUM, where, optional=True)
    recent = r.get("recent")
    if not isinstance(recent, list):
        bad.append("recent is not a list")
    else:
        for i, c in enumerate(recent):
            where = f"recent[{i}]."
            want(c, "func", str, where)
            for k in ("seq", "bytes"):
                want(c, k, int, where)
            for k in ("start_ts", "td_us"):
                want(c, k, NUM, where)
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--expect", action="append", default=[], help="FUNC=N: launched and completed N times per rank")
    ap.add_argument("--ranks", type=int, default=0, help="how many (communicator, rank) records to expect")
    ap.add_argument("--api", type=int, default=0, help="the profiler API version NCCL must have used")
    ap.add_argument("--require-gpu", action="store_true", help="every record must name its CUDA device")
    args = ap.parse_args()
    expect = {}
    for e in args.expect:
        f, _, n = e.partition("=")
        expect[f] = int(n)

    ok = True
    latest, last_seen = {}, {}
    files = sorted(glob.glob(os.path.join(args.dir, "*.jsonl*")))
    lines = 0
    for path in files:
        for no, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
            lines += 1
            try:
                r = json.loads(line)
            except ValueError as err:
                print(f"FAIL: {path}:{no}: not JSON ({err})")
                ok = False
                continue
            if not isinstance(r, dict):
                print(f"FAIL: {path}:{no}: not an object")
                ok = False
                continue
            bad = check_types(r)
            if bad:
                print(f"FAIL: {path}:{no}: " + "; ".join(bad))
                ok = False
                continue
            key = (r["comm"], r["rank"])
            # Counters never go back (within one file, records are in time order).
            counters = {f"coll.{f}.{k}": c[k] for f, c in r["coll"].items() for k in ("launched", "completed")}
            counters.update({f"net.{n['peer']}.{n['dir']}.{k}": n[k] for n in r["net"] for k in ("posted", "completed", "bytes")})
            prev = last_seen.get((path, key), {})
            for name, v in counters.items():
                if v < prev.get(name, 0):
                    print(f"FAIL: {path}:{no}: comm {key[0]} rank {key[1]}: {name} went back from {prev[name]} to {v}")
                    ok = False
            last_seen[(path, key)] = {**prev, **counters}
            if key not in latest or latest[key]["ts"] <= r["ts"]:
                latest[key] = r
    if not latest:
        print(f"FAIL: no snapshot in {args.dir} ({len(files)} files, {lines} lines): was the plugin loaded? (NCCL_DEBUG=INFO)")
        return 1
    if args.ranks and len(latest) != args.ranks:
        print(f"FAIL: {len(latest)} (communicator, rank) records, expected {args.ranks}")
        ok = False
    for (comm, rank), r in sorted(latest.items()):
        why = []
        if args.api and r.get("api") != args.api:
            why.append(f"profiler API v{r.get('api')}, expected v{args.api}")
        if args.require_gpu and r["gpu"] is None:
            why.append("no GPU index")
        for f, n in expect.items():
            c = r["coll"].get(f, {})
            if c.get("launched") != n or c.get("completed") != n:
                why.append(f"{f} launched {c.get('launched')} completed {c.get('completed')}, expected {n}")
        for n in r["net"]:
            if n["posted"] != n["completed"]:
                why.append(f"{n['dir']} peer {n['peer']}: posted {n['posted']} completed {n['completed']}")
        tds = [c["td_us"] for c in r["recent"]]
        if expect and not tds:
            why.append("no completed collective with a duration")
        elif any(t <= 0 for t in tds):
            why.append("a duration of 0")
        good = not why
        ok &= good
        median_td = sorted(tds)[len(tds) // 2] if tds else None
        print(f"{'PASS' if good else 'FAIL'}: comm {comm} ({r['comm_name']}) rank {rank}/{r['nranks']} gpu {r['gpu']} "
              f"api v{r.get('api')}: " + (", ".join(f"{f} {r['coll'].get(f, {}).get('launched')}" for f in expect) or "-")
              + f"; {len(r['net'])} net entries; median td {median_td} us" + ("" if good else ": " + "; ".join(why)))
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
