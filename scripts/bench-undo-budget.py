#!/usr/bin/env python3
"""What an undo of an old group of many splices costs (issue 38): a text of 2 x SPLICES
units, one group of SPLICES one-character inserts by Alice, LATER keystrokes by Bob, then
Alice's undo. Prints the undo's status and wall time: past the budget (2,000,000 steps:
(splices + 1) x later changes, plus their splices) it is 422 undo_too_large at once; within
it, the mapping's time, done on the heavy-work pool.

Usage: bench-undo-budget.py BINARY [LATER [SPLICES]]    (defaults: 2000 50000, then 30 50000)
"""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import time

import requests


def run(binary: str, later: int, splices: int) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    data = tempfile.mkdtemp(prefix="tandem-bench-undo-")
    server = subprocess.Popen([binary, "serve", "--host", "127.0.0.1", "--port", str(port), "--data", data,
                               "--log-level", "warning"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                requests.get(base + "/healthz", timeout=1)
                break
            except requests.RequestException:
                time.sleep(0.1)
        alice = {"Authorization": "Bearer " + requests.post(base + "/sessions", json={"name": "Alice"}).json()["token"]}
        bob = {"Authorization": "Bearer " + requests.post(base + "/sessions", json={"name": "Bob"}).json()["token"],
               "Content-Type": "application/json"}
        doc = requests.post(base + "/documents", json={"id": "d", "text": "a" * (2 * splices)}, headers=alice).json()["id"]
        ops: list = []
        for _ in range(splices):
            ops += ["z", 2]
        assert requests.post(f"{base}/documents/{doc}/edits", json={"ops": ops}, headers=alice).status_code == 200
        session = requests.Session()
        for _ in range(later):
            assert session.post(f"{base}/documents/{doc}/edits", data=b'{"insert":"b","at":0}', headers=bob).status_code == 200
        start = time.perf_counter()
        r = requests.post(f"{base}/documents/{doc}/undo", headers=alice)
        print(f"group of {splices} splices, {later} later keystrokes: undo {r.status_code} in {time.perf_counter() - start:.3f} s")
    finally:
        server.kill()
        server.wait()


if __name__ == "__main__":
    binary = sys.argv[1]
    if len(sys.argv) > 2:
        run(binary, int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 50_000)
    else:
        run(binary, 2000, 50_000)
        run(binary, 30, 50_000)
