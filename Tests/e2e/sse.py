"""A Server-Sent Events reader over a raw socket, so a test controls exactly when the
connection is open, dropped, or resumed (requests' streaming buffers too eagerly)."""

from __future__ import annotations

import json
import socket
import time
import zlib
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass
class Event:
    type: str
    data: str
    id: str | None

    def json(self):
        return json.loads(self.data)


class SSEStream:
    def __init__(self, base: str, path: str, headers: dict | None = None, timeout: float = 10,
                 receive_buffer: int | None = None):
        u = urlsplit(base)
        if receive_buffer is None:
            self.sock = socket.create_connection((u.hostname, u.port), timeout=timeout)
        else:
            # Set before connecting, so the kernel cannot grow the window past it: a reader
            # that stops reading then backs up into the server quickly.
            self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
            self.sock.settimeout(timeout)
            self.sock.connect((u.hostname, u.port))
        self.comments: list[str] = []
        lines = [f"GET {path} HTTP/1.1", f"Host: {u.hostname}:{u.port}", "Accept: text/event-stream",
                 "Cache-Control: no-cache"]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        self._raw = b""
        self._body = b""
        self._chunked = False
        self._chunk_left = 0
        self._skip_crlf = False
        self._eof = False
        self._inflater = None
        self.status, self.headers = self._read_head(time.monotonic() + timeout)
        if self.headers.get("content-encoding", "").lower() == "gzip":
            # As a browser does: inflated as the bytes come, the gzip trailer checked at the end.
            self._inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self._dechunk()
        self._event_type, self._data, self.last_id = "", [], None

    def _recv(self, deadline: float) -> bool:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("no SSE data before the deadline")
        self.sock.settimeout(remaining)
        try:
            got = self.sock.recv(65536)
        except socket.timeout:
            raise TimeoutError("no SSE data before the deadline") from None
        if not got:
            self._eof = True
            return False
        self._raw += got
        return True

    def _read_head(self, deadline):
        while b"\r\n\r\n" not in self._raw:
            if not self._recv(deadline):
                raise ConnectionError(f"connection closed before the response head: {self._raw!r}")
        head, self._raw = self._raw.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
        self._chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        return status, headers

    def _take(self, data: bytes):
        self._body += self._inflater.decompress(data) if self._inflater else data

    @property
    def gzip_complete(self) -> bool:
        """The gzip stream ended with a valid trailer (CRC-32 and length)."""
        return self._inflater is not None and self._inflater.eof

    def _dechunk(self):
        if not self._chunked:
            self._take(self._raw)
            self._raw = b""
            return
        while True:
            if self._chunk_left > 0:
                take = min(self._chunk_left, len(self._raw))
                if take == 0:
                    return
                self._take(self._raw[:take])
                self._raw = self._raw[take:]
                self._chunk_left -= take
                if self._chunk_left == 0:
                    self._skip_crlf = True
                continue
            if self._skip_crlf:
                if len(self._raw) < 2:
                    return
                self._raw = self._raw[2:]
                self._skip_crlf = False
            if b"\r\n" not in self._raw:
                return
            size_line, self._raw = self._raw.split(b"\r\n", 1)
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                self._eof = True
                return
            self._chunk_left = size

    def _next_line(self) -> str | None:
        idx_n = self._body.find(b"\n")
        idx_r = self._body.find(b"\r")
        if idx_n < 0 and idx_r < 0:
            return None
        if idx_r >= 0 and (idx_n < 0 or idx_r < idx_n):
            if idx_r + 1 == len(self._body) and not self._eof:
                return None  # a CR at the end may be the first half of CRLF
            line = self._body[:idx_r]
            cut = idx_r + 2 if self._body[idx_r + 1:idx_r + 2] == b"\n" else idx_r + 1
        else:
            line, cut = self._body[:idx_n], idx_n + 1
        self._body = self._body[cut:]
        return line.decode("utf-8")

    def next_event(self, timeout: float = 10) -> Event:
        """The next dispatched event; raises TimeoutError if none comes in time."""
        deadline = time.monotonic() + timeout
        while True:
            line = self._next_line()
            if line is None:
                if self._eof:
                    raise ConnectionError("the server closed the event stream")
                self._recv(deadline)
                self._dechunk()
                continue
            if line == "":
                if self._data:
                    ev = Event(self._event_type or "message", "\n".join(self._data), self.last_id)
                    self._event_type, self._data = "", []
                    return ev
                self._event_type = ""
                continue
            if line.startswith(":"):
                self.comments.append(line)
                continue
            field, _, value = line.partition(":")
            if value.startswith(" "):
                value = value[1:]
            if field == "event":
                self._event_type = value
            elif field == "data":
                self._data.append(value)
            elif field == "id":
                self.last_id = value
            # retry and unknown fields are ignored, as the spec says

    def next_change(self, timeout: float = 10) -> Event:
        deadline = time.monotonic() + timeout
        while True:
            ev = self.next_event(max(0.01, deadline - time.monotonic()))
            if ev.type == "change":
                return ev

    def next_of(self, kind: str, timeout: float = 10) -> Event:
        deadline = time.monotonic() + timeout
        while True:
            ev = self.next_event(max(0.01, deadline - time.monotonic()))
            if ev.type == kind:
                return ev

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
