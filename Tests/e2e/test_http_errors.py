"""Errors at the HTTP level: methods, routes, sizes, and connections that survive bad input."""

import http.client
import json
import re
import socket
from urllib.parse import urlsplit

import pytest

from tandem_client import assert_error, unchanged


def test_wrong_method_is_405_with_allow(anon):
    d = anon.create_doc("x")
    for method, path, allowed in (("DELETE", "/healthz", "GET"), ("PUT", "/documents", "POST"),
                                  ("PUT", f"/documents/{d['id']}/undo", "POST"),
                                  ("POST", f"/documents/{d['id']}/text", "PUT"),
                                  ("PUT", "/sessions", "POST")):
        r = anon.request(method, path)
        assert_error(r, 405)
        allow = {m.strip().upper() for m in r.headers.get("Allow", "").split(",")}
        assert allowed in allow, f"{method} {path}: Allow {r.headers.get('Allow')!r}"
        assert method not in allow
    assert anon.text(d["id"]) == "x"


def test_unknown_route_is_404_json(anon):
    d = anon.create_doc("x")
    for path in (f"/documents/{d['id']}/nonsense", "/sessions/me/someone-else", f"/documents/{d['id']}/history/nope"):
        assert_error(anon.get(path), 404)


def test_unknown_scope_is_rejected(alice):
    d = alice.create_doc("x")
    with unchanged(alice, d["id"]):
        assert_error(alice.undo(d["id"], scope="everyone"), 400, "invalid_field")
    assert_error(alice.get(f"/documents/{d['id']}/history", params={"scope": "nobody"}), 400, "invalid_field")


def _raw(base: str, request: bytes, read_timeout: float = 10) -> tuple[int, dict, bytes]:
    """Sends raw bytes, reads one response; tolerant of the server closing before reading all."""
    u = urlsplit(base)
    with socket.create_connection((u.hostname, u.port), timeout=read_timeout) as s:
        try:
            s.sendall(request)
        except (BrokenPipeError, ConnectionResetError):
            pass
        data = b""
        while b"\r\n\r\n" not in data:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (l.partition(":") for l in lines[1:])}
    return status, headers, body


@pytest.mark.one_node("Tandem's own body limit and JSON 413: nginx answers an oversized body itself")
def test_body_too_large_is_413(base, anon):
    d = anon.create_doc("x")
    host = urlsplit(base).netloc
    with unchanged(anon, d["id"]):
        req = (f"POST /documents/{d['id']}/edits HTTP/1.1\r\nHost: {host}\r\n"
               f"Content-Type: application/json\r\nContent-Length: {1 << 30}\r\n\r\n").encode() + b'{"insert":'
        status, headers, _ = _raw(base, req)
        assert status == 413
        assert headers.get("content-type", "").startswith("application/json")


@pytest.mark.one_node("Tandem's own request-line limit and JSON 414: nginx answers a long URI itself")
def test_uri_too_long_is_414(base):
    host = urlsplit(base).netloc
    status, headers, _ = _raw(base, f"GET /documents/{'a' * 70000} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    assert status == 414
    assert headers.get("content-type", "").startswith("application/json")


@pytest.mark.one_node("Tandem's own header limit and JSON 431: nginx answers large headers itself")
def test_headers_too_large_is_431(base):
    host = urlsplit(base).netloc
    status, headers, _ = _raw(base, f"GET /healthz HTTP/1.1\r\nHost: {host}\r\nX-Big: {'b' * 200000}\r\n\r\n".encode())
    assert status == 431
    assert headers.get("content-type", "").startswith("application/json")


@pytest.mark.one_node("Tandem's own keep-alive after errors: through a proxy the client's connection is nginx's")
def test_bad_input_does_not_kill_the_connection(base, anon):
    d = anon.create_doc("hello")
    u = urlsplit(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    try:
        bad = [
            ("POST", f"/documents/{d['id']}/edits", b"{nope", {"Content-Type": "application/json"}),
            ("POST", f"/documents/{d['id']}/edits", json.dumps({"insert": "x", "at": 99}).encode(),
             {"Content-Type": "application/json"}),
            ("POST", f"/documents/{d['id']}/undo", b"", {}),
            ("GET", "/documents/missing-doc", None, {}),
            ("GET", "/sessions/me", None, {"Authorization": "Bearer nope"}),
            ("DELETE", "/healthz", None, {}),
        ]
        for method, path, body, headers in bad:
            conn.request(method, path, body=body, headers=headers)
            r = conn.getresponse()
            payload = r.read()
            assert 400 <= r.status < 500, (method, path, r.status, payload)
            assert "close" not in (r.getheader("Connection") or "").lower(), (method, path)
            assert "error" in json.loads(payload)
        # The same connection still works.
        conn.request("GET", f"/documents/{d['id']}")
        r = conn.getresponse()
        assert r.status == 200
        assert json.loads(r.read())["text"] == "hello"
    finally:
        conn.close()


@pytest.mark.one_node("Tandem's own pipelining on a raw socket: nginx reads pipelined requests itself")
def test_pipelined_requests_are_answered_in_order(base, anon):
    d = anon.create_doc("pipe")
    host = urlsplit(base).netloc
    body = json.dumps({"insert": "!", "at": 4}).encode()
    reqs = (f"GET /documents/{d['id']}/text HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()
            + f"POST /documents/{d['id']}/edits HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
              f"Content-Length: {len(body)}\r\n\r\n".encode() + body
            + f"GET /documents/{d['id']}/text HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
    u = urlsplit(base)
    with socket.create_connection((u.hostname, u.port), timeout=10) as s:
        s.sendall(reqs)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    assert data.count(b"HTTP/1.1 200") == 3, data
    first, second = data.index(b"\r\n\r\npipe"), data.index(b"\r\n\r\npipe!")
    edited = re.search(rb'"revision":\s*1\b', data)
    assert edited and first < edited.start() < second


@pytest.mark.one_node("Tandem's own chunked-body parser: nginx de-chunks a request body before a node sees it")
def test_chunked_request_body(anon):
    d = anon.create_doc("")
    pieces = [b'{"insert": ', b'"chunked \xf0\x9f', b'\x98\x80", ', b'"at": 0}']
    r = anon.request("POST", f"/documents/{d['id']}/edits", data=iter(pieces),
                     headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    assert anon.text(d["id"]) == "chunked 😀"


@pytest.mark.one_node("Tandem's own 100 Continue on a raw socket: nginx answers Expect itself")
def test_expect_100_continue(base, anon):
    """curl sends `Expect: 100-continue` for bodies over 1 KiB: the server says go on."""
    d = anon.create_doc("")
    u = urlsplit(base)
    with socket.create_connection((u.hostname, u.port), timeout=10) as s:
        s.sendall(f"PUT /documents/{d['id']}/text HTTP/1.1\r\nHost: {u.netloc}\r\nContent-Type: text/plain\r\n"
                  "Content-Length: 5\r\nExpect: 100-continue\r\n\r\n".encode())
        interim = s.recv(1000)
        assert interim.startswith(b"HTTP/1.1 100"), interim
        s.sendall(b"hello")
        final = b""
        while b"\r\n\r\n" not in final:
            final += s.recv(65536)
        assert final.startswith(b"HTTP/1.1 200") or final.startswith(b"HTTP/1.1 204"), final
    assert anon.text(d["id"]) == "hello"


def test_curl_put_of_a_file(base, anon, tmp_path):
    import shutil
    import subprocess
    curl = shutil.which("curl")
    assert curl, "curl is needed (scripts/test.sh installs it)"
    d = anon.create_doc("")
    body = ("ünïcode 😀 line\n" * 500).encode()
    f = tmp_path / "body.txt"
    f.write_bytes(body)
    run = subprocess.run([curl, "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "PUT",
                          "--data-binary", f"@{f}", f"{base}/documents/{d['id']}/text"],
                         capture_output=True, text=True, timeout=30)
    assert run.stdout == "200", run
    assert anon.get(f"/documents/{d['id']}/text").content == body
