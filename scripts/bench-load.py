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
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import ketama

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
    cluster = ap.add_argument_group("several nodes on one PostgreSQL (issue 30): given --nodes or --database, the run "
                                    "compares configurations instead (see cluster_main); --seconds is then each "
                                    "configuration's edit time and --ceiling-seconds is unused")
    cluster.add_argument("--nodes", type=int, help="nodes of the cluster configuration (default 2)")
    cluster.add_argument("--database", help="PostgreSQL URL the PostgreSQL nodes use (a schema of their own each, dropped at the end)")
    cluster.add_argument("--documents", type=int, default=200, help="documents of the spread scenario (default 200)")
    cluster.add_argument("--settle", type=float, default=1.5,
                         help="seconds after each edit window for stragglers and the fan-out, inside its CPU window (default 1.5)")
    cluster.add_argument("--no-spread", action="store_true", help="only the hot document, not the spread scenario")
    cluster.add_argument("--cluster", choices=("leases", "sequenced"), default="leases",
                         help="how the PostgreSQL nodes share documents (tandem serve --cluster; default leases)")
    cluster.add_argument("--routing", choices=("round-robin", "hash"), default="round-robin",
                         help="which node of the cluster a client talks to: round-robin (session i and subscriber i on "
                              "node i mod N, the default) or hash (every request about a document to the node nginx's "
                              "`hash $document consistent` picks, as deploy/nginx.conf routes; writers are dealt the "
                              "documents of one node each)")
    args = ap.parse_args()
    generator = args.generator or os.path.join(os.path.dirname(os.path.abspath(args.binary)), "tandem-load")
    if not os.access(generator, os.X_OK):
        ap.error(f"no tandem-load at {generator}: swift build -c release --product tandem-load")
    if args.nodes is not None or args.database:
        if not args.database:
            ap.error("--nodes needs --database (scripts/bench-load.sh starts a throwaway PostgreSQL without it)")
        if (args.nodes or 2) < 1 or args.documents < 1 or args.rounds < 1:
            ap.error("--nodes, --documents and --rounds must be at least 1")
        return cluster_main(args, generator)

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
        "fanout_max_ms": out.get("fanout_max_ms", float("nan")),
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
    print(f"fan-out p50/p99/max    {figures['fanout_p50_ms']:6.2f} / {figures['fanout_p99_ms']:.2f} / {figures['fanout_max_ms']:.2f} ms   "
          f"(ack -> arrival at all {args.subscribers}; goal p99 <= 50 ms; {complete}/{acked} reached every subscriber)")
    if missed:
        print(f"fan-out misses         {missed} acknowledged revisions never reached every subscriber "
              f"({out['fanout_missed_deliveries']} deliveries missing; first {out['fanout_first_missed']}); "
              f"counted as infinitely late")
    if out["subscribers_refused"]:
        print(f"WARNING: event streams refused (left out of the fan-out): {out['subscribers_refused']}")
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


# --- several nodes on one PostgreSQL (issue 30) -------------------------------------------
#
# With --nodes or --database the run compares configurations instead of durabilities:
#   (a) one node on SQLite, (b) one node on PostgreSQL, (c) N nodes on PostgreSQL sharing one
#   schema, every writer and subscriber i on node i mod N;
# on the hot document (50 writers with stale bases, 50 subscribers, all on one document) and,
# for (b) and (c), on --documents documents (each writer edits its own ones in turn, each
# subscriber watches one, a writer's node and its subscriber's node crossing in half the pairs).
# All servers and one tandem-load per configuration run from the start; the edit windows take
# turns, the order rotated every round, so every configuration sees the same machine. The
# figure is the COST of an edit on this 2-core machine, where every process shares the cores
# and speed says little: CPU seconds of the configuration's Tandem nodes plus those of the
# whole PostgreSQL cluster (its postmaster and every child, see postgres_cpu) over its windows
# (each window runs on for --settle seconds, so the stragglers and the fan-out, on every
# node, are inside it), divided by the edits applied.

CLK_TCK = os.sysconf("SC_CLK_TCK")


def proc_fields(pid) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name: [0] is the state, [1] the parent,
    [11]-[14] utime, stime, cutime, cstime in ticks; None when the process is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def proc_comm(pid) -> str:
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def postgres_cpu(postmaster: int) -> float:
    """CPU seconds of a whole PostgreSQL cluster so far: the postmaster's own utime+stime, its
    cutime+cstime (every child it reaped: backends that came and went, autovacuum workers;
    the kernel adds a child's time there when the parent waits for it), and the utime+stime of
    every live child (backends of the nodes' connections, checkpointer, WAL writer, background
    writer, autovacuum launcher, ...). Backends come and go, so the postmaster is read before
    and after its children, and the reading is taken again when a child was reaped in between
    (it would be missed or counted twice)."""
    for _ in range(20):
        before = proc_fields(postmaster)
        if before is None:
            raise RuntimeError(f"the postmaster ({postmaster}) is gone")
        live = 0
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                f = proc_fields(entry.name)
                if f is not None and f[1] == str(postmaster):
                    live += int(f[11]) + int(f[12])
        after = proc_fields(postmaster)
        if after is None:
            raise RuntimeError(f"the postmaster ({postmaster}) is gone")
        if after[13:15] == before[13:15]:
            break
    return (sum(int(after[k]) for k in (11, 12, 13, 14)) + live) / CLK_TCK


def find_psql() -> str:
    found = shutil.which("psql")
    if found:
        return found
    import glob
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/psql"), key=lambda p: [int(x) for x in p.split("/")[4].split(".") if x.isdigit()])
    if not candidates:
        raise RuntimeError("no psql (apt-get install postgresql-client)")
    return candidates[-1]


def psql(url: str, sql: str) -> str:
    r = subprocess.run([find_psql(), "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError(f"psql: {r.stderr.strip()}")
    return r.stdout.strip()


def find_postmaster(url: str) -> int | None:
    """The cluster's postmaster: the parent of a backend, read from /proc while the connection
    that asked for the backend's pid is still open. None when that backend is not a process of
    this machine (a remote server, another PID namespace): PostgreSQL's CPU is then unknown."""
    proc = subprocess.Popen([find_psql(), "-X", "-q", "-At", "-d", url], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
    try:
        proc.stdin.write(b"SELECT pg_backend_pid();\n")
        backend = int(read_line(proc, 20).strip())
        f = proc_fields(backend)
        if f is None or proc_comm(backend) not in ("postgres", "postmaster"):
            return None
        parent = int(f[1])
        return parent if proc_comm(parent) in ("postgres", "postmaster") else None
    except (RuntimeError, ValueError):
        return None
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def postgres_transactions(url: str) -> tuple[int, int, int]:
    """Commits and rollbacks of every database of the cluster so far (pg_stat_database: what
    backends report, at the latest about a second after their transactions), and the
    autovacuum and autoanalyze runs finished on the tables of the URL's database: the
    cluster's background work lands in whichever window it runs in, whoever caused it."""
    values = psql(url, "SELECT (SELECT sum(xact_commit) FROM pg_stat_database), (SELECT sum(xact_rollback) FROM pg_stat_database), "
                       "(SELECT coalesce(sum(autovacuum_count + autoanalyze_count), 0) FROM pg_stat_all_tables)").split("|")
    return int(values[0]), int(values[1]), int(values[2])


def busy_ticks(ticks: list[int]) -> int:
    """user, nice, system, irq and softirq: what the machine's CPUs did, whoever for."""
    return ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6]


class Node:
    def __init__(self, name: str, binary: str, work: str, store_args: list[str], durability: str):
        self.name = name
        self.port = free_port()
        self.log = open(os.path.join(work, f"{name}.log"), "wb")
        self.proc = subprocess.Popen([binary, "serve", "--host", HOST, "--port", str(self.port),
                                      "--data", os.path.join(work, f"data-{name}"), "--durability", durability,
                                      "--log-level", "warning", *store_args],
                                     stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def up(self):
        wait_until_up(self.port)
        if self.proc.poll() is not None:
            raise RuntimeError(f"node {self.name} exited ({self.proc.returncode}); see its log")

    def cpu(self) -> float:
        return proc_cpu(self.proc.pid)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.log.close()


class Run:
    """One configuration under one scenario: its nodes, documents, plan and generator."""

    def __init__(self, key: str, label: str, store: str, nodes: list[Node], scenario: str, documents: list[str]):
        self.key, self.label, self.store, self.nodes, self.scenario = key, label, store, nodes, scenario
        self.documents = documents
        self.start_revisions: dict[str, int] = {}
        self.load: subprocess.Popen | None = None
        self.windows: list[dict] = []
        self.out: dict = {}


def cluster_main(args, generator: str) -> int:
    n_nodes = args.nodes or 2
    W, S, D = args.sessions, args.subscribers, args.documents
    postmaster = find_postmaster(args.database)
    pg_settings = dict(zip(("version", "fsync", "synchronous_commit", "shared_buffers"), psql(
        args.database, "SELECT current_setting('server_version'), current_setting('fsync'), "
                       "current_setting('synchronous_commit'), current_setting('shared_buffers')").split("|")))
    tag = f"bench_{os.getpid()}_{int(time.time()) % 100000}"
    schema_b, schema_c = f"{tag}_one", f"{tag}_cluster"
    work = tempfile.mkdtemp(prefix="tandem-bench-cluster-")
    start_text = "." * 2000
    hot_doc = "bench"
    spread_docs = [f"s{d:03d}" for d in range(D)]

    nodes: list[Node] = []
    runs: list[Run] = []
    try:
        pg = ["--database", args.database, "--cluster", args.cluster]
        a = Node("sqlite", args.binary, work, [], args.durability)
        b = Node("pg1", args.binary, work, pg + ["--database-schema", schema_b], args.durability)
        cluster = [Node(f"pg{n_nodes}-{k}", args.binary, work, pg + ["--database-schema", schema_c], args.durability)
                   for k in range(1)]
        nodes += [a, b, *cluster]
        for node in nodes:
            node.up()
        groups = [(a, [a]), (b, [b])] + ([(cluster[0], cluster)] if n_nodes > 1 else [])

        runs.append(Run("sqlite_1node_hot", "(a) SQLite", "sqlite", [a], "hot", [hot_doc]))
        runs.append(Run("postgres_1node_hot", "(b) PG 1 node", "postgres", [b], "hot", [hot_doc]))
        if n_nodes > 1:
            runs.append(Run(f"postgres_{n_nodes}nodes_hot", f"(c) PG {n_nodes} nodes", "postgres", cluster, "hot", [hot_doc]))
        if not args.no_spread:
            runs.append(Run("postgres_1node_spread", f"(b) {D} docs", "postgres", [b], "spread", spread_docs))
            if n_nodes > 1:
                runs.append(Run(f"postgres_{n_nodes}nodes_spread", f"(c) {D} docs", "postgres", cluster, "spread", spread_docs))

        # The cluster's other nodes, then the documents, made through each configuration's
        # first node: with leases (the default) each is created on, and held by, the node the
        # hash routing sends its requests to.
        if n_nodes > 1:
            cluster += [Node(f"pg{n_nodes}-{k}", args.binary, work, pg + ["--database-schema", schema_c], args.durability)
                        for k in range(1, n_nodes)]
            nodes += cluster[1:]
            for node in cluster[1:]:
                node.up()
            time.sleep(1.5)  # each node reads the live nodes with its heartbeat (every 2/3 s)
        for first, _ in groups:
            docs = {d for r in runs if r.nodes[0] is first for d in r.documents}
            for doc_id in sorted(docs):
                call(first.port, "POST", "/documents", {"id": doc_id, "text": start_text})
        if n_nodes > 1:
            for node in cluster[1:]:
                for doc_id in (hot_doc,) + (() if args.no_spread else (spread_docs[0], spread_docs[-1])):
                    try:
                        call(node.port, "GET", f"/documents/{doc_id}")
                    except urllib.error.HTTPError as e:
                        raise RuntimeError(f"node {node.name} does not know document {doc_id} made on {cluster[0].name} ({e.code})")

        # Each run's plan: session i and subscriber i on node i mod its nodes, a session of its
        # own made on that node; the spread scenario's writers edit their documents in turn.
        for run in runs:
            for doc_id in run.documents:
                run.start_revisions[doc_id] = call(run.nodes[0].port, "GET", f"/documents/{doc_id}")["revision"]
            ports = [node.port for node in run.nodes]
            lines = [f"document {doc_id} {run.start_revisions[doc_id]} {len(start_text)}" for doc_id in run.documents]
            n_docs = len(run.documents)
            run.same_node_pairs = run.cross_node_pairs = 0
            hashed = args.routing == "hash" and len(ports) > 1
            # Each document's node: by the ring (hash routing), else unused.
            ring = ketama.ring([f"{HOST}:{p}" for p in ports]) if hashed else []
            home = [ketama.server(ring, doc_id) if hashed else 0 for doc_id in run.documents]
            writer_docs, writer_node = [], []
            if hashed and n_docs > 1:
                # Writers dealt to the nodes in proportion to their documents (at least one
                # each where a node has any), then each node's documents dealt to its writers.
                per_node = [[d for d in range(n_docs) if home[d] == k] for k in range(len(ports))]
                shares = [max(1 if docs else 0, round(W * len(docs) / n_docs)) for docs in per_node]
                while sum(shares) > W:
                    shares[shares.index(max(shares))] -= 1
                while sum(shares) < W:
                    shares[max(range(len(shares)), key=lambda k: len(per_node[k]) / max(1, shares[k]))] += 1
                for k, docs in enumerate(per_node):
                    for w in range(shares[k]):
                        writer_docs.append(docs[w::shares[k]])
                        writer_node.append(k)
            for i in range(W):
                if hashed and n_docs > 1:
                    own, port = writer_docs[i], ports[writer_node[i]]
                else:
                    own = [d for d in range(n_docs) if d % W == i] if n_docs > 1 else [0]
                    if not own:
                        own = [i % n_docs]
                    port = ports[home[0]] if hashed else ports[i % len(ports)]
                token = call(port, "POST", "/sessions", {"name": f"{run.key}-{i}"})["token"]
                lines.append(f"session {port} {token} {','.join(map(str, own))}")
            for j in range(S):
                # Spread: subscriber j watches one document of every D/S, the offset alternating
                # by pairs, so that with two nodes the writer's node and the subscriber's are the
                # same for half the subscribers and differ for the other half (round robin); with
                # hash routing both are the document's node.
                doc = 0 if n_docs == 1 else (j * max(1, n_docs // S) + (j // len(ports)) % len(ports)) % n_docs
                sub_node = home[doc] if hashed else j % len(ports)
                lines.append(f"subscriber {ports[sub_node]} {doc}")
                if n_docs > 1:
                    writer_at = writer_node[next(i for i in range(W) if doc in writer_docs[i])] if hashed else (doc % W) % len(ports)
                    if writer_at == sub_node:
                        run.same_node_pairs += 1
                    else:
                        run.cross_node_pairs += 1
            plan = os.path.join(work, f"{run.key}.plan")
            with open(plan, "w") as f:
                f.write("\n".join(lines) + "\n")
            run.load = subprocess.Popen([generator, "--plan", plan, "--events-encoding", args.events_encoding],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
            if read_line(run.load, 60).strip() != "ready":
                raise RuntimeError(f"tandem-load ({run.key}) did not say ready")

        # The timetable: each round an idle window (what everything costs doing nothing), then
        # every run's edit window, the order rotated from round to round; each window's CPU is
        # read from its start to --settle seconds after its end.
        length = args.seconds / args.rounds
        idle_length = 1.0
        windows: list[tuple[str, Run | None, int, float, float]] = []  # kind, run, round, start, CPU end
        t = time.monotonic() + 1.0
        for r in range(args.rounds):
            windows.append(("idle", None, r, t, t + idle_length))
            t += idle_length + 0.25
            k = r % len(runs)
            for run in runs[k:] + runs[:k]:
                windows.append(("edit", run, r, t, t + length + args.settle))
                t += length + args.settle + 0.25
        until = t
        for run in runs:
            own = " ".join(f"edit {a:.6f} {a + length:.6f}" for kind, w, _, a, _ in windows if w is run)
            run.load.stdin.write(f"{own} subscribers-until {until:.6f}\n".encode())
            run.load.stdin.close()

        idle = {"nodes": 0.0, "postgres": 0.0, "seconds": 0.0, "ticks": [0] * 8, "foreign": 0.0}

        def ours_cpu() -> float:
            """The generators' CPU and this script's (its children's included: psql)."""
            t = os.times()
            return sum(proc_cpu(run.load.pid) for run in runs) + t.user + t.system + t.children_user + t.children_system
        for kind, run, r, a_t, b_t in windows:
            # The store's counters of the window's nodes, read just outside its CPU window.
            if run is not None:
                sleep_until(a_t - 0.15)
                store0 = [store_counters(node.port) for node in run.nodes]
                xacts0 = postgres_transactions(args.database)
            sleep_until(a_t)
            cpu0 = {node.name: node.cpu() for node in nodes}
            pg0 = postgres_cpu(postmaster) if postmaster else float("nan")
            ours0 = ours_cpu()
            ticks0 = machine_ticks()
            sleep_until(b_t)
            cpu1 = {node.name: node.cpu() for node in nodes}
            pg1 = postgres_cpu(postmaster) if postmaster else float("nan")
            ours1 = ours_cpu()
            ticks = [y - x for x, y in zip(ticks0, machine_ticks())]
            # What the machine's processes did beyond this benchmark's (all nodes, PostgreSQL,
            # every generator, this script): other work sharing the cores, which skews the
            # figures it overlaps. Interrupt time is left out: the kernel's network processing
            # for the loopback traffic lands there, charged to no process.
            foreign = (ticks[0] + ticks[1] + ticks[2]) / CLK_TCK - (sum(cpu1.values()) - sum(cpu0.values())) - (pg1 - pg0 if postmaster else 0) - (ours1 - ours0)
            if kind == "idle":
                idle["nodes"] += sum(cpu1[k] - cpu0[k] for k in cpu0)
                idle["postgres"] += pg1 - pg0
                idle["seconds"] += b_t - a_t
                idle["ticks"] = [x + y for x, y in zip(idle["ticks"], ticks)]
                idle["foreign"] += foreign
                continue
            mine = {node.name for node in run.nodes}
            store1 = [store_counters(node.port) for node in run.nodes]
            xacts1 = postgres_transactions(args.database)
            run.windows.append({
                "postgres_commits": xacts1[0] - xacts0[0], "postgres_rollbacks": xacts1[1] - xacts0[1],
                "postgres_autovacuums": xacts1[2] - xacts0[2],
                "store": {k: sum(y[k] - x[k] for x, y in zip(store0, store1)) for k in STORE_COUNTERS},
                "round": r, "seconds": b_t - a_t,
                "nodes": sum(cpu1[k] - cpu0[k] for k in mine),
                "per_node": {k: cpu1[k] - cpu0[k] for k in sorted(mine)},
                "other_nodes": sum(cpu1[k] - cpu0[k] for k in cpu0 if k not in mine),
                "postgres": pg1 - pg0,
                "ticks": ticks,
                "foreign": foreign,
            })

        for run in runs:
            run.out = json.loads(read_line(run.load, 60))
            if run.load.wait(timeout=30) != 0:
                raise RuntimeError(f"tandem-load ({run.key}) failed ({run.load.returncode})")

        time.sleep(0.5)
        # What each node says each document came to, and, for PostgreSQL, the database itself.
        finals: dict[str, dict[str, dict[str, int]]] = {}
        for run in runs:
            finals[run.key] = {node.name: {doc_id: call(node.port, "GET", f"/documents/{doc_id}")["revision"]
                                           for doc_id in run.documents} for node in run.nodes}
        in_database = {}
        for schema in (schema_b, schema_c if n_nodes > 1 else None):
            if schema:
                rows = psql(args.database, f'SELECT id, revision FROM "{schema}".documents')
                in_database[schema] = {line.split("|")[0]: int(line.split("|")[1]) for line in rows.splitlines() if line}
        peaks = {node.name: proc_status(node.proc.pid, "VmHWM") for node in nodes}
    finally:
        for run in runs:
            if run.load is not None and run.load.poll() is None:
                run.load.kill()
                run.load.wait(timeout=10)
        for node in nodes:
            node.stop()
        logs = {}
        for node in nodes:
            with open(os.path.join(work, f"{node.name}.log"), errors="replace") as f:
                lines = [line.rstrip() for line in f if line.strip()]
            if lines:
                logs[node.name] = lines
        for schema in (schema_b, schema_c):
            try:
                psql(args.database, f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                print(f"WARNING: could not drop schema {schema}: {e}", file=sys.stderr)

    # --- figures ----------------------------------------------------------------------------
    figures: dict = {
        "mode": "cluster",
        "nodes": n_nodes,
        "routing": args.routing,
        "sessions": W, "subscribers": S, "spread_documents": D,
        "rounds": args.rounds, "edit_seconds_per_configuration": args.seconds, "settle_seconds": args.settle,
        "sqlite_durability": args.durability,
        "events_encoding": args.events_encoding,
        "cores": os.cpu_count(),
        "postgres": {**pg_settings, "postmaster_found": postmaster is not None},
        "idle": {
            "tandem_nodes_cores": idle["nodes"] / max(idle["seconds"], 1e-9),
            "postgres_cores": idle["postgres"] / max(idle["seconds"], 1e-9),
            "machine_busy_cores": busy_ticks(idle["ticks"]) / CLK_TCK / max(idle["seconds"], 1e-9),
            "foreign_cores": idle["foreign"] / max(idle["seconds"], 1e-9),
        },
        "configs": {},
    }
    notes: list[str] = []
    for run in runs:
        out, edit = run.out, run.out["phases"]["edit"]
        ws = run.windows
        # Edits applied: what the store holds (the database's revision of each document; for
        # SQLite the node's), against the revisions the run began at. Every node must agree.
        views = finals[run.key]
        first = views[run.nodes[0].name]
        truth = first
        if run.store == "postgres":
            db = in_database.get(schema_b if len(run.nodes) == 1 else schema_c, {})
            truth = {d: db.get(d, run.start_revisions[d]) for d in run.documents}
        applied = sum(truth[d] - run.start_revisions[d] for d in run.documents)
        for name, view in views.items():
            differ = [d for d in run.documents if view[d] != truth[d]]
            if differ:
                notes.append(f"{run.label}: node {name} differs from " + ("the database" if run.store == "postgres" else "the first node")
                             + f" on the revision of {len(differ)} document(s) (e.g. {differ[0]}: node {view[differ[0]]}, "
                             f"{'database' if run.store == 'postgres' else 'first node'} {truth[differ[0]]})")
        nodes_s = sum(w["nodes"] for w in ws)
        pg_s = sum(w["postgres"] for w in ws)
        counted_pg = pg_s if run.store == "postgres" else 0.0
        window_s = sum(w["seconds"] for w in ws)
        ticks = [sum(w["ticks"][k] for w in ws) for k in range(8)]
        per_edit = lambda seconds: seconds * 1e6 / applied if applied else float("nan")
        errors: dict = {}
        for k, v in edit["errors"].items():
            errors[k] = errors.get(k, 0) + v
        by_round = edit.get("answered_by_round", [])
        rounds = []
        for w, answered in zip(ws, by_round):
            cost = w["nodes"] + (w["postgres"] if run.store == "postgres" else 0.0)
            rounds.append({"round": w["round"], "answered": answered,
                           "cost_us_per_edit": cost * 1e6 / answered if answered else float("nan")})
        st = {k: sum(w["store"][k] for w in ws) for k in STORE_COUNTERS}
        gen_cores = out["generator"]["process_cores"].get("edit", float("nan"))
        edit_seconds = edit["seconds"]
        figures["configs"][run.key] = {
            "label": run.label, "store": run.store, "scenario": run.scenario, "nodes": len(run.nodes),
            "documents": len(run.documents), "documents_watched": out["documents_watched"],
            "subscribers_on_writer_node": getattr(run, "same_node_pairs", 0),
            "subscribers_on_other_node": getattr(run, "cross_node_pairs", 0),
            "applied": applied,
            "acknowledged": out["acknowledged"],
            "edits_per_s": applied / edit_seconds if edit_seconds else float("nan"),
            "cost_us_per_edit": per_edit(nodes_s + counted_pg),
            "tandem_us_per_edit": per_edit(nodes_s),
            "postgres_us_per_edit": per_edit(pg_s) if run.store == "postgres" else float("nan"),
            # PostgreSQL's own CPU while a SQLite window ran: its background, not counted there.
            "postgres_background_cores": pg_s / window_s if run.store != "postgres" and window_s else 0.0,
            "other_nodes_cores": sum(w["other_nodes"] for w in ws) / window_s if window_s else float("nan"),
            "machine_busy_us_per_edit": per_edit(busy_ticks(ticks) / CLK_TCK),
            # Interrupt time (mostly the loopback network's softirq), charged to no process.
            "softirq_us_per_edit": per_edit((ticks[5] + ticks[6]) / CLK_TCK),
            "generator_us_per_edit": per_edit(gen_cores * edit_seconds),
            "cpu_cores": {"tandem": nodes_s / window_s, "postgres": pg_s / window_s,
                          "per_node": {k: sum(w["per_node"][k] for w in ws) / window_s for k in ws[0]["per_node"]}} if ws else {},
            "machine": machine_shares([0] * 8, ticks),
            "foreign_cores": sum(w["foreign"] for w in ws) / window_s if window_s else float("nan"),
            "rounds_detail": rounds,
            "edit_p50_ms": edit["p50_ms"], "edit_p99_ms": edit["p99_ms"],
            "fanout_p50_ms": out["fanout_p50_ms"], "fanout_p99_ms": out["fanout_p99_ms"],
            "delivered_to_all": out["delivered_to_all"],
            "acknowledged_unwatched": out["acknowledged_unwatched"],
            "fanout_missed_revisions": out["fanout_missed_revisions"],
            "fanout_missed_deliveries": out["fanout_missed_deliveries"],
            "fanout_missed_deliveries_cross_node": out["fanout_missed_deliveries_cross_node"],
            "fanout_first_missed": out["fanout_first_missed"],
            "duplicate_acknowledgements": out["duplicate_acknowledgements"],
            "duplicate_deliveries": out["duplicate_deliveries"],
            "unexpected_revisions": out["unexpected_revisions"],
            "errors": errors,
            "subscribers_refused": out["subscribers_refused"],
            "subscribers_lost": out["subscribers_lost"],
            "subscribers_resumed": out["subscribers_resumed"],
            "idle_reconnects": out["idle_reconnects"],
            # Transactions PostgreSQL counted (pg_stat_database, every database; its counters lag
            # up to about a second, which the settle covers) per applied edit.
            "postgres_commits_per_edit": sum(w["postgres_commits"] for w in ws) / applied if applied and run.store == "postgres" else float("nan"),
            "postgres_rollbacks_per_edit": sum(w["postgres_rollbacks"] for w in ws) / applied if applied and run.store == "postgres" else float("nan"),
            "postgres_autovacuum_runs": sum(w["postgres_autovacuums"] for w in ws),
            "changes_per_transaction": st["tandem_store_revisions_appended_total"] / max(1, st["tandem_store_transactions_total"]),
            "mean_commit_ms": 1e3 * st["tandem_store_commit_seconds_total"] / max(1, st["tandem_store_transactions_total"]),
            "stream_bytes_per_change": out["stream_bytes"] / max(1, out["subscribers_connected"] * applied),
            "generator_longest_turn_ms": out["generator"]["longest_turn_ms"],
            "peak_memory_mb": {n.name: peaks[n.name] / 1e6 for n in run.nodes},
        }

    # --- ratios and goals -------------------------------------------------------------------
    c = figures["configs"]

    def ratio(num: str, den: str, goal: float, what: str):
        if num not in c or den not in c:
            return None
        value = c[num]["cost_us_per_edit"] / c[den]["cost_us_per_edit"]
        per_round = []
        for x, y in zip(c[num]["rounds_detail"], c[den]["rounds_detail"]):
            if y["cost_us_per_edit"] and y["cost_us_per_edit"] == y["cost_us_per_edit"]:
                per_round.append(x["cost_us_per_edit"] / y["cost_us_per_edit"])
        return {"what": what, "numerator": num, "denominator": den, "ratio": value, "goal_at_most": goal,
                "ok": value <= goal, "per_round": per_round,
                "per_round_median": statistics.median(per_round) if per_round else float("nan")}

    hot_c, spread_c = f"postgres_{n_nodes}nodes_hot", f"postgres_{n_nodes}nodes_spread"
    # Issue 41's goals: with hash routing 1.2 on the hot document and 1.1 on 200; with round
    # robin 1.4.
    hot_goal, spread_goal = (1.2, 1.1) if args.routing == "hash" else (1.4, 1.4)
    figures["ratios"] = {k: v for k, v in {
        "cluster_over_one_node_hot": ratio(hot_c, "postgres_1node_hot", hot_goal, f"{n_nodes} nodes / 1 node, hot document"),
        "cluster_over_one_node_spread": ratio(spread_c, "postgres_1node_spread", spread_goal, f"{n_nodes} nodes / 1 node, {D} documents"),
        "postgres_over_sqlite_hot": ratio("postgres_1node_hot", "sqlite_1node_hot", 2.0, "PostgreSQL / SQLite, one node, hot document"),
    }.items() if v is not None}
    figures["latency_goals"] = {key: {"edit_p99_ok": f["edit_p99_ms"] <= 10, "fanout_p99_ok": f["fanout_p99_ms"] <= 50}
                                for key, f in c.items()}
    figures["notes"] = notes

    # --- the table ------------------------------------------------------------------------
    pgs = figures["postgres"]
    placement = (f"writer and subscriber i on node i mod {n_nodes}" if args.routing == "round-robin"
                 else "hash routing: each document's writers and subscribers on its node")
    print(f"== bench-load cluster: {W} writers (stale bases) + {S} subscribers; (c) on {n_nodes} nodes, {placement}"
          f"; {args.rounds} rounds of {length:.1f} s (+{args.settle:.1f} s settle) per "
          f"configuration, interleaved; {os.cpu_count()} cores")
    print(f"PostgreSQL {pgs['version']} (fsync {pgs['fsync']}, synchronous_commit {pgs['synchronous_commit']}, "
          f"shared_buffers {pgs['shared_buffers']}); SQLite --durability {args.durability}; "
          f"cost = CPU of the configuration's Tandem nodes + the whole PostgreSQL cluster (postmaster and all children) "
          f"per applied edit" + ("" if postmaster else "  ** postmaster not found on this machine: PostgreSQL CPU unknown **"))
    keys = list(c)
    width = 15
    print(f"{'':34}" + "".join(f"{c[k]['label']:>{width}}" for k in keys))

    def row(label: str, fmt, getter):
        cells = []
        for k in keys:
            try:
                v = getter(c[k])
                cells.append(fmt(v) if v is not None else "-")
            except (KeyError, TypeError, ValueError, ZeroDivisionError):
                cells.append("-")
        print(f"{label:34}" + "".join(f"{x:>{width}}" for x in cells))

    num = lambda f: (lambda v: "-" if v != v else f.format(v))
    row("edits applied", num("{:,.0f}"), lambda f: f["applied"])
    row("edits acknowledged (200)", num("{:,.0f}"), lambda f: f["acknowledged"])
    row("edits/s", num("{:,.0f}"), lambda f: f["edits_per_s"])
    row("COST: CPU us per edit", num("{:.1f}"), lambda f: f["cost_us_per_edit"])
    row("  Tandem nodes us/edit", num("{:.1f}"), lambda f: f["tandem_us_per_edit"])
    row("  PostgreSQL us/edit", num("{:.1f}"), lambda f: f["postgres_us_per_edit"] if f["store"] == "postgres" else None)
    row("  rounds: lowest-highest", lambda v: v, lambda f: "{:.0f}-{:.0f}".format(
        min(x["cost_us_per_edit"] for x in f["rounds_detail"]), max(x["cost_us_per_edit"] for x in f["rounds_detail"])))
    row("machine busy us/edit (all procs)", num("{:.1f}"), lambda f: f["machine_busy_us_per_edit"])
    row("  of which generator us/edit", num("{:.1f}"), lambda f: f["generator_us_per_edit"])
    row("  of which softirq us/edit", num("{:.1f}"), lambda f: f["softirq_us_per_edit"])
    row("cores: Tandem / PostgreSQL", lambda v: v, lambda f: f"{f['cpu_cores']['tandem']:.2f}/{f['cpu_cores']['postgres']:.2f}")
    row("edit latency p50 (ms)", num("{:.2f}"), lambda f: f["edit_p50_ms"])
    row("edit latency p99 (ms)", num("{:.2f}"), lambda f: f["edit_p99_ms"])
    row("fan-out p50 (ms)", num("{:.2f}"), lambda f: f["fanout_p50_ms"])
    row("fan-out p99 (ms)", num("{:.2f}"), lambda f: f["fanout_p99_ms"])
    row("fan-out misses (revisions)", num("{:,.0f}"), lambda f: f["fanout_missed_revisions"])
    row("  missed deliveries cross-node", num("{:,.0f}"), lambda f: f["fanout_missed_deliveries_cross_node"])
    row("non-200 answers", num("{:,.0f}"), lambda f: sum(f["errors"].values()))
    row("changes per transaction", num("{:.1f}"), lambda f: f["changes_per_transaction"])
    row("mean commit (ms)", num("{:.3f}"), lambda f: f["mean_commit_ms"])
    row("PG commits / rollbacks per edit", lambda v: v,
        lambda f: f"{f['postgres_commits_per_edit']:.2f}/{f['postgres_rollbacks_per_edit']:.2f}" if f["store"] == "postgres" else None)
    row("PG autovacuum+analyze runs", num("{:.0f}"), lambda f: f["postgres_autovacuum_runs"])
    row("machine steal / idle", lambda v: v, lambda f: f"{f['machine']['steal']:.0%}/{f['machine']['idle']:.0%}")
    row("other processes' CPU (cores)", num("{:.2f}"), lambda f: f["foreign_cores"])
    idle_f = figures["idle"]
    print(f"idle windows: Tandem nodes {idle_f['tandem_nodes_cores']:.3f} cores, PostgreSQL {idle_f['postgres_cores']:.3f} cores, "
          f"machine busy {idle_f['machine_busy_cores']:.2f} cores, of which other processes {idle_f['foreign_cores']:.2f}")
    foreign = max((f["foreign_cores"] for f in c.values()), default=0.0)
    if foreign > 0.1:
        print(f"WARNING: other processes used up to {foreign:.2f} cores during the windows (\"other processes' CPU\"): "
              f"they shared the cores with this run, and its latencies and costs are skewed; run again on a quiet machine")
    for key, f in c.items():
        problems = []
        if f["errors"]:
            problems.append(f"non-200 answers {f['errors']}")
        if f["subscribers_refused"]:
            problems.append(f"event streams refused {f['subscribers_refused']}")
        if f["subscribers_lost"]:
            problems.append(f"event streams ended by the server or cut {f['subscribers_lost']} "
                            f"({f['subscribers_resumed']} resumed with Last-Event-ID after the 1 s retry)")
        if f["fanout_missed_revisions"]:
            problems.append(f"{f['fanout_missed_revisions']} revisions missed by some subscriber "
                            f"({f['fanout_missed_deliveries']} deliveries, {f['fanout_missed_deliveries_cross_node']} of them "
                            f"on another node than the writer's; first {f['fanout_first_missed']})")
        if f["duplicate_acknowledgements"] or f["duplicate_deliveries"] or f["unexpected_revisions"]:
            problems.append(f"{f['duplicate_acknowledgements']} revisions acknowledged twice, {f['duplicate_deliveries']} "
                            f"duplicate deliveries, {f['unexpected_revisions']} unexpected revisions")
        if f["other_nodes_cores"] > 0.05:
            problems.append(f"the other configurations' idle nodes used {f['other_nodes_cores']:.2f} cores meanwhile")
        if f["postgres_background_cores"] > 0.05:
            problems.append(f"PostgreSQL used {f['postgres_background_cores']:.2f} cores meanwhile (not counted)")
        stalled = {k: v for k, v in f["generator_longest_turn_ms"].items() if v >= 50}
        if stalled:
            problems.append(f"a generator loop went {max(stalled.values()):.0f} ms without a turn (some tail latency may be the generator's)")
        if problems:
            print(f"{f['label']}: " + "; ".join(problems))
    for note in notes:
        print(f"NOTE: {note}")
    for name, lines in logs.items():
        print(f"node {name} logged {len(lines)} line(s) at --log-level warning, e.g.: " + " | ".join(lines[:3])[:600])
    figures["server_log_lines"] = {name: len(lines) for name, lines in logs.items()}
    if "postgres_1node_spread" in c:
        f = c[spread_c] if spread_c in c else c["postgres_1node_spread"]
        print(f"spread scenario: {D} documents, {f['documents_watched']} watched (one subscriber each; on the writer's node "
              f"for {f['subscribers_on_writer_node']}, on another for {f['subscribers_on_other_node']} in (c)); edits of "
              f"unwatched documents have no fan-out")
    print()
    for r in figures["ratios"].values():
        spread_txt = (f"; per round {min(r['per_round']):.2f}-{max(r['per_round']):.2f}, median {r['per_round_median']:.2f}"
                      if r["per_round"] else "")
        print(f"goal: {r['what']}: CPU per edit x{r['ratio']:.2f} {'ok' if r['ok'] else 'MISSED'} (<= {r['goal_at_most']}){spread_txt}")
    for key, f in c.items():
        print(f"goal: {f['label']}: p99 edit {f['edit_p99_ms']:.1f} ms {'ok' if f['edit_p99_ms'] <= 10 else 'MISSED'} (<= 10); "
              f"p99 fan-out {f['fanout_p99_ms']:.1f} ms {'ok' if f['fanout_p99_ms'] <= 50 else 'MISSED'} (<= 50)")
    if args.json:
        with open(args.json, "w") as out_file:
            json.dump(figures, out_file)
    if logs:
        print(f"the nodes' logs are kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
