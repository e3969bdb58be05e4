#!/usr/bin/env python3
"""The size of a Last-Event-ID catch-up: starts the server (durability off, a temporary data
folder), lets --sessions sessions each insert --rounds characters into one document in turn,
then opens GET /documents/{id}/events with `Last-Event-ID: 0` (no gzip) and counts what the
replay sends: bytes, change events and history events. Every change is replayed; history
events only as a live subscriber would have kept them (each session's last per notification).

Usage: bench-catchup.py --binary .build/release/tandem [--sessions 50] [--rounds 20]
All traffic goes to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import socket
import subprocess
import sys
import tempfile

# bench-load.py's helpers (its name has a hyphen, so it is loaded by path).
_spec = importlib.util.spec_from_file_location("bench_load", os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-load.py"))
bench_load = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_load)
call = bench_load.call


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--sessions", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=20)
    args = ap.parse_args()
    port = bench_load.free_port()
    server = subprocess.Popen([args.binary, "serve", "--host", "127.0.0.1", "--port", str(port),
                               "--data", tempfile.mkdtemp(prefix="tandem-catchup-"), "--durability", "off",
                               "--log-level", "warning"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    try:
        bench_load.wait_until_up(port)
        tokens = [call(port, "POST", "/sessions", {"name": f"s{i}"})["token"] for i in range(args.sessions)]
        doc = call(port, "POST", "/documents", {"title": "catch-up", "text": ""}, token=tokens[0])["id"]
        for _ in range(args.rounds):
            for t in tokens:
                call(port, "POST", f"/documents/{doc}/edits", {"insert": "x", "at": 0}, token=t)
        data = b""
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.sendall(f"GET /documents/{doc}/events HTTP/1.1\r\nHost: localhost\r\nLast-Event-ID: 0\r\n"
                      "Accept: text/event-stream\r\n\r\n".encode())
            s.settimeout(1.0)
            try:
                while chunk := s.recv(1 << 20):
                    data += chunk
            except socket.timeout:
                pass
        print(f"{args.sessions * args.rounds} changes from {args.sessions} sessions: catch-up {len(data)} bytes, "
              f"{data.count(b'event: change')} change events, {data.count(b'event: history')} history events")
    finally:
        server.terminate()
        server.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
