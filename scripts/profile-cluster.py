#!/usr/bin/env python3
"""One configuration of bench-load's cluster comparison, alone, for profiling: NODES release
nodes on one PostgreSQL schema (TANDEM_TEST_DATABASE_URL; `source scripts/test-postgres.sh &&
start_test_postgres` makes one), 50 typing sessions and 50 subscribers spread over DOCS
documents as scripts/bench-load.py spreads them, SECS seconds of edits, `perf record -e
cpu-clock -g` on every node meanwhile (PERF=0: none). Prints the nodes' CPU per applied edit;
the profile is in /tmp/profile-cluster.data (`perf report -i ... --children`).

Usage: NODES=2 DOCS=1 SECS=10 [BIN=.build/release/tandem] scripts/profile-cluster.py
"""
import json, os, shutil, subprocess, tempfile, time, urllib.request
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("BIN", os.path.join(ROOT, ".build/release/tandem"))
GEN = os.path.join(os.path.dirname(BIN), "tandem-load")
DB = os.environ["TANDEM_TEST_DATABASE_URL"]
NODES = int(os.environ.get("NODES", "2"))
SECS = float(os.environ.get("SECS", "10"))
schema = f"profile_{os.getpid()}"
def call(port, method, path, body=None, token=None):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method, data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Content-Type": "application/json", **({"Authorization": "Bearer " + token} if token else {})})
    return json.loads(urllib.request.urlopen(req).read() or b"{}")
work = tempfile.mkdtemp(prefix="tandem-profile-")
plan = os.path.join(work, "load.plan")
procs = []
ports = [19101 + k for k in range(NODES)]
def up(port):
    p = subprocess.Popen([BIN, "serve", "--host", "127.0.0.1", "--port", str(port), "--data", f"{work}/node-{port}",
                          "--database", DB, "--database-schema", schema, "--log-level", "warning"], stdout=open(f"{work}/node-{port}.log", "w"), stderr=subprocess.STDOUT)
    procs.append(p)
    for _ in range(200):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz"); return
        except Exception: time.sleep(0.05)
up(ports[0])
D = int(os.environ.get("DOCS", "1"))
docs = ["bench"] if D == 1 else [f"s{d:03d}" for d in range(D)]
for d in docs: call(ports[0], "POST", "/documents", {"id": d, "text": "." * 2000})
for p in ports[1:]: up(p)
lines = [f"document {d} 0 2000" for d in docs]
for i in range(50):
    port = ports[i % NODES]
    own = [d for d in range(D) if d % 50 == i] if D > 1 else [0]
    lines.append(f"session {port} {call(port, 'POST', '/sessions', {'name': f's{i}'})['token']} {','.join(map(str, own))}")
for j in range(50):
    doc = 0 if D == 1 else (j * max(1, D // 50) + (j // NODES) % NODES) % D
    lines.append(f"subscriber {ports[j % NODES]} {doc}")
open(plan, "w").write("\n".join(lines) + "\n")
load = subprocess.Popen([GEN, "--plan", plan, "--events-encoding", "gzip"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
assert load.stdout.readline().strip() == b"ready"
t0 = time.monotonic() + 1.0
load.stdin.write(f"edit {t0:.6f} {t0 + SECS:.6f} subscribers-until {t0 + SECS + 2:.6f}\n".encode()); load.stdin.close()
pids = ",".join(str(p.pid) for p in procs)
perf = subprocess.Popen(["perf", "record", "-e", "cpu-clock", "-g", "-F", "999", "-p", pids, "-o", "/tmp/profile-cluster.data", "--", "sleep", str(SECS)],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) if os.environ.get("PERF", "1") == "1" else None
time.sleep(1.0)
c0 = [sum(int(x) for x in open(f"/proc/{p.pid}/stat").read().rsplit(")", 1)[1].split()[11:13]) for p in procs]
r0 = sum(call(ports[0], "GET", f"/documents/{d}")["revision"] for d in docs)
time.sleep(SECS)
c1 = [sum(int(x) for x in open(f"/proc/{p.pid}/stat").read().rsplit(")", 1)[1].split()[11:13]) for p in procs]
r1 = sum(call(ports[0], "GET", f"/documents/{d}")["revision"] for d in docs)
if perf: perf.wait()
ticks = os.sysconf("SC_CLK_TCK")
print(f"nodes={NODES} documents={D} edits={r1 - r0} Tandem CPU per edit {(sum(c1) - sum(c0)) / ticks * 1e6 / (r1 - r0):.1f} us")
load.wait(timeout=30)
for p in procs: p.terminate()
for p in procs: p.wait()
shutil.rmtree(work, ignore_errors=True)
