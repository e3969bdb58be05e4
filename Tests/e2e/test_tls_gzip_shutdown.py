"""The HTTP layer end to end on the real binary: HTTPS with a certificate made here by the
`openssl` command, gzip decoded back to the same bytes, and a graceful SIGTERM."""

import gzip
import http.client
import signal
import socket
import ssl
import subprocess
import time

import requests

from tandem_server import REPO, binary_path, free_port


def _start(tmp_path, *extra):
    port = free_port()
    proc = subprocess.Popen(
        [str(binary_path()), "serve", "--host", "127.0.0.1", "--port", str(port), "--data", str(tmp_path / "data"),
         "--public", str(REPO / "Public"), "--log-level", "warning", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stdout.read().decode(errors="replace")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, port
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise AssertionError("server did not listen")


def test_https_with_a_self_signed_certificate(tmp_path):
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
                    "-days", "1", "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    proc, port = _start(tmp_path, "--tls-cert", str(cert), "--tls-key", str(key))
    try:
        context = ssl.create_default_context(cafile=str(cert))
        context.check_hostname = False
        conn = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=10)
        # Keep-alive over TLS: several requests on one connection, a body in both directions.
        conn.request("GET", "/healthz")
        r = conn.getresponse()
        assert r.status == 200 and b'"ok"' in r.read()
        conn.request("POST", "/documents", body=b'{"id":"tls","text":"secret"}', headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        assert r.status == 201, r.read()
        r.read()
        conn.request("GET", "/documents/tls/text")
        r = conn.getresponse()
        assert (r.status, r.read()) == (200, b"secret")
        assert conn.sock.version() in ("TLSv1.2", "TLSv1.3")
        conn.close()
        # Plain HTTP on the TLS port is refused, and the server goes on serving.
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            try:
                data = s.recv(100)
            except (ConnectionResetError, TimeoutError):
                data = b""
            assert not data.startswith(b"HTTP/1.1 200")
        conn = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=10)
        conn.request("GET", "/healthz")
        assert conn.getresponse().status == 200
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def test_gzip_decodes_back_to_the_same_bytes(base):
    plain = requests.get(base + "/openapi.json", headers={"Accept-Encoding": "identity"})
    assert plain.status_code == 200 and "Content-Encoding" not in plain.headers
    raw = requests.get(base + "/openapi.json", headers={"Accept-Encoding": "gzip"}, stream=True)
    assert raw.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in raw.headers.get("Vary", "")
    body = raw.raw.read(decode_content=False)
    assert int(raw.headers["Content-Length"]) == len(body) < len(plain.content)
    assert gzip.decompress(body) == plain.content
    # A small answer is not worth compressing.
    small = requests.get(base + "/healthz", headers={"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in small.headers


def test_sigterm_finishes_in_flight_work_and_exits_zero(tmp_path):
    proc, port = _start(tmp_path)
    base = f"http://127.0.0.1:{port}"
    assert requests.post(base + "/documents", json={"id": "d", "text": ""}).status_code == 201
    # A long-poll is in flight when SIGTERM arrives; the server answers or closes it and exits 0.
    s = socket.create_connection(("127.0.0.1", port), timeout=15)
    s.sendall(b"GET /documents/d/edits?since=0&wait=20 HTTP/1.1\r\nHost: x\r\n\r\n")
    time.sleep(0.3)
    r = requests.post(base + "/documents/d/edits", json={"insert": "kept", "at": 0})
    assert r.status_code == 200
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=20) == 0
    s.close()
    # Everything acknowledged before the signal is there after a restart.
    proc, port = _start(tmp_path)
    try:
        assert requests.get(f"http://127.0.0.1:{port}/documents/d/text").text == "kept"
    finally:
        proc.terminate()
        proc.wait(timeout=15)
