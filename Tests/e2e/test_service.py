"""Service endpoints: /healthz, /metrics (Prometheus text), /openapi.json (OpenAPI 3.1)."""

import re
import time

import pytest
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
    srv = servers(name="metrics", one_node=True)  # /metrics counts one process's requests, sessions and streams
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


def _request_count(samples, method, route, status) -> float:
    want = {"method": method, "route": route, "status": str(status)}
    found = 0.0
    for name, labels, value in samples:
        if name != "tandem_http_requests_total":
            continue
        got = dict(re.findall(r'([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"', labels))
        if got == want:
            found += value
    return found


def _histogram(samples, name):
    buckets = []
    for n, labels, value in samples:
        if n == name + "_bucket":
            le = re.search(r'le="([^"]+)"', labels).group(1)
            buckets.append((float("inf") if le == "+Inf" else float(le), value))
    count = [v for n, _, v in samples if n == name + "_count"]
    return buckets, count[0] if count else None


def test_metrics_count_each_route_and_status_exactly(servers):
    """Exact increments by method, route template and status, the 404s of unknown paths
    under one label, and a latency histogram whose buckets only grow and end at +Inf =
    count."""
    srv = servers(name="metrics-exact", one_node=True)  # exact counts of one process's requests
    anon = Client(srv.base)
    d = anon.create_doc("abc")
    _, before = scrape(srv.base)
    for _ in range(3):
        anon.insert(d["id"], "x", 0)
    for _ in range(2):
        assert anon.post(f"/documents/{d['id']}/edits", {"insert": "x", "at": 99}).status_code == 422
    assert anon.get("/documents/nope").status_code == 404
    for path in ("/no/such/path", "/another/one"):
        assert anon.get(path).status_code == 404
    types, after = scrape(srv.base)

    def delta(method, route, status):
        return _request_count(after, method, route, status) - _request_count(before, method, route, status)

    assert delta("POST", "/documents/{id}/edits", 200) == 3
    assert delta("POST", "/documents/{id}/edits", 422) == 2
    assert delta("GET", "/documents/{id}", 404) == 1
    assert delta("GET", "unmatched", 404) == 2
    # The scrape before this one is counted too, once it has been answered.
    assert delta("GET", "/metrics", 200) == 1

    assert types.get("tandem_http_request_duration_seconds") == "histogram"
    buckets, count = _histogram(after, "tandem_http_request_duration_seconds")
    assert len(buckets) >= 5 and buckets[-1][0] == float("inf")
    bounds = [b for b, _ in buckets]
    assert bounds == sorted(bounds) and len(set(bounds)) == len(bounds)
    values = [v for _, v in buckets]
    assert all(a <= b for a, b in zip(values, values[1:])), f"buckets are not cumulative: {values}"
    assert values[-1] == count
    handled = sum(v for n, _, v in after if n == "tandem_http_requests_total")
    assert count == handled, "every counted request is observed in the histogram once"
    _, count_before = _histogram(before, "tandem_http_request_duration_seconds")
    assert count - count_before == 3 + 2 + 1 + 2 + 1


@pytest.mark.sqlite_only("WAL flushes are SQLite's")
def test_metrics_show_the_store_group_commit_and_its_time(servers):
    """The store's counters move with durable edits: every change appended once, at least
    one transaction and one WAL flush (durability full, the default), and the time spent in
    both, so that their means can be read off a live server."""
    srv = servers(name="metrics-store", on_postgres=False)  # WAL flushes are SQLite's
    anon = Client(srv.base)
    d = anon.create_doc("")
    _, before = scrape(srv.base)
    for i in range(5):
        anon.insert(d["id"], "x", i)
    types, after = scrape(srv.base)

    def delta(name):
        assert types.get(name) == "counter", f"{name} is not a counter"
        value = lambda samples: sum(v for n, _, v in samples if n == name)
        return value(after) - value(before)

    assert delta("tandem_store_revisions_appended_total") == 5
    assert 1 <= delta("tandem_store_transactions_total") <= 5
    assert 1 <= delta("tandem_store_wal_flushes_total") <= 5
    assert delta("tandem_store_wal_flush_seconds_total") > 0
    assert delta("tandem_store_commit_seconds_total") > 0


def test_ping_answers_without_touching_anything(base, anon):
    before = anon.get("/documents").json()
    r = anon.post("/ping", {"insert": "x", "at": 0})
    assert r.status_code == 200, describe(r)
    assert r.json() == {"received": len(b'{"insert": "x", "at": 0}')}
    assert anon.get("/documents").json() == before


def test_openapi_documents_idempotency_key_on_every_change(base):
    spec = requests.get(base + "/openapi.json", timeout=10).json()
    for path, item in spec["paths"].items():
        for method, op in item.items():
            names = [p["name"] for p in op.get("parameters", []) if p.get("in") == "header"]
            assert "401" in op["responses"], f"{method} {path} does not document 401"
            if method == "get" or (method, path) == ("post", "/sessions"):
                assert "Idempotency-Key" not in names, f"{method} {path}"
                continue
            assert names.count("Idempotency-Key") == 1, f"{method} {path} does not document Idempotency-Key"
            assert "422" in op["responses"], f"{method} {path} does not document idempotency_key_reused"
    assert "group_open" in spec["paths"]["/documents/{id}/undo"]["post"]["responses"]["409"]["description"]
