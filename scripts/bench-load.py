#!/usr/bin/env python3
"""The load benchmark (issue 4): 50 sessions type single characters at random places of
ONE document, each against a stale base (the revision of its own last answer), for 20 s,
while 50 Server-Sent Events subscribers listen. Prints edits/s applied, p50/p99 edit
latency, p99 time from an edit's acknowledgement to its arrival at EVERY subscriber, and
the server's peak memory (VmHWM).

The HTTP ceiling, measured in the same run on the same server and ON THE SAME keep-alive
connections: once the edit phase is over, every session posts a body of the same size to
`POST /ping` (it reads the body and answers `{"received": n}`, touching nothing): same
parser, same token check, a small JSON answer, but no document at all. A second reference
row follows on those connections again: a no-op edit of the same size
(`{"insert":"","at":n,"base":r} `), which adds the edit route, body decoding and the
document lock but nothing to store or broadcast.

Fan-out: an acknowledged revision that did not reach every subscriber within the run is a
miss; misses are reported and count as infinitely late in the fan-out percentiles rather
than being left out.

The load generator runs in several processes (asyncio, raw sockets, one keep-alive
connection per session or subscriber); each reports its own CPU use, so a saturated
generator shows up in the output instead of passing for a slow server.
All traffic goes to 127.0.0.1; every phase is bounded in time.

Usage: bench-load.py --binary .build/release/tandem [--durability full] [--seconds 20]
       [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HOST = "127.0.0.1"
CHANGE = re.compile(rb"id: (\d+)\nevent: change\n")


# --- small synchronous helpers for setup ---------------------------------------------

def call(port: int, method: str, path: str, body=None, token: str | None = None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"http://{HOST}:{port}{path}", data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read() or b"null")


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def proc_status(pid: int, key: str) -> int:
    """A `kB` field of /proc/PID/status (VmHWM, VmRSS) in bytes."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return 0


def proc_cpu(pid: int) -> float:
    """User + system CPU seconds of a process so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


# --- edit sessions (one process runs many, asyncio) -----------------------------------

async def read_response(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    n = 0
    for line in head.split(b"\r\n"):
        if line[:15].lower() == b"content-length:":
            n = int(line[15:])
    return status, await reader.readexactly(n)


async def session_loop(port, doc_id, token, start_rev, start_len, phases, seed, outs):
    """One keep-alive connection for the whole run: each phase in `phases` is
    (kind, start, end) in monotonic time, kind `edit`, `ping` or `noop`."""
    rng = random.Random(seed)
    reader, writer = await asyncio.open_connection(HOST, port)
    writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    auth = f"Host: {HOST}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\n"
    prefixes = {"edit": f"POST /documents/{doc_id}/edits HTTP/1.1\r\n{auth}".encode(),
                "noop": f"POST /documents/{doc_id}/edits HTTP/1.1\r\n{auth}".encode(),
                "ping": f"POST /ping HTTP/1.1\r\n{auth}".encode()}
    rev, length = start_rev, start_len
    try:
        for kind, start, end in phases:
            out = outs[kind]
            prefix = prefixes[kind]
            while time.monotonic() < start:
                await asyncio.sleep(min(0.01, start - time.monotonic()))
            while time.monotonic() < end:
                at = rng.randint(0, length)
                if kind == "edit":
                    body = b'{"insert":"%s","at":%d,"base":%d}' % (bytes([97 + rng.randrange(26)]), at, rev)
                else:
                    # The size of an edit's body: the ceiling answers the same bytes.
                    body = b'{"insert":"","at":%d,"base":%d} ' % (at, rev)
                t0 = time.monotonic()
                writer.write(prefix + b"Content-Length: %d\r\n\r\n" % len(body) + body)
                status, answer = await read_response(reader)
                t1 = time.monotonic()
                if status != 200:
                    out["errors"][status] = out["errors"].get(status, 0) + 1
                    continue
                out["latencies"].append(t1 - t0)
                if kind != "edit":
                    continue
                a = json.loads(answer)
                # The local view: the revision of this answer and the length there.
                rev = a["revision"]
                length = sum(o if isinstance(o, int) and o > 0 else len(o) if isinstance(o, str) else 0 for o in a["ops"])
                out["acks"].append((rev, t1))
    finally:
        writer.close()


def edit_process(port, doc_id, tokens, start_rev, start_len, phases_wall, seed, queue):
    """`phases_wall` holds wall-clock (time.time) bounds, shared by every process."""
    offset = time.monotonic() - time.time()
    phases = [(kind, a + offset, b + offset) for kind, a, b in phases_wall]
    outs = {kind: {"latencies": [], "acks": [], "errors": {}} for kind, _, _ in phases}
    cpu0 = time.process_time()

    async def main():
        await asyncio.gather(*(session_loop(port, doc_id, t, start_rev, start_len, phases, seed * 1000 + i, outs)
                               for i, t in enumerate(tokens)))

    asyncio.run(main())
    wall = phases[-1][2] - phases[0][1]
    for kind, a, b in phases:
        outs[kind]["wall"] = b - a
    queue.put({"phases": outs, "cpu": time.process_time() - cpu0, "wall": wall})


# --- SSE subscribers (one process runs many, asyncio) ----------------------------------

async def subscriber(port, doc_id, ready, stop_at, arrivals):
    reader, writer = await asyncio.open_connection(HOST, port)
    writer.write(f"GET /documents/{doc_id}/events HTTP/1.1\r\nHost: {HOST}\r\nAccept: text/event-stream\r\n\r\n".encode())
    await reader.readuntil(b"\r\n\r\n")
    ready()
    buf = b""
    try:
        while True:
            remaining = stop_at() - time.monotonic()
            if remaining <= 0:
                return
            try:
                data = await asyncio.wait_for(reader.read(1 << 16), timeout=min(remaining, 0.5))
            except asyncio.TimeoutError:
                continue
            if not data:
                return
            t = time.monotonic()
            buf += data
            cut = buf.rfind(b"\n\n")  # only whole frames; the rest waits for the next read
            if cut < 0:
                continue
            for m in CHANGE.finditer(buf, 0, cut + 2):
                rev = int(m.group(1))
                seen = arrivals.get(rev)
                if seen is None:
                    arrivals[rev] = [1, t]
                else:
                    seen[0] += 1
                    seen[1] = t  # reads are in time order, so this is the latest
            buf = buf[cut + 2:]
    finally:
        writer.close()


def subscriber_process(port, doc_id, count, ready_event, stop_event, queue):
    arrivals: dict[int, list] = {}
    state = {"ready": 0, "stop": None}
    cpu0, wall0 = time.process_time(), time.monotonic()

    def ready():
        state["ready"] += 1
        if state["ready"] == count:
            ready_event.set()

    def stop_at():
        if state["stop"] is None and stop_event.is_set():
            state["stop"] = time.monotonic() + 0.05
        return state["stop"] if state["stop"] is not None else time.monotonic() + 3600

    async def main():
        await asyncio.gather(*(subscriber(port, doc_id, ready, stop_at, arrivals) for _ in range(count)))

    asyncio.run(main())
    queue.put({"arrivals": arrivals, "cpu": time.process_time() - cpu0, "wall": time.monotonic() - wall0})


# --- the run ---------------------------------------------------------------------------

def split(items: list, parts: int) -> list[list]:
    return [items[i::parts] for i in range(parts)]


def start_sessions(port, doc_id, tokens, start_rev, start_len, phases_wall, procs):
    queue = mp.Queue()
    ps = [mp.Process(target=edit_process, args=(port, doc_id, part, start_rev, start_len, phases_wall, n, queue))
          for n, part in enumerate(split(tokens, procs))]
    for p in ps:
        p.start()
    return ps, queue


def sleep_until(wall: float):
    while time.time() < wall:
        time.sleep(min(0.05, max(0.0, wall - time.time())))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--durability", default="full", choices=["full", "normal", "off"])
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--ceiling-seconds", type=float, default=10)
    ap.add_argument("--sessions", type=int, default=50)
    ap.add_argument("--subscribers", type=int, default=50)
    ap.add_argument("--edit-procs", type=int, default=2)
    ap.add_argument("--sse-procs", type=int, default=2)
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="tandem-bench-load-")
    port = free_port()
    log = open(os.path.join(work, "server.log"), "wb")
    server = subprocess.Popen([args.binary, "serve", "--host", HOST, "--port", str(port), "--data", os.path.join(work, "data"),
                               "--durability", args.durability, "--log-level", "warning"],
                              stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                call(port, "GET", "/healthz")
                break
            except OSError:
                time.sleep(0.05)
        start_text = "." * 2000
        doc = call(port, "POST", "/documents", {"id": "bench", "text": start_text})
        tokens = [call(port, "POST", "/sessions", {"name": f"s{i}"})["token"] for i in range(args.sessions)]

        # Subscribers first, all connected before the first edit.
        sub_queue, ready_events, stop_event = mp.Queue(), [], mp.Event()
        subs = []
        for part in split(list(range(args.subscribers)), args.sse_procs):
            ev = mp.Event()
            ready_events.append(ev)
            subs.append(mp.Process(target=subscriber_process, args=(port, "bench", len(part), ev, stop_event, sub_queue)))
        for p in subs:
            p.start()
        for ev in ready_events:
            if not ev.wait(timeout=30):
                raise RuntimeError("subscribers did not connect")

        # One timetable for every session: edits, a pause for stragglers, then the ceiling
        # and the no-op reference on the very same connections.
        start = time.time() + 0.5
        edit_end = start + args.seconds
        ping_start = edit_end + 2
        ping_end = ping_start + args.ceiling_seconds
        noop_start = ping_end + 1
        noop_end = noop_start + args.ceiling_seconds
        phases = [("edit", start, edit_end), ("ping", ping_start, ping_end), ("noop", noop_start, noop_end)]
        ps, queue = start_sessions(port, "bench", tokens, doc["revision"], len(start_text), phases, args.edit_procs)

        sleep_until(start)
        cpu0 = proc_cpu(server.pid)
        sleep_until(edit_end)
        load_cpu = proc_cpu(server.pid) - cpu0
        time.sleep(1.5)  # stragglers reach the subscribers
        stop_event.set()
        final_rev = call(port, "GET", "/documents/bench")["revision"]
        sleep_until(ping_start)
        cpu0 = proc_cpu(server.pid)
        sleep_until(ping_end)
        ceiling_cpu = proc_cpu(server.pid) - cpu0
        outs = [queue.get(timeout=noop_end - time.time() + 60) for _ in ps]
        for p in ps:
            p.join(timeout=10)
        sub_outs = [sub_queue.get(timeout=60) for _ in subs]
        for p in subs:
            p.join(timeout=10)
        peak = proc_status(server.pid, "VmHWM")
        after_rev = call(port, "GET", "/documents/bench")["revision"]
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()

    # --- figures ------------------------------------------------------------------------
    def phase(kind):
        return [o["phases"][kind] for o in outs]

    edits, ceiling, noop = phase("edit"), phase("ping"), phase("noop")
    acks = {rev: t for o in edits for rev, t in o["acks"]}
    latencies = [x for o in edits for x in o["latencies"]]
    applied = final_rev - doc["revision"]
    seconds = max(o["wall"] for o in edits)
    merged: dict[int, list] = {}
    for o in sub_outs:
        for rev, (n, t) in o["arrivals"].items():
            m = merged.setdefault(rev, [0, t])
            m[0] += n
            m[1] = max(m[1], t)
    complete = [rev for rev in acks if merged.get(rev, [0])[0] == args.subscribers]
    missed = sorted(rev for rev in acks if merged.get(rev, [0])[0] < args.subscribers)
    missed_deliveries = sum(args.subscribers - merged.get(rev, [0])[0] for rev in missed)
    # A miss is infinitely late: it weighs on the percentiles instead of vanishing from them.
    fanout = [merged[rev][1] - acks[rev] for rev in complete] + [float("inf")] * len(missed)
    ceiling_lat = [x for o in ceiling for x in o["latencies"]]
    ceiling_seconds = max(o["wall"] for o in ceiling)
    noop_lat = [x for o in noop for x in o["latencies"]]
    noop_seconds = max(o["wall"] for o in noop)
    errors: dict = {}
    for group in (edits, ceiling, noop):
        for o in group:
            for k, v in o["errors"].items():
                errors[k] = errors.get(k, 0) + v
    gen = {
        "session processes (CPU share of one core, whole run)": [round(o["cpu"] / o["wall"], 2) for o in outs],
        "subscriber processes": [round(o["cpu"] / o["wall"], 2) for o in sub_outs],
    }
    figures = {
        "durability": args.durability,
        "edits_per_s": applied / seconds,
        "edit_p50_ms": percentile(latencies, 50) * 1000,
        "edit_p99_ms": percentile(latencies, 99) * 1000,
        "fanout_p99_ms": percentile(fanout, 99) * 1000,
        "fanout_p50_ms": percentile(fanout, 50) * 1000,
        "fanout_missed_revisions": len(missed),
        "fanout_missed_deliveries": missed_deliveries,
        "ceiling_per_s": len(ceiling_lat) / ceiling_seconds,
        "ceiling_p99_ms": percentile(ceiling_lat, 99) * 1000,
        "noop_edit_per_s": len(noop_lat) / noop_seconds,
        "noop_edit_p99_ms": percentile(noop_lat, 99) * 1000,
        "peak_memory_mb": peak / 1e6,
        "server_cpu_cores_load": load_cpu / args.seconds,
        "server_cpu_cores_ceiling": ceiling_cpu / args.ceiling_seconds,
        "acknowledged": len(acks),
        "applied": applied,
        "delivered_to_all": len(complete),
        "errors": errors,
        "generator": gen,
        "ceiling_changed_revision": after_rev != final_rev,
    }
    saturated = [v for vs in gen.values() for v in vs if v >= 0.9]
    print(f"== bench-load: {args.sessions} sessions, {args.subscribers} subscribers, one document, "
          f"{args.seconds:.0f} s, --durability {args.durability}, {os.cpu_count()} cores")
    print(f"edits/s applied        {figures['edits_per_s']:9.0f}   ({applied} revisions; {len(acks)} acknowledged)")
    print(f"edit latency p50/p99   {figures['edit_p50_ms']:6.2f} / {figures['edit_p99_ms']:.2f} ms   (goal p99 <= 10 ms)")
    print(f"fan-out p50/p99        {figures['fanout_p50_ms']:6.2f} / {figures['fanout_p99_ms']:.2f} ms   "
          f"(ack -> arrival at all {args.subscribers}; goal p99 <= 50 ms; {len(complete)}/{len(acks)} reached every subscriber)")
    if missed:
        print(f"fan-out misses         {len(missed)} acknowledged revisions never reached every subscriber "
              f"({missed_deliveries} deliveries missing; first {missed[:5]}); counted as infinitely late")
    print(f"HTTP ceiling           {figures['ceiling_per_s']:9.0f} POST /ping/s on the same connections "
          f"(p99 {figures['ceiling_p99_ms']:.2f} ms); edits/ceiling = {figures['edits_per_s'] / figures['ceiling_per_s']:.2f} (goal >= 0.5)")
    print(f"no-op edit reference   {figures['noop_edit_per_s']:9.0f} no-op edits/s on the same connections "
          f"(p99 {figures['noop_edit_p99_ms']:.2f} ms)")
    print(f"server peak memory     {figures['peak_memory_mb']:9.1f} MB (VmHWM)")
    print(f"server CPU             {figures['server_cpu_cores_load']:.2f} cores under load, "
          f"{figures['server_cpu_cores_ceiling']:.2f} during the ceiling")
    print(f"generator CPU          {gen}" + ("  ** SATURATED: the generator may be the bottleneck **" if saturated else ""))
    if errors:
        print(f"non-200 answers        {errors}")
    if figures["ceiling_changed_revision"]:
        print("WARNING: the ceiling or no-op requests changed the document")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
