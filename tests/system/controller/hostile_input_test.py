#!/usr/bin/env python3
"""The real `aegis controller` process against hostile callers, as a suspicious operator
tries it: a node's token speaking for another node, a class the catalogue does not give,
a rule it does not have, bodies nested 100,000 deep, over the limit, not UTF-8, with
control characters, as a form, half-sent; a raw socket that sends garbage; more clients
sending a byte every half second than the server has workers. After each,
the process still serves, keeps what was good in a batch, and says why it refused the
rest. Run with AEGIS set to the binary; exits 1 on the first failed check."""
import json
import os
import socket
import stat
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

AEGIS = os.environ["AEGIS"]
failed = False


def check(what, ok, detail=""):
    global failed
    print(("ok: " if ok else "FAIL: ") + what + ("" if ok else f" -- {detail}"))
    failed |= not ok


def request(url, method, path, body=b"", token="", content_type="application/json", headers=None):
    req = urllib.request.Request(url + path, data=body if method != "GET" else None, method=method)
    if token:
        req.add_header("Authorization", "Bearer " + token)
    if method != "GET":
        req.add_header("Content-Type", content_type)
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except (ConnectionError, urllib.error.URLError) as e:
        return 0, str(e).encode()


def log_event(eid, node, rule="xid-79", cls="critical", component="gpu", file=None, source="kernel"):
    return {"id": eid, "type": "log", "node": node, "source": source,
            "file": file or f"nodes/{node}/kernel.log", "line": 7, "ts": time.time(), "ts_exact": True,
            "rule": rule, "class": cls, "component": component, "xid": 79,
            "text": "NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus."}


def main():
    tmp = tempfile.mkdtemp()
    tokens = os.path.join(tmp, "tokens")
    old = os.umask(0o077)
    with open(tokens, "w") as f:
        f.write("operator operator-token-0123456789 ops\n")
    os.umask(old)
    agent_token = {}
    for node in ("node-1", "node-2"):
        out = os.path.join(tmp, node + ".token")
        subprocess.run([AEGIS, "tokens", "create", "--file", tokens, "--node", node, "--out", out],
                       check=True, stderr=subprocess.DEVNULL)
        agent_token[node] = open(out).read().strip()
    check("the token file stays private", stat.S_IMODE(os.stat(tokens).st_mode) == 0o600)
    topo = os.path.join(tmp, "topology.json")
    with open(topo, "w") as f:
        json.dump({"nodes": [{"host": "node-1"}, {"host": "node-2"}, {"host": "node-3"}]}, f)
    log = open(os.path.join(tmp, "controller.log"), "w+")
    ctl = subprocess.Popen([AEGIS, "controller", "--listen", "127.0.0.1:0", "--db", f"sqlite:{tmp}/aegis.db",
                            "--topology", topo, "--token-file", tokens, "--dry-run", "--max-body-mb", "1",
                            "--client-deadline", "3"],
                           stdout=log, stderr=subprocess.STDOUT)
    url = ""
    for _ in range(200):
        log.seek(0)
        for line in log.read().splitlines():
            if line.startswith("aegis controller: listening on "):
                url = line.split()[4]
        if url:
            break
        time.sleep(0.05)
    if not url:
        log.seek(0)
        print("controller did not start:", log.read())
        ctl.kill()
        return 1
    host, port = url.split("//")[1].split(":")
    a1, a2, op = agent_token["node-1"], agent_token["node-2"], "operator-token-0123456789"

    def alive(after):
        st, _ = request(url, "GET", "/healthz")
        check(f"still serving after {after}", st == 200 and ctl.poll() is None, f"status {st}")

    # A node's token speaking for another node.
    st, body = request(url, "POST", "/api/v1/events",
                       json.dumps({"node": "node-2", "agent": "a", "events": [log_event("x1", "node-2")]}).encode(), a1)
    check("node-1's token posting node-2's batch: 403", st == 403, body)
    batch = {"node": "node-1", "agent": "a", "events": [
        log_event("own", "node-1"),
        log_event("about-2", "node-2"),
        log_event("their-file", "node-1", file="nodes/node-2/kernel.log"),
        log_event("switch", "node-1", source="switch", file="switches/leaf-1.log"),
        {"id": "probe", "type": "probe", "src": "node-3", "dst": "node-2", "size": 4096, "sent": 10, "lost": 10},
        log_event("made-up", "node-1", rule="my-own-rule"),
    ]}
    st, body = request(url, "POST", "/api/v1/events", json.dumps(batch).encode(), a1)
    ans = json.loads(body) if st == 200 else {}
    refused = sorted(r["id"] for r in ans.get("rejected", []))
    check("its own event taken, the others refused one by one", st == 200 and ans.get("accepted") == 1 and
          refused == ["about-2", "made-up", "probe", "switch", "their-file"], body)
    # A class the catalogue does not give: a GPU off the bus claimed a hint (to keep a node
    # in service) is stored as the catalogue's, with the claim beside it.
    claimed = log_event("claimed", "node-2", cls="hint", component="host")
    st, body = request(url, "POST", "/api/v1/events",
                       json.dumps({"node": "node-2", "agent": "a", "events": [claimed]}).encode(), a2)
    check("a claimed class is accepted", st == 200 and json.loads(body).get("accepted") == 1, body)
    _, metrics = request(url, "GET", "/metrics")
    metrics = metrics.decode()

    def metric(name):
        for line in metrics.splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
        return -1

    check("foreign events counted", metric("aegis_events_foreign_total") == 4, metrics)
    check("foreign batches counted", metric("aegis_event_batches_foreign_total") == 1)
    check("unknown rules counted", metric("aegis_events_unknown_rule_total") == 1)
    check("reclassified counted", metric("aegis_events_reclassified_total") == 1)

    # Bodies no parser should follow.
    deep = b'{"node": "node-1", "agent": "a", "events": [' + b"[" * 100000 + b"]" * 100000 + b"]}"
    st, body = request(url, "POST", "/api/v1/events", deep, a1)
    check("100,000-deep nesting: 400", st == 400 and b"nested deeper" in body, (st, body[:200]))
    alive("deep nesting")
    st, body = request(url, "POST", "/api/v1/events", b'{"node": "node-1", "pad": "' + b"x" * (2 << 20) + b'"}', a1)
    check("a body over --max-body-mb: 413 naming the limit", st in (413, 0) and (st == 0 or b"1048576" in body),
          (st, body[:200]))
    alive("an oversized body")
    st, body = request(url, "POST", "/api/v1/events", b'{"node": "node-1", "agent": "\xff\xfe", "events": []}', a1)
    check("not UTF-8: 400", st == 400, (st, body))
    st, body = request(url, "POST", "/api/v1/events",
                       json.dumps({"node": "node-1\u001b[31m", "agent": "a", "events": []}).encode(), a1)
    check("a node name with an escape sequence: refused", st in (400, 403) and b"\x1b" not in body, (st, body))
    st, body = request(url, "POST", "/api/v1/jobs", b"id=job-1&hosts=node-1", op, "application/x-www-form-urlencoded")
    check("a form body: 415", st == 415, (st, body))
    st, body = request(url, "POST", "/api/v1/jobs", b"--b\r\n\r\nx\r\n--b--\r\n", op, "multipart/form-data; boundary=b")
    check("a multipart body: 415", st == 415, (st, body))
    st, body = request(url, "POST", "/api/v1/jobs", b"[" * 200 + b"]" * 200, op)
    check("a nested job: 400", st == 400, (st, body))
    st, body = request(url, "POST", "/api/v1/jobs",
                       json.dumps({"id": "job\u0000\u0007-1", "hosts": ["node-1"]}).encode(), op)
    check("a job id with control characters: 400", st == 400, (st, body))
    alive("bad bodies")

    # Raw sockets: garbage, a request line without end, a body shorter than its length.
    for raw in (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + os.urandom(200),
                b"GET /" + b"A" * 20000 + b" HTTP/1.1\r\n\r\n",
                b"POST /api/v1/events HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\nAuthorization: Bearer "
                + a1.encode() + b"\r\nContent-Type: application/json\r\n\r\n{\"node\""):
        s = socket.create_connection((host, int(port)), timeout=10)
        s.sendall(raw)
        s.shutdown(socket.SHUT_WR)
        try:
            s.recv(4096)
        except OSError:
            pass
        s.close()
    alive("raw garbage and half-sent requests")

    # More slow clients than the server has workers (32), each sending a byte every half
    # second: each is cut at --client-deadline (3 s here), and others are served meanwhile.
    slow = []
    for _ in range(40):
        s = socket.create_connection((host, int(port)), timeout=10)
        s.sendall(b"P")
        slow.append(s)
    served = 0
    t_end = time.time() + 8
    while time.time() < t_end:
        for s in slow:
            try:
                s.sendall(b"O")
            except OSError:
                pass
        st, _ = request(url, "GET", "/healthz")
        served += st == 200
        time.sleep(0.5)
    for s in slow:
        s.close()
    check("served while 40 clients trickle bytes", served >= 5, served)
    _, metrics = request(url, "GET", "/metrics")
    cut = [l for l in metrics.decode().splitlines() if l.startswith("aegis_connections_cut_total ")]
    check("slow clients cut at --client-deadline", cut and float(cut[0].split()[1]) >= 40, cut)

    # What was good is there; what the operator reads has no escape sequences in it.
    st, body = request(url, "GET", "/api/v1/status", token=op)
    check("status reads", st == 200, (st, body[:200]))
    st, body = request(url, "POST", "/api/v1/events",
                       json.dumps({"node": "node-1", "agent": "a", "events": [log_event("own", "node-1")]}).encode(), a1)
    check("the good event is stored once (a resend is a duplicate)", st == 200 and json.loads(body).get("duplicates") == 1,
          body)
    ctl.terminate()
    rc = ctl.wait(30)
    check("SIGTERM stops it cleanly", rc == 0, rc)
    log.seek(0)
    text = log.read()
    check("no token in the controller's log", not any(t in text for t in (a1, a2, op)), "")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
