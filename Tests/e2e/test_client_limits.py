"""Issue 38, per-client limits: rate limits on making sessions, documents, pasteboards and
share links and on refused credentials, counted per client address (from `X-Forwarded-For`
only behind a `--trusted-proxy`), answered `429 rate_limited` with `Retry-After`; a cap on
one address's connections (`429` at accept); silent connections closed after the head
timeout, counted from accept, while `/healthz` goes on answering on the only event loop.

Every limit is counted by one process, so these tests run on one node."""

from __future__ import annotations

import resource
import socket
import statistics
import time

import pytest
import requests

from tandem_client import Client, assert_error, describe, new_session, unique

pytestmark = pytest.mark.one_node("the per-client limits are counted by each process")

HEAD_TIMEOUT = 10  # seconds, the server's fixed head timeout


def assert_rate_limited(r: requests.Response, limit: str) -> None:
    err = assert_error(r, 429, "rate_limited")
    assert f"'{limit}'" in err["message"], f"the error does not name the limit {limit!r}: {describe(r)}"
    retry = r.headers.get("Retry-After", "")
    assert retry.isdigit() and int(retry) >= 1, f"Retry-After {retry!r}: {describe(r)}"


def create_session(base: str, headers: dict | None = None) -> requests.Response:
    return requests.post(f"{base}/sessions", json={"name": "limits"}, headers=headers or {}, timeout=10)


def test_sessions_past_the_rate_limit_are_refused_429_naming_the_limit_and_none_is_made(servers):
    srv = servers(name="limit-sessions", extra_args=("--rate-limit", "sessions=3/60"))
    for _ in range(3):
        r = create_session(srv.base)
        assert r.status_code == 201, describe(r)
    before = requests.get(f"{srv.base}/metrics", timeout=10).text
    refused = create_session(srv.base)
    assert_rate_limited(refused, "sessions")
    assert "token" not in refused.json()
    after = requests.get(f"{srv.base}/metrics", timeout=10).text
    gauge = [line for line in after.splitlines() if line.startswith("tandem_sessions ")]
    assert gauge == [line for line in before.splitlines() if line.startswith("tandem_sessions ")], gauge


@pytest.mark.parametrize("limit", ["documents", "pasteboards", "links"])
def test_making_documents_pasteboards_and_links_past_their_rate_limit_is_429(servers, limit):
    srv = servers(name=f"limit-{limit}", extra_args=("--rate-limit", f"{limit}=2/60"))
    ada = new_session(srv.base, "Ada")
    doc = ada.create_doc("owned") if limit != "documents" else None

    def make() -> requests.Response:
        if limit == "documents":
            return ada.post("/documents", {"text": ""})
        if limit == "pasteboards":
            return ada.post("/pasteboards", {"name": unique("pb")})
        return ada.post(f"/documents/{doc['id']}/links", {"role": "editor"})

    for _ in range(2):
        r = make()
        assert r.status_code == 201, describe(r)
    assert_rate_limited(make(), limit)


def test_refused_credentials_past_the_limit_make_every_credential_from_that_address_429(servers):
    srv = servers(name="limit-auth", extra_args=("--rate-limit", "auth=3/60"))
    ada = new_session(srv.base, "Ada")
    bad = Client(srv.base, token="s_wrong.token")
    for _ in range(3):
        assert_error(bad.get("/sessions/me"), 401)
    assert_rate_limited(bad.get("/sessions/me"), "auth")
    # Past the limit nothing presented is checked, so a guess that would be right gets no answer.
    assert_rate_limited(ada.get("/sessions/me"), "auth")
    assert_rate_limited(requests.get(f"{srv.base}/documents?link=l_guess.guess", timeout=10), "auth")
    # A request that presents no credential is not refused.
    r = requests.get(f"{srv.base}/healthz", timeout=10)
    assert r.status_code == 200, describe(r)


def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_limit(servers):
    srv = servers(name="limit-proxy", extra_args=("--rate-limit", "sessions=2/60", "--trusted-proxy", "127.0.0.1/32",
                                                  "--trusted-proxy", "::1/128"))
    first = {"X-Forwarded-For": "127.0.0.7"}
    for _ in range(2):
        r = create_session(srv.base, first)
        assert r.status_code == 201, describe(r)
    assert_rate_limited(create_session(srv.base, first), "sessions")
    # A forged entry left of what the proxy appended is never the client.
    assert_rate_limited(create_session(srv.base, {"X-Forwarded-For": "127.0.0.9, 127.0.0.7"}), "sessions")
    r = create_session(srv.base, {"X-Forwarded-For": "127.0.0.8"})
    assert r.status_code == 201, describe(r)


def test_x_forwarded_for_from_an_untrusted_peer_is_ignored(servers):
    srv = servers(name="limit-untrusted", extra_args=("--rate-limit", "sessions=2/60"))
    for n in range(2):
        r = create_session(srv.base, {"X-Forwarded-For": f"127.0.0.{10 + n}"})
        assert r.status_code == 201, describe(r)
    assert_rate_limited(create_session(srv.base, {"X-Forwarded-For": "127.0.0.12"}), "sessions")


def read_until_closed(sock: socket.socket, timeout: float) -> bytes:
    sock.settimeout(timeout)
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk


def open_connections(sock: socket.socket) -> int:
    """The server's open connections (this one included), from /metrics on `sock`."""
    sock.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    data = b""
    while b"tandem_http_open_connections " not in data or not data.endswith(b"\n"):
        data += sock.recv(1 << 20)
    line = next(l for l in data.decode().splitlines() if l.startswith("tandem_http_open_connections "))
    return int(float(line.split()[1]))


def test_a_connection_past_the_per_address_cap_is_answered_429_and_closed(servers):
    srv = servers(name="limit-connections", extra_args=("--max-connections-per-address", "5", "--event-loops", "1"))
    first = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
    # The harness's own health checks may still hold a connection from this address.
    already = open_connections(first)
    held = [first] + [socket.create_connection(("127.0.0.1", srv.port), timeout=10) for _ in range(5 - already)]
    try:
        for s in held[1:]:  # each was accepted and is served
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            assert s.recv(65536).startswith(b"HTTP/1.1 200"), "a connection within the cap was not served"
        extra = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
        answer = read_until_closed(extra, 10)
        extra.close()
        assert answer.startswith(b"HTTP/1.1 429"), answer[:200]
        assert b"too_many_connections_from_address" in answer and b"Retry-After: 1" in answer, answer[:400]
        held.pop().close()
        time.sleep(0.3)  # the server sees the close on its next loop turn
        r = requests.get(f"{srv.base}/healthz", timeout=10)
        assert r.status_code == 200, describe(r)
    finally:
        for s in held:
            s.close()


SILENT = 1_000


def _open_connections(base: str) -> int:
    """The server's `tandem_http_open_connections` gauge, this request's connection included."""
    r = requests.get(f"{base}/metrics", timeout=10)
    return int(float(next(line for line in r.text.splitlines() if line.startswith("tandem_http_open_connections ")).split()[1]))


def test_silent_connections_are_closed_after_the_head_timeout_while_healthz_answers(servers):
    """The attack: connections that never send a byte. They are closed a head timeout after
    accept (not after the 60 s idle timeout), and the only event loop keeps answering."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < SILENT + 200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, SILENT + 1000), hard))
    srv = servers(name="silent", extra_args=("--event-loops", "1", "--max-connections-per-address", "0"))
    # The probe's keep-alive connection is open throughout, so it is counted before and after.
    probe = requests.Session()
    assert probe.get(f"{srv.base}/healthz", timeout=5).status_code == 200
    before = _open_connections(srv.base)
    opened = time.monotonic()
    silent = [socket.create_connection(("127.0.0.1", srv.port), timeout=10) for _ in range(SILENT)]
    try:
        latencies = []
        while time.monotonic() - opened < HEAD_TIMEOUT - 2:
            t = time.monotonic()
            r = probe.get(f"{srv.base}/healthz", timeout=5)
            latencies.append(time.monotonic() - t)
            assert r.status_code == 200, describe(r)
            time.sleep(0.02)
        latencies.sort()
        p99 = latencies[int(len(latencies) * 0.99) - 1]
        assert p99 < 0.25 and latencies[-1] < 1.0, \
            f"/healthz p99 {p99 * 1000:.0f} ms, max {latencies[-1] * 1000:.0f} ms (median {statistics.median(latencies) * 1000:.1f} ms)"
        # Each is closed (EOF) within the head timeout plus the timer's granularity.
        for s in silent:
            remaining = HEAD_TIMEOUT + 5 - (time.monotonic() - opened)
            assert read_until_closed(s, max(0.1, remaining)) == b"", "a silent connection got bytes"
        closed_after = time.monotonic() - opened
        assert closed_after < HEAD_TIMEOUT + 5, f"the last silent connection was closed after {closed_after:.1f} s"
        # None of them is left open: no more connections than before they came, counted the
        # same way (this request's own included).
        now_open = _open_connections(srv.base)
        assert now_open <= before, f"{now_open} connections open, {before} before the silent ones"
    finally:
        probe.close()
        for s in silent:
            s.close()
