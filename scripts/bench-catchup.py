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
import json
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--sessions", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=20)
    args = ap.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([args.binary, "serve", "--host", "127.0.0.1", "--port", str(port),
                               "--data", tempfile.mkdtemp(prefix="tandem-catchup-"), "--durability", "off",
                               "--log-level", "warning"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def call(method: str, path: str, body=None, token: str | None = None):
        req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                     data=json.dumps(body).encode() if body is not None else None)
        req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read() or b"null")

    try:
        for _ in range(300):
            try:
                call("GET", "/healthz")
                break
            except OSError:
                time.sleep(0.05)
        tokens = [call("POST", "/sessions", {"name": f"s{i}"})["token"] for i in range(args.sessions)]
        doc = call("POST", "/documents", {"title": "catch-up", "text": ""}, token=tokens[0])["id"]
        for _ in range(args.rounds):
            for t in tokens:
                call("POST", f"/documents/{doc}/edits", {"insert": "x", "at": 0}, token=t)
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
