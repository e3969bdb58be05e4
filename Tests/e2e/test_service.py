"""Service endpoints: /healthz, /metrics (Prometheus text), /openapi.json (OpenAPI 3.1)."""

import re
import time

import requests
from openapi_spec_validator import validate

from sse import SSEStream
from tandem_client import Client, describe, new_session

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})? '
                    r'(-?[0-9.eE+-]+|NaN|\+Inf|-Inf)( -?\d+)?$')


def test_healthz(base):
    r = requests.get(base + "/healthz", timeout=10)
    assert r.status_code == 200


def test_root_serves_the_browser_client(base):
    r = requests.get(base + "/", timeout=10)
    assert r.status_code == 200
    assert r.headers["Content-Type"].startswith("text/html")
    assert b"<" in r.content


def parse_metrics(text: str):
    """Parses Prometheus text format 0.0.4 strictly enough to catch malformed output."""
    types, samples = {}, []
    for line in text.splitlines():
        if not line.strip():
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(None, 3)
            assert kind in ("counter", "gauge", "histogram", "summary", "untyped"), line
            assert name not in types, f"TYPE given twice for {name}"
            types[name] = kind
            continue
        if line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        assert m, f"not a Prometheus sample line: {line!r}"
        samples.append((m.group(1), m.group(2) or "", float(m.group(3))))
    return types, samples


def family_of(name: str, types: dict) -> str | None:
    for suffix in ("", "_total", "_bucket", "_sum", "_count"):
        if suffix and name.endswith(suffix) and name[: -len(suffix)] in types:
            return name[: -len(suffix)]
        if not suffix and name in types:
            return name
    return None


def total(samples, types, kind, pattern, label=None) -> float:
    rx = re.compile(pattern)
    return sum(v for n, labels, v in samples
               if rx.search(n) and types.get(family_of(n, types) or "") == kind
               and (label is None or label in labels))


def gauge(samples, types, pattern) -> list[float]:
    """The values of every gauge whose name matches (names are the server's choice)."""
    rx = re.compile(pattern)
    return [v for n, _, v in samples if rx.search(n) and types.get(n) == "gauge"]


def scrape(base):
    r = requests.get(base + "/metrics", timeout=10)
    assert r.status_code == 200
    assert r.headers["Content-Type"].startswith("text/plain")
    return parse_metrics(r.text)


def test_metrics_counters_and_gauges(servers):
    srv = servers(name="metrics")
    types, samples = scrape(srv.base)
    for name, _, _ in samples:
        assert family_of(name, types), f"sample {name} has no # TYPE"
    requests_before = total(samples, types, "counter", r"request")
    changes_before = total(samples, types, "counter", r"change")

    anon = Client(srv.base)
    alice, bob = new_session(srv.base, "A"), new_session(srv.base, "B")
    docs = [anon.create_doc("") for _ in range(3)]
    alice.insert(docs[0]["id"], "a", 0)
    alice.insert(docs[0]["id"], "b", 0, newGroup=True)
    bob.insert(docs[1]["id"], "c", 0)
    assert alice.undo(docs[0]["id"]).status_code == 200
    assert alice.redo(docs[0]["id"]).status_code == 200
    assert alice.undo(docs[0]["id"]).status_code == 200

    with SSEStream(srv.base, f"/documents/{docs[2]['id']}/events") as stream:
        assert stream.status == 200
        types, samples = scrape(srv.base)
        assert total(samples, types, "counter", r"request") >= requests_before + 11  # 2 sessions, 3 documents, 3 edits, 3 undo/redo
        # Changes: 3 edits + 2 undos + 1 redo, whether counted in one family with a kind
        # label or in families of their own.
        changes = total(samples, types, "counter", r"change") - changes_before
        undos = total(samples, types, "counter", r"undo") or total(samples, types, "counter", r"change", 'kind="undo"')
        redos = total(samples, types, "counter", r"redo") or total(samples, types, "counter", r"change", 'kind="redo"')
        assert changes in (3, 6), f"changes counted {changes}, expected 3 edits (+3 undo/redo)"
        assert undos == 2, "undo counter"
        assert redos == 1, "redo counter"
        gauges = {n for n, k in types.items() if k == "gauge"}
        assert 2 in gauge(samples, types, r"session"), f"sessions gauge among {gauges}"
        assert 3 in gauge(samples, types, r"document"), f"documents gauge among {gauges}"
        assert 1 in gauge(samples, types, r"(sse|subscriber)"), f"SSE subscriber gauge among {gauges}"
        assert any(v >= 1 for v in gauge(samples, types, r"connection")), f"connections gauge among {gauges}"
    # The subscriber leaves: the gauge goes back to 0 (the server notices the close).
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        types, samples = scrape(srv.base)
        if gauge(samples, types, r"(sse|subscriber)") == [0]:
            break
        time.sleep(0.05)
    assert gauge(samples, types, r"(sse|subscriber)") == [0]


TESTED = {
    ("/sessions", "post"), ("/sessions/me", "get"), ("/sessions/me", "delete"),
    ("/documents", "post"), ("/documents", "get"), ("/documents/{}", "get"), ("/documents/{}", "patch"),
    ("/documents/{}", "delete"), ("/documents/{}/text", "get"), ("/documents/{}/text", "put"),
    ("/documents/{}/save", "post"), ("/documents/{}/versions", "get"), ("/documents/{}/versions/{}/text", "get"),
    ("/documents/{}/edits", "post"), ("/documents/{}/edits", "get"), ("/documents/{}/events", "get"),
    ("/documents/{}/undo", "post"), ("/documents/{}/redo", "post"), ("/documents/{}/history", "get"),
    ("/documents/{}/history", "patch"), ("/documents/{}/history", "delete"),
    ("/documents/{}/history/groups", "post"), ("/documents/{}/history/groups", "delete"),
    ("/documents/{}/selection", "put"),
    ("/healthz", "get"), ("/metrics", "get"), ("/openapi.json", "get"),
}


def test_openapi_is_valid_3_1_and_lists_every_tested_path(base):
    r = requests.get(base + "/openapi.json", timeout=10)
    assert r.status_code == 200, describe(r)
    assert r.headers["Content-Type"].startswith("application/json")
    spec = r.json()
    assert str(spec.get("openapi", "")).startswith("3.1"), spec.get("openapi")
    validate(spec)  # raises with the reason if the document is not valid OpenAPI 3.1
    listed = set()
    for path, item in spec["paths"].items():
        norm = re.sub(r"\{[^}]+\}", "{}", path)
        for method in item:
            if method in ("get", "put", "post", "delete", "patch", "head", "options"):
                listed.add((norm, method))
    missing = sorted(TESTED - listed)
    assert not missing, f"openapi.json does not list {missing}"
