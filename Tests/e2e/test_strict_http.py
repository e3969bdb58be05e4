"""Strict request targets and Host over a real socket (RFC 9112 §3.2): a bad one is 400 and
the connection closes; absolute-form and `OPTIONS *` are served; real clients still work."""

import http.client
import json
import shutil
import socket
import subprocess
from urllib.parse import urlsplit

import pytest
import requests

pytestmark = pytest.mark.one_node("Tandem's own RFC 9112 Host and target checks on a raw socket: nginx rejects or rewrites these itself")


def _read_response(s: socket.socket) -> tuple[int, dict, bytes]:
    """One response with a Content-Length body (every answer here has one)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        assert chunk, f"connection closed before a response: {data!r}"
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (l.partition(":") for l in lines[1:])}
    length = int(headers.get("content-length", "0"))
    while len(rest) < length:
        chunk = s.recv(65536)
        assert chunk, "connection closed inside a body"
        rest += chunk
    return status, headers, rest[:length]


def _closed(s: socket.socket) -> bool:
    """True when the server has closed: EOF (or a reset) before any more bytes."""
    try:
        return s.recv(65536) == b""
    except ConnectionResetError:
        return True


def _exchange(base: str, head: str) -> tuple[int, dict, bytes, bool]:
    """Sends `head` and then a good request on the same connection; returns the first
    answer and whether the server closed instead of answering the second."""
    u = urlsplit(base)
    follow = f"GET /healthz HTTP/1.1\r\nHost: {u.netloc}\r\n\r\n"
    with socket.create_connection((u.hostname, u.port), timeout=10) as s:
        s.sendall((head + follow).encode("latin-1"))
        status, headers, body = _read_response(s)
        return status, headers, body, _closed(s)


BAD_HOSTS = [
    "", "a b", "a,b", "h, h", "user@h", "user:pw@h", "h/p", "h?q", "h#f", "http://h",
    "h:65536", "h:99999999999999999999999999999999", "h:8o", "h:-1", "h:80:80", ":80", "::1",
    "[::1", "[::1]x", "[1::2::3]", "[fe80::1%25eth0]", "h%zz",
]


@pytest.mark.parametrize("host", BAD_HOSTS)
def test_a_bad_host_is_400_and_closes(base, host):
    status, headers, body, closed = _exchange(base, f"GET /healthz HTTP/1.1\r\nHost: {host}\r\n\r\n")
    assert status == 400, (host, body)
    assert headers.get("content-type", "").startswith("application/json")
    assert json.loads(body)["error"]["code"] == "invalid_host"
    assert closed, f"{host!r}: the request after it was answered"


@pytest.mark.parametrize("head,code", [
    ("GET /healthz HTTP/1.1\r\n\r\n", "missing_host"),
    ("GET /healthz HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", "multiple_host"),
])
def test_a_missing_or_repeated_host_is_400_and_closes(base, head, code):
    status, _, body, closed = _exchange(base, head)
    assert status == 400 and json.loads(body)["error"]["code"] == code
    assert closed


@pytest.mark.parametrize("line", [
    "GET * HTTP/1.1", "POST * HTTP/1.1", "GET healthz HTTP/1.1", "GET ?x HTTP/1.1",
    "GET ftp://h/healthz HTTP/1.1", "GET http:/h/healthz HTTP/1.1", "GET http:///healthz HTTP/1.1",
    "GET http://u@h/healthz HTTP/1.1", "GET http://h:70000/healthz HTTP/1.1", "GET http://a,b/healthz HTTP/1.1",
])
def test_a_bad_target_is_400_and_closes(base, line):
    host = urlsplit(base).netloc
    status, _, body, closed = _exchange(base, f"{line}\r\nHost: {host}\r\nContent-Length: 0\r\n\r\n")
    assert status == 400, (line, body)
    assert json.loads(body)["error"]["code"] == "invalid_target"
    assert closed, f"{line!r}: the request after it was answered"


def test_connect_is_501_and_closes(base):
    host = urlsplit(base).netloc
    status, _, body, closed = _exchange(base, f"CONNECT {host} HTTP/1.1\r\nHost: {host}\r\n\r\n")
    assert status == 501 and json.loads(body)["error"]["code"] == "connect_not_supported"
    assert closed


def test_absolute_form_is_served_by_its_path(base):
    u = urlsplit(base)
    with socket.create_connection((u.hostname, u.port), timeout=10) as s:
        s.sendall(f"GET http://{u.netloc}/healthz HTTP/1.1\r\nHost: {u.netloc}\r\n\r\n".encode())
        status, _, body = _read_response(s)
        assert status == 200, body
        assert json.loads(body)["status"] == "ok"
        # The target's authority stands in for Host, which is then ignored (RFC 9112 §3.2.2),
        # even when it says something else or nothing; the connection goes on.
        for host in ("elsewhere.example:1", ""):
            s.sendall(f"GET HTTP://{u.netloc}/healthz HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
            status, _, body = _read_response(s)
            assert status == 200, (host, body)


def test_absolute_form_routes_parameters_and_query(base, anon):
    d = anon.create_doc("abs")
    anon.insert(d["id"], "!", 3)
    u = urlsplit(base)
    with socket.create_connection((u.hostname, u.port), timeout=10) as s:
        s.sendall(f"GET http://{u.netloc}/documents/{d['id']} HTTP/1.1\r\nHost: {u.netloc}\r\n\r\n".encode())
        status, _, body = _read_response(s)
        assert status == 200 and json.loads(body)["text"] == "abs!"
        s.sendall(f"GET http://{u.netloc}/documents/{d['id']}/edits?since=1 HTTP/1.1\r\nHost: {u.netloc}\r\n\r\n".encode())
        status, _, body = _read_response(s)
        assert status == 200 and json.loads(body) == [], body
        s.sendall(f"GET http://{u.netloc}/documents/{d['id']}/edits?since=0 HTTP/1.1\r\nHost: {u.netloc}\r\n\r\n".encode())
        status, _, body = _read_response(s)
        assert status == 200 and len(json.loads(body)) == 1, body
        s.sendall(f"GET http://{u.netloc}/nowhere HTTP/1.1\r\nHost: {u.netloc}\r\n\r\n".encode())
        status, _, _ = _read_response(s)
        assert status == 404


def test_options_asterisk_lists_every_method(base):
    u = urlsplit(base)
    served = {m.upper() for ops in requests.get(base + "/openapi.json", timeout=10).json()["paths"].values()
              for m in ops if m.upper() in ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")}
    with socket.create_connection((u.hostname, u.port), timeout=10) as s:
        s.sendall(f"OPTIONS * HTTP/1.1\r\nHost: {u.netloc}\r\n\r\n".encode())
        status, headers, body = _read_response(s)
        assert status == 204 and body == b""
        allow = {m.strip() for m in headers.get("allow", "").split(",")}
        assert allow == served | {"HEAD", "OPTIONS"}, headers.get("allow")
        # Not an error: the connection goes on.
        s.sendall(f"GET /healthz HTTP/1.1\r\nHost: {u.netloc}\r\n\r\n".encode())
        assert _read_response(s)[0] == 200


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1:8080", "[::1]:8080", "[::1]", "example.com.",
                                  "EXAMPLE.COM:0080", "h:", "xn--bcher-kva.example"])
def test_legitimate_hosts_are_served(base, host):
    u = urlsplit(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    try:
        conn.request("GET", "/healthz", headers={"Host": host})
        r = conn.getresponse()
        assert r.status == 200, (host, r.read())
        r.read()
    finally:
        conn.close()


def test_common_clients_still_work(base):
    assert requests.get(base + "/healthz", timeout=10).status_code == 200
    conn = http.client.HTTPConnection(urlsplit(base).hostname, urlsplit(base).port, timeout=10)
    try:
        conn.request("GET", "/healthz?x=1")
        assert conn.getresponse().status == 200
    finally:
        conn.close()
    curl = shutil.which("curl")
    assert curl, "curl is needed (scripts/test.sh installs it)"
    for args in ([base + "/healthz"], ["--proxy", base, "http://127.0.0.1:1/healthz"]):
        run = subprocess.run([curl, "-s", "-o", "/dev/null", "-w", "%{http_code}", *args],
                             capture_output=True, text=True, timeout=30)
        assert run.stdout == "200", (args, run)
