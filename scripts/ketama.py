"""nginx's `hash $key consistent` (ketama), as `ConsistentHashRing` computes it in Swift: the
node a balancer rendered from deploy/nginx.conf sends a document's requests to. Used by
scripts/bench-load.py (`--routing hash`) and the e2e tests that need to know a document's node.
"""

from __future__ import annotations

import bisect
import zlib


def ring(servers: list[str]) -> list[tuple[int, int]]:
    """160 points per server (named as in the `upstream` block, `host:port`): crc32 of
    host "\\0" port and the point before it (4 bytes, little-endian), sorted, one per hash."""
    points: dict[int, int] = {}
    for index, server in enumerate(servers):
        host, _, port = server.rpartition(":")
        base = zlib.crc32(host.encode() + b"\0" + port.encode())
        previous = 0
        for _ in range(160):
            previous = zlib.crc32(previous.to_bytes(4, "little"), base)
            points.setdefault(previous, index)
    return sorted(points.items())


def server(points: list[tuple[int, int]], key: str) -> int:
    """The index of the server `key` goes to: the first point at or after crc32(key)."""
    i = bisect.bisect_left(points, (zlib.crc32(key.encode()), -1))
    return points[i % len(points)][1]
