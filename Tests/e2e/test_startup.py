"""Start-up time stays flat however long the history: a snapshot every thousand changes
means a restart after 200,000 changes reads about as much as one after 2,000."""

from __future__ import annotations

import json
import os
import socket
import statistics
import time

import pytest

from tandem_client import Client
from tandem_server import TandemServer

SMALL, LARGE = 2_000, 200_000
DEPTH = 64  # pipelined requests in flight on the one connection
RESTARTS = 3  # start-up is timed this many times per data folder; the median is reported


def _edit_request(doc_id: str, i: int) -> bytes:
    # Typing at the end, a new undo group every 20 characters, like words.
    body = json.dumps({"insert": "abcdefghijklmnopqrst"[i % 20], "at": i, "newGroup": i % 20 == 0}).encode()
    return (f"POST /documents/{doc_id}/edits HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body


def _pump(srv: TandemServer, doc_id: str, count: int) -> None:
    """`count` edits through the real API on one keep-alive connection with HTTP pipelining
    (the quickest honest way to build a long history); every answer must be 200."""
    sock = socket.create_connection(("127.0.0.1", srv.port), timeout=30)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sent = answered = 0
    buf = b""
    try:
        while answered < count:
            batch = []
            while sent < count and sent - answered < DEPTH:
                batch.append(_edit_request(doc_id, sent))
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


def _history(count: int) -> tuple[TandemServer, str]:
    srv = TandemServer(name=f"startup-{count}", extra_args=("--durability", "off")).start()
    doc_id = Client(srv.base).create_doc("")["id"]
    _pump(srv, doc_id, count)
    return srv, doc_id


@pytest.mark.timeout(300)
def test_startup_after_200k_changes_is_about_as_quick_as_after_2k(capsys):
    figures = {}
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
        finally:
            if srv is not None:
                srv.cleanup()
    small, large = figures[SMALL], figures[LARGE]
    assert large < 5 * small + 2, f"start-up after {LARGE} changes took {large:.2f} s, after {SMALL} {small:.2f} s"
