#!/usr/bin/env python3
"""The load benchmark (issue 4): 50 sessions type single characters at random places of
ONE document, each against a stale base (the revision of its own last answer), for 20 s,
while 50 Server-Sent Events subscribers listen. Prints edits/s applied, p50/p99 edit
latency, p99 time from an edit's acknowledgement to its arrival at EVERY subscriber, and
the server's peak memory (VmHWM).

The HTTP ceiling, measured in the same run on the same server and ON THE SAME keep-alive
connections: the edits and the ceiling run in alternating rounds (`--rounds`, 4 by default,
a pause for stragglers after each), so that the ratio compares the two under the same
machine, whose hypervisor steal swings from one ten seconds to the next here. In the ceiling
rounds every session posts a body of the same size to
`POST /ping` (it reads the body and answers `{"received": n}`, touching nothing): same
parser, same token check, a small JSON answer, but no document at all. A second reference
row follows on those connections again: a no-op edit of the same size
(`{"insert":"","at":n,"base":r} `), which adds the edit route, body decoding and the
document lock but nothing to store or broadcast. The server's CPU time per applied edit and
per ping (from /proc) shows what an edit costs over the bare HTTP layer, whatever the machine.

Fan-out: an acknowledged revision that did not reach every subscriber within the run is a
miss; misses are reported and count as infinitely late in the fan-out percentiles rather
than being left out.

This script orchestrates: it starts the server, makes the document and the sessions, and
measures the server (CPU per phase, peak memory). The load itself comes from `tandem-load`
(Sources/tandem-load, compiled Swift, one epoll thread for the sessions and one for the
subscribers, parsing answers and event streams by hand), so that the generator costs the
2-core machine as little CPU as possible; it reports its own CPU per phase, and a saturated
generator shows up in the output instead of passing for a slow server.
All traffic goes to 127.0.0.1; every phase is bounded in time.

Usage: bench-load.py --binary .build/release/tandem [--generator .build/release/tandem-load]
       [--durability full] [--seconds 20] [--ceiling-seconds 10] [--rounds 4] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HOST = "127.0.0.1"


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


STORE_COUNTERS = ("tandem_store_transactions_total", "tandem_store_revisions_appended_total",
                  "tandem_store_wal_flushes_total", "tandem_store_wal_flush_seconds_total",
                  "tandem_store_commit_seconds_total")


def store_counters(port: int) -> dict[str, float]:
    """The store's counters from /metrics: transactions against changes is group commit's
    batch; the time counters against their counts are the mean commit and WAL flush."""
    with urllib.request.urlopen(f"http://{HOST}:{port}/metrics", timeout=10) as r:
        text = r.read().decode()
    values = dict.fromkeys(STORE_COUNTERS, 0.0)
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name in values:
            values[name] = float(value)
    return values


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def wait_until_up(port: int):
    """Polls /healthz for up to 15 s; a server that never answers fails the first real call."""
    for _ in range(300):
        try:
            call(port, "GET", "/healthz")
            return
        except OSError:
            time.sleep(0.05)


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


def machine_ticks() -> list[int]:
    """The machine's CPU time so far by kind (the first line of /proc/stat), in ticks."""
    with open("/proc/stat") as f:
        return [int(v) for v in f.readline().split()[1:9]]


def machine_shares(before: list[int], after: list[int]) -> dict[str, float]:
    """Each kind's share of the machine between two readings: `steal` is time the hypervisor
    gave the VM's CPUs to someone else, which no process here can see in its own CPU time
    and which swings run to run on a shared host."""
    d = [b - a for a, b in zip(before, after)]
    total = sum(d) or 1
    names = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"]
    return {n: round(v / total, 3) for n, v in zip(names, d)}


# --- the run ---------------------------------------------------------------------------
# One clock for both processes: Python's time.monotonic() is CLOCK_MONOTONIC on Linux, the
# clock tandem-load reads, so the timetable passes as plain numbers.

def sleep_until(t: float):
    while time.monotonic() < t:
        time.sleep(min(0.05, max(0.0, t - time.monotonic())))


def read_line(proc: subprocess.Popen, timeout: float) -> str:
    """One line of the generator's stdout, or an error once it exits or `timeout` passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], max(0.0, min(1.0, deadline - time.monotonic())))
        if ready:
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError(f"tandem-load exited early ({proc.wait(timeout=10)})")
            return line.decode()
    raise RuntimeError("tandem-load said nothing in time")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--generator", help="the tandem-load binary (default: next to --binary)")
    ap.add_argument("--durability", default="full", choices=["full", "normal", "off"])
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--ceiling-seconds", type=float, default=10)
    ap.add_argument("--rounds", type=int, default=4,
                    help="edit and ceiling windows in turn, so both see the same machine (default 4)")
    ap.add_argument("--sessions", type=int, default=50)
    ap.add_argument("--subscribers", type=int, default=50)
    ap.add_argument("--events-encoding", choices=("gzip", "identity"), default="gzip",
                    help="what the subscribers ask for: gzip (default), as a browser's EventSource does, or identity")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()
    generator = args.generator or os.path.join(os.path.dirname(os.path.abspath(args.binary)), "tandem-load")
    if not os.access(generator, os.X_OK):
        ap.error(f"no tandem-load at {generator}: swift build -c release --product tandem-load")

    work = tempfile.mkdtemp(prefix="tandem-bench-load-")
    port = free_port()
    log = open(os.path.join(work, "server.log"), "wb")
    server = subprocess.Popen([args.binary, "serve", "--host", HOST, "--port", str(port), "--data", os.path.join(work, "data"),
                               "--durability", args.durability, "--log-level", "warning"],
                              stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    load = None
    try:
        wait_until_up(port)
        start_text = "." * 2000
        doc = call(port, "POST", "/documents", {"id": "bench", "text": start_text})
        tokens = [call(port, "POST", "/sessions", {"name": f"s{i}"})["token"] for i in range(args.sessions)]
        tokens_file = os.path.join(work, "tokens")
        with open(tokens_file, "w") as f:
            f.write("\n".join(tokens) + "\n")

        # The generator connects every subscriber first and says `ready`; only then is the
        # timetable fixed, so all of them listen before the first edit.
        load = subprocess.Popen([generator, "--port", str(port), "--document", "bench",
                                 "--start-revision", str(doc["revision"]), "--start-length", str(len(start_text)),
                                 "--subscribers", str(args.subscribers), "--tokens-file", tokens_file,
                                 "--events-encoding", args.events_encoding],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        if read_line(load, 60).strip() != "ready":
            raise RuntimeError("tandem-load did not say ready")

        # One timetable for every session: rounds of edits and of the ceiling in turn, each
        # after a pause for stragglers, then the no-op reference, all on the very same
        # connections. Alternating puts the edits and their ceiling under the same machine:
        # on this shared host the hypervisor's steal swings from one ten seconds to the next.
        start = time.monotonic() + 0.5
        edit_len, ping_len = args.seconds / args.rounds, args.ceiling_seconds / args.rounds
        windows: list[tuple[str, float, float]] = []
        t = start
        for _ in range(args.rounds):
            windows.append(("edit", t, t + edit_len))
            t += edit_len + 1.5  # stragglers are answered and reach the subscribers
            windows.append(("ping", t, t + ping_len))
            t += ping_len + 0.5
        windows.append(("noop", t, t + args.ceiling_seconds))
        edit_end = max(b for k, a, b in windows if k == "edit")
        subscribers_until = edit_end + 1.5
        load.stdin.write((" ".join(f"{k} {a:.6f} {b:.6f}" for k, a, b in windows)
                          + f" subscribers-until {subscribers_until:.6f}\n").encode())
        load.stdin.close()

        # Server CPU, the machine's ticks and the store's counters over each kind's windows.
        cpu = dict.fromkeys(("edit", "ping", "noop"), 0.0)
        ticks = {k: [0] * 8 for k in cpu}
        store_delta = dict.fromkeys(STORE_COUNTERS, 0.0)
        final = None
        for kind, a, b in windows:
            sleep_until(a)
            cpu0, ticks0 = proc_cpu(server.pid), machine_ticks()
            store0 = store_counters(port) if kind == "edit" else None
            sleep_until(b)
            cpu[kind] += proc_cpu(server.pid) - cpu0
            ticks[kind] = [x + y1 - y0 for x, y0, y1 in zip(ticks[kind], ticks0, machine_ticks())]
            if store0 is not None:
                store1 = store_counters(port)
                for k in STORE_COUNTERS:
                    store_delta[k] += store1[k] - store0[k]
            if kind == "edit" and b == edit_end:
                sleep_until(subscribers_until + 0.05)
                final = call(port, "GET", "/documents/bench")
        final_rev, final_len = final["revision"], len(final["text"].encode("utf-16-le")) // 2
        load_cpu, ceiling_cpu, noop_cpu = cpu["edit"], cpu["ping"], cpu["noop"]
        load_machine = machine_shares([0] * 8, ticks["edit"])
        ceiling_machine = machine_shares([0] * 8, ticks["ping"])
        out = json.loads(read_line(load, 30))
        if load.wait(timeout=30) != 0:
            raise RuntimeError(f"tandem-load failed ({load.returncode})")
        peak = proc_status(server.pid, "VmHWM")
        after_rev = call(port, "GET", "/documents/bench")["revision"]
    finally:
        if load is not None and load.poll() is None:
            load.kill()
            load.wait(timeout=10)
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()

    # --- figures ------------------------------------------------------------------------
    edit, ceiling, noop = (out["phases"][k] for k in ("edit", "ping", "noop"))
    applied = final_rev - doc["revision"]
    acked = out["acknowledged"]
    complete = out["delivered_to_all"]
    missed = out["fanout_missed_revisions"]
    errors: dict = {}
    for ph in (edit, ceiling, noop):
        for k, v in ph["errors"].items():
            errors[k] = errors.get(k, 0) + v
    g = out["generator"]
    gen = {
        "sessions thread (share of one core)": {k: round(v, 2) for k, v in g["sessions_thread"].items()},
        "subscribers thread": {k: round(v, 2) for k, v in g["subscribers_thread"].items()},
        "whole generator (cores)": {k: round(v, 2) for k, v in g["process_cores"].items()},
        "longest loop turn (ms)": {k: round(v, 1) for k, v in g["longest_turn_ms"].items()},
    }
    # The sessions' local view, from the answers' ops, must match the document itself.
    newest = out["newest_acknowledged"]
    length_ok = newest["revision"] != final_rev or newest["length"] == final_len
    us_per_edit = load_cpu * 1e6 / applied if applied else float("nan")
    us_per_ping = ceiling_cpu * 1e6 / ceiling["answered"] if ceiling["answered"] else float("nan")
    us_per_noop = noop_cpu * 1e6 / noop["answered"] if noop["answered"] else float("nan")
    # The generator shares the machine: what a request costs both processes together bounds
    # the ratio when the CPUs, not latency, are what runs out.
    edits_per_s = applied / edit["seconds"]
    pings_per_s = ceiling["answered"] / ceiling["seconds"]
    gen_us_per_edit = g["process_cores"].get("edit", 0) * 1e6 / edits_per_s if edits_per_s else float("nan")
    gen_us_per_ping = g["process_cores"].get("ping", 0) * 1e6 / pings_per_s if pings_per_s else float("nan")
    figures = {
        "durability": args.durability,
        "edits_per_s": edits_per_s,
        "edit_p50_ms": edit["p50_ms"],
        "edit_p99_ms": edit["p99_ms"],
        "fanout_p99_ms": out["fanout_p99_ms"],
        "fanout_p50_ms": out["fanout_p50_ms"],
        "fanout_missed_revisions": missed,
        "fanout_missed_deliveries": out["fanout_missed_deliveries"],
        "fanout_duplicate_deliveries": out["duplicate_deliveries"],
        "ceiling_per_s": pings_per_s,
        "ceiling_p99_ms": ceiling["p99_ms"],
        "noop_edit_per_s": noop["answered"] / noop["seconds"],
        "noop_edit_p99_ms": noop["p99_ms"],
        "peak_memory_mb": peak / 1e6,
        # What each subscriber reads per change (event frames and chunk framing, gzipped or
        # not): the fan-out's share of both processes' CPU grows with it.
        "stream_bytes_per_change": out["stream_bytes"] / max(1, args.subscribers * applied),
        "events_encoding": args.events_encoding,
        "stream_gzip_pieces": out["stream_gzip_pieces"],
        "changes_per_transaction": store_delta["tandem_store_revisions_appended_total"] / max(1, store_delta["tandem_store_transactions_total"]),
        # The disk's part of an edit's wait (durability full) and the writer's.
        "mean_wal_flush_ms": 1e3 * store_delta["tandem_store_wal_flush_seconds_total"] / max(1, store_delta["tandem_store_wal_flushes_total"]),
        "wal_flushes_per_s": store_delta["tandem_store_wal_flushes_total"] / args.seconds,
        "mean_commit_ms": 1e3 * store_delta["tandem_store_commit_seconds_total"] / max(1, store_delta["tandem_store_transactions_total"]),
        "server_cpu_cores_load": load_cpu / args.seconds,
        "server_cpu_cores_ceiling": ceiling_cpu / args.ceiling_seconds,
        "server_cpu_cores_noop": noop_cpu / args.ceiling_seconds,
        "server_cpu_us_per_edit": us_per_edit,
        "server_cpu_us_per_ping": us_per_ping,
        "server_cpu_us_per_noop_edit": us_per_noop,
        "server_cpu_edit_over_ping": us_per_edit / us_per_ping if us_per_ping else float("nan"),
        "generator_cpu_us_per_edit": gen_us_per_edit,
        "generator_cpu_us_per_ping": gen_us_per_ping,
        "cpu_bound_ratio": (us_per_ping + gen_us_per_ping) / (us_per_edit + gen_us_per_edit),
        "machine_load": load_machine,
        "machine_ceiling": ceiling_machine,
        "acknowledged": acked,
        "applied": applied,
        "delivered_to_all": complete,
        "revisions_delivered_to_all": out["revisions_seen_by_all"],
        "subscribers_lost": out["subscribers_lost"],
        "errors": errors,
        "generator": gen,
        "ceiling_changed_revision": after_rev != final_rev,
        "length_check": ("skipped" if newest["revision"] != final_rev else "ok" if length_ok else "mismatch"),
    }
    shares = [v for k in ("sessions_thread", "subscribers_thread") for v in g[k].values()]
    saturated = any(v >= 0.9 for v in shares)
    # Both loops wait 10 ms at most: a far longer turn means a thread was off the CPU (this
    # machine is shared with the server), and the tail percentiles may be partly its own.
    stalled = {k: v for k, v in g["longest_turn_ms"].items() if v >= 50}
    print(f"== bench-load: {args.sessions} sessions, {args.subscribers} subscribers, one document, "
          f"{args.seconds:.0f} s of edits and {args.ceiling_seconds:.0f} s of ceiling in {args.rounds} alternating rounds, "
          f"--durability {args.durability}, {os.cpu_count()} cores")
    print(f"edits/s applied        {figures['edits_per_s']:9.0f}   ({applied} revisions; {acked} acknowledged)")
    print(f"edit latency p50/p99   {figures['edit_p50_ms']:6.2f} / {figures['edit_p99_ms']:.2f} ms   (goal p99 <= 10 ms)")
    print(f"fan-out p50/p99        {figures['fanout_p50_ms']:6.2f} / {figures['fanout_p99_ms']:.2f} ms   "
          f"(ack -> arrival at all {args.subscribers}; goal p99 <= 50 ms; {complete}/{acked} reached every subscriber)")
    if missed:
        print(f"fan-out misses         {missed} acknowledged revisions never reached every subscriber "
              f"({out['fanout_missed_deliveries']} deliveries missing; first {out['fanout_first_missed']}); "
              f"counted as infinitely late")
    if out["duplicate_deliveries"] or out["unexpected_revisions"] or out["subscribers_lost"]:
        print(f"WARNING: event stream: {out['duplicate_deliveries']} duplicate deliveries, "
              f"{out['unexpected_revisions']} unexpected revisions, subscribers lost {out['subscribers_lost']}")
    print(f"HTTP ceiling           {figures['ceiling_per_s']:9.0f} POST /ping/s on the same connections "
          f"(p99 {figures['ceiling_p99_ms']:.2f} ms); edits/ceiling = {figures['edits_per_s'] / figures['ceiling_per_s']:.2f} (goal >= 0.5)")
    print(f"no-op edit reference   {figures['noop_edit_per_s']:9.0f} no-op edits/s on the same connections "
          f"(p99 {figures['noop_edit_p99_ms']:.2f} ms)")
    print(f"server peak memory     {figures['peak_memory_mb']:9.1f} MB (VmHWM)")
    pieces = figures["stream_gzip_pieces"]
    print(f"event-stream bytes     {figures['stream_bytes_per_change']:9.1f} per change per subscriber (frames and chunking, "
          f"{figures['events_encoding']}" + (f"; of the gzip pieces read, {pieces['inflated']} were inflated and "
                                             f"{pieces['shared']} were byte for byte one already inflated)" if figures['events_encoding'] == 'gzip' else ")"))
    print(f"group commit           {figures['changes_per_transaction']:9.1f} changes per transaction during the edits; "
          f"mean commit {figures['mean_commit_ms']:.3f} ms"
          + (f", mean WAL flush {figures['mean_wal_flush_ms']:.3f} ms ({figures['wal_flushes_per_s']:.0f}/s)"
             if figures["wal_flushes_per_s"] else ""))
    print(f"server CPU             {figures['server_cpu_cores_load']:.2f} cores under load, "
          f"{figures['server_cpu_cores_ceiling']:.2f} during the ceiling, {figures['server_cpu_cores_noop']:.2f} during the no-op edits")
    print(f"server CPU per request {us_per_edit:9.1f} us per applied edit, {us_per_ping:.1f} us per ping, "
          f"{us_per_noop:.1f} us per no-op edit; edit/ping = {figures['server_cpu_edit_over_ping']:.2f}")
    print(f"machine CPU per request {us_per_edit + gen_us_per_edit:8.1f} us per edit (server + generator), "
          f"{us_per_ping + gen_us_per_ping:.1f} us per ping: if the CPUs ran out, edits/ceiling could be at most "
          f"{figures['cpu_bound_ratio']:.2f}")
    print(f"generator CPU          {gen}" + ("  ** SATURATED: the generator may be the bottleneck **" if saturated else ""))
    print(f"machine (both CPUs)    edits: steal {load_machine['steal']:.0%}, idle {load_machine['idle']:.0%}, "
          f"iowait {load_machine['iowait']:.0%}; ceiling: steal {ceiling_machine['steal']:.0%}, "
          f"idle {ceiling_machine['idle']:.0%}  (steal: CPU the hypervisor gave elsewhere)")
    if stalled:
        print(f"NOTE: a generator loop went {max(stalled.values()):.0f} ms without a turn ({', '.join(stalled)}): "
              f"some tail latency may be the generator's")
    if errors:
        print(f"non-200 answers        {errors}")
    if not length_ok:
        print(f"WARNING: the generator computed length {newest['length']} at revision {final_rev}; the document has {final_len}")
    if figures["ceiling_changed_revision"]:
        print("WARNING: the ceiling or no-op requests changed the document")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
