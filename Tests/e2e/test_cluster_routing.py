"""Two nodes behind the balancer (issue 41): the balancer sends a document's requests to the
node its id hashes to, and a node stopped with SIGTERM in the middle of typing hands its
documents to the other without a client seeing an error. Runs under TANDEM_E2E_NODES=2, with
deploy/nginx.conf's hash routing and round robin alike."""

from __future__ import annotations

import os
import re
import signal
import sys
import threading
import time
from pathlib import Path

import pytest
import requests

from postgres_env import needs_postgres
from tandem_client import Client, describe, new_session, unique
from tandem_server import NODES

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import ketama  # noqa: E402

_postgres = needs_postgres()
pytestmark = (_postgres if isinstance(_postgres, list) else [_postgres]) + [
    pytest.mark.skipif(NODES != 2, reason="needs two nodes behind nginx (TANDEM_E2E_NODES=2)")]


def _documents_on_each_node(srv, alice: Client) -> list[str]:
    """A new document whose id the ring sends to each node, in the order of `srv.nodes`."""
    ring = ketama.ring([f"127.0.0.1:{node.port}" for node in srv.nodes])
    found: list[str | None] = [None] * len(srv.nodes)
    while None in found:
        doc = unique("route")
        k = ketama.server(ring, doc)
        if found[k] is None:
            r = alice.post("/documents", {"id": doc, "text": "", "access": "open"})
            assert r.status_code == 201, describe(r)
            found[k] = doc
    return found  # type: ignore[return-value]


def _upstream_ports(srv, doc: str) -> list[int]:
    """The node ports nginx's access log names for the requests about `doc`, in order."""
    ports = []
    for line in srv.nginx.log_path.read_text(errors="replace").splitlines():
        if f"/documents/{doc}" in line and "upstream=" in line:
            # Several tries read "upstream=A:1, B:2 upstream_status=502, 200".
            tried = line.split("upstream=", 1)[1].split(" upstream_status=", 1)[0]
            ports += [int(p) for p in re.findall(r":(\d+)", tried)]
    return ports


def test_with_hash_routing_each_documents_requests_reach_one_node(servers):
    if os.environ.get("TANDEM_E2E_ROUTING", "hash") != "hash":
        pytest.skip("round robin spreads each document's requests on purpose")
    srv = servers(name="hash-routing")
    alice = new_session(srv.base, "Alice")
    docs = _documents_on_each_node(srv, alice)
    for doc in docs:
        for i in range(6):
            assert alice.post(f"/documents/{doc}/edits", {"insert": str(i), "at": 0}).status_code == 200
        assert alice.text(doc) == "543210"
    time.sleep(0.2)  # the access log is written as each answer goes out
    for k, doc in enumerate(docs):
        assert set(_upstream_ports(srv, doc)) == {srv.nodes[k].port}, doc


@pytest.mark.timeout(120)
def test_sigterm_of_a_node_mid_typing_fails_no_request_and_loses_nothing(servers):
    srv = servers(name="sigterm-node")
    one, two = srv.nodes
    alice = new_session(srv.base, "Alice")
    docs = _documents_on_each_node(srv, alice)
    acked: dict[str, list[str]] = {doc: [] for doc in docs}
    acked_after: dict[str, int] = {doc: 0 for doc in docs}
    failures: list[str] = []
    stop = threading.Event()
    stopped_at = [float("inf")]

    def type_into(doc: str, name: str):
        me = new_session(srv.base, name)
        i = 0
        while not stop.is_set():
            token = f"<{name}{i}>"
            try:
                r = me.post(f"/documents/{doc}/edits", {"insert": token, "at": 0},
                            headers={"Idempotency-Key": unique("key")}, timeout=10)
            except requests.RequestException as e:
                failures.append(f"{token}: {e!r}")
                return
            if r.status_code == 200:
                acked[doc].append(token)
                if time.monotonic() > stopped_at[0]:
                    acked_after[doc] += 1
            else:
                failures.append(f"{token}: {describe(r)}")
            i += 1

    threads = [threading.Thread(target=type_into, args=(doc, f"{c}{k}"))
               for k, doc in enumerate(docs) for c in "ab"]
    for t in threads:
        t.start()
    time.sleep(1.0)
    stopped_at[0] = time.monotonic()
    one.process.send_signal(signal.SIGTERM)
    assert one.process.wait(timeout=20) == 0, "the node stopped gracefully"
    time.sleep(1.0)
    stop.set()
    for t in threads:
        t.join(timeout=30)

    assert failures == [], failures[:5]
    for doc in docs:
        assert acked_after[doc] > 0, f"no edit of {doc} was acknowledged after the SIGTERM"
        text = alice.text(doc)
        for token in acked[doc]:
            assert text.count(token) == 1, token
        revisions = [c["revision"] for c in alice.changes(doc)]
        assert revisions == list(range(1, len(acked[doc]) + 1)), "one revision per acknowledged edit, gapless"
    # The stopped node's document went on on the other node.
    assert _upstream_ports(srv, docs[0])[-1] == two.port
