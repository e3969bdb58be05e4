"""Start-up time stays flat however long the history: snapshots (every thousand changes,
at most every 10 s or 50,000 while busy) mean a restart after 200,000 changes reads about
as much as one after 2,000."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import statistics
import time

import pytest

from tandem_client import Client
from tandem_server import TandemServer

SMALL, LARGE = 2_000, 200_000
DEPTH = 64  # pipelined requests in flight on the one connection
RESTARTS = 3  # start-up is timed this many times per data folder; the median is reported
TAIL = 3_000  # edits made right before each kill -9 (snapshots cover all but the last ones)


def _edit_request(doc_id: str, i: int) -> bytes:
    # Typing at the end, a new undo group every 20 characters, like words.
    body = json.dumps({"insert": "abcdefghijklmnopqrst"[i % 20], "at": i, "newGroup": i % 20 == 0}).encode()
    return (f"POST /documents/{doc_id}/edits HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body


def _pump(srv: TandemServer, doc_id: str, count: int, start: int = 0) -> None:
    """`count` edits through the real API on one keep-alive connection with HTTP pipelining
    (the quickest honest way to build a long history); every answer must be 200. `start`
    is the document's length (= revision) before them."""
    sock = socket.create_connection(("127.0.0.1", srv.port), timeout=30)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sent = answered = 0
    buf = b""
    try:
        while answered < count:
            batch = []
            while sent < count and sent - answered < DEPTH:
                batch.append(_edit_request(doc_id, start + sent))
                sent += 1
            if batch:
                sock.sendall(b"".join(batch))
            chunk = sock.recv(1 << 20)
            assert chunk, f"the server closed the connection after {answered} answers"
            buf += chunk
            while True:
                head_end = buf.find(b"\r\n\r\n")
                if head_end < 0:
                    break
                head = buf[:head_end].decode("latin-1")
                length = next((int(line.split(":", 1)[1]) for line in head.split("\r\n")
                               if line.lower().startswith("content-length:")), 0)
                if len(buf) < head_end + 4 + length:
                    break
                status = head.split(" ", 2)[1]
                assert status == "200", f"edit {answered + 1} answered {head} {buf[head_end + 4:head_end + 4 + length]!r}"
                buf = buf[head_end + 4 + length:]
                answered += 1
    finally:
        sock.close()


def _startup_seconds(srv: TandemServer) -> float:
    """Median wall time from launching the process to its first 200 on /healthz."""
    times = []
    for _ in range(RESTARTS):
        srv.stop()
        t0 = time.monotonic()
        srv.start()
        times.append(time.monotonic() - t0)
    return statistics.median(times)


def _stored_tail(srv: TandemServer, doc_id: str) -> int:
    """Changes stored after the newest snapshot: what start-up must replay."""
    db = sqlite3.connect(f"file:{srv.data / 'tandem.sqlite'}?mode=ro", uri=True)
    try:
        # Changes are stored as runs first...last, one per group commit.
        return db.execute("SELECT COALESCE(SUM(last - MAX(first, s.after + 1) + 1), 0) FROM change_runs, "
                          "(SELECT COALESCE((SELECT revision FROM snapshots WHERE document = ?), 0) AS after) s "
                          "WHERE document = ? AND last > s.after",
                          (doc_id, doc_id)).fetchone()[0]
    finally:
        db.close()


def _startup_after_kill_seconds(srv: TandemServer, doc_id: str, revision: int) -> tuple[float, int, int]:
    """Median start-up after `kill -9` right after a burst of edits, so that no shutdown
    snapshot was taken and start-up replays the stored tail. Returns it with the largest
    tail replayed and the revision reached."""
    times, tails = [], []
    for _ in range(RESTARTS):
        _pump(srv, doc_id, TAIL, start=revision)
        revision += TAIL
        srv.kill()
        tails.append(_stored_tail(srv, doc_id))
        t0 = time.monotonic()
        srv.start()
        times.append(time.monotonic() - t0)
        doc = Client(srv.base).doc(doc_id)
        assert (doc["revision"], doc["length"]) == (revision, revision)
    return statistics.median(times), max(tails), revision


def _history(count: int) -> tuple[TandemServer, str]:
    srv = TandemServer(name=f"startup-{count}", extra_args=("--durability", "off"), on_postgres=False).start()
    doc_id = Client(srv.base).create_doc("")["id"]
    _pump(srv, doc_id, count)
    return srv, doc_id


@pytest.mark.sqlite_only("start-up replays the SQLite file's snapshots and log")
@pytest.mark.timeout(300)
def test_startup_after_200k_changes_is_about_as_quick_as_after_2k(capsys):
    figures, crash_figures = {}, {}
    for count in (SMALL, LARGE):
        srv = None
        try:
            t0 = time.monotonic()
            srv, doc_id = _history(count)
            built = time.monotonic() - t0
            seconds = _startup_seconds(srv)
            # The restarted server really has the whole history.
            doc = Client(srv.base).doc(doc_id)
            assert (doc["revision"], doc["length"]) == (count, count)
            tail = Client(srv.base).changes(doc_id, since=count - 3)
            assert [c["revision"] for c in tail] == [count - 2, count - 1, count]
            store = sum(f.stat().st_size for f in srv.data.iterdir())
            figures[count] = seconds
            with capsys.disabled():
                print(f"\n[startup] {count:>7} changes: built in {built:.1f} s ({count / built:.0f} edits/s), "
                      f"store {store / 1e6:.1f} MB, start-up to /healthz {seconds * 1000:.0f} ms "
                      f"(median of {RESTARTS}, binary {srv.binary})")
            # After a crash nothing was snapshotted at shutdown: start-up replays the log tail.
            crashed, tail, _ = _startup_after_kill_seconds(srv, doc_id, count)
            assert tail > 0, "every kill -9 found the log fully snapshotted: no tail was replayed"
            crash_figures[count] = crashed
            with capsys.disabled():
                print(f"[startup] {count:>7} changes, kill -9 after {TAIL} more: start-up {crashed * 1000:.0f} ms "
                      f"(median of {RESTARTS}, up to {tail} stored changes replayed)")
        finally:
            if srv is not None:
                srv.cleanup()
    small, large = figures[SMALL], figures[LARGE]
    assert large < 5 * small + 2, f"start-up after {LARGE} changes took {large:.2f} s, after {SMALL} {small:.2f} s"
    small, large = crash_figures[SMALL], crash_figures[LARGE]
    assert large < 5 * small + 2, \
        f"start-up after a crash at {LARGE} changes took {large:.2f} s, at {SMALL} {small:.2f} s"
