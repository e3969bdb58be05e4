"""Two nodes with `--cluster leases` on one PostgreSQL (issue 41): each document has one owner
node; a request for it on the other node is forwarded there with the caller's credentials and
Idempotency-Key, event streams are relayed, a killed owner's documents move to the survivor
once its lease expires, a paused owner whose lease moved commits nothing, and an owner stopped
with SIGTERM hands its documents over without a client seeing a refusal. The test addresses
each node itself, so it runs once, in the hash-routing pass."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
import requests

from postgres_env import DATABASE, needs_postgres
from sse import SSEStream
from tandem_client import Client, describe, new_session, unique

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import ketama  # noqa: E402

_postgres = needs_postgres()
pytestmark = (_postgres if isinstance(_postgres, list) else [_postgres]) + [
    pytest.mark.skipif(os.environ.get("TANDEM_E2E_ROUTING", "hash") != "hash",
                       reason="addresses its nodes directly: ran in the hash-routing pass")]

# The lease outlives a dead owner by at most this (LeasedReplication.ttl).
TTL = 2.0


@pytest.fixture
def nodes(servers):
    schema = "leases_" + uuid.uuid4().hex[:12]
    args = ("--database", DATABASE, "--database-schema", schema, "--cluster", "leases")
    pair = (servers(name=schema + "-1", extra_args=args, one_node=True),
            servers(name=schema + "-2", extra_args=args, one_node=True))
    yield pair
    for node in pair:
        if node.process is not None:
            with_signal(node, signal.SIGCONT)
        node.stop()


def holder(node, doc: str) -> str | None:
    """The address of the node whose lease `doc` is under, read from the database."""
    schema = node.extra_args[node.extra_args.index("--database-schema") + 1]
    out = subprocess.run(["psql", DATABASE, "-Atq", "-c", f"SET search_path TO {schema}",
                          "-c", "SELECT n.address FROM document_leases l JOIN cluster_nodes n ON n.node = l.node "
                                f"WHERE l.document = '{doc}' AND n.expires > now()"],
                         capture_output=True, text=True, timeout=30, check=True).stdout.strip()
    return out or None


def home(nodes, doc: str) -> str:
    """The node the balancer's `hash … consistent` sends `doc` to, by address."""
    addresses = [f"127.0.0.1:{n.port}" for n in nodes]
    return addresses[ketama.server(ketama.ring(addresses), doc)]


def with_signal(node, sig) -> None:
    if node.process is not None and node.process.poll() is None:
        os.kill(node.process.pid, sig)


def on(node, client: Client) -> Client:
    return Client(node.base, token=client.token, session=client.session)


def owned_by(node, prefix: str, text: str = "") -> tuple[Client, str]:
    """A session and an open document created on `node`, which therefore owns it."""
    ada = new_session(node.base, "Ada")
    doc = unique(prefix)
    r = ada.post("/documents", {"id": doc, "text": text, "access": "open"})
    assert r.status_code == 201, describe(r)
    return ada, doc


def edit_until_acknowledged(client, doc: str, text: str, key: str, deadline: float) -> tuple[dict | None, float]:
    """POSTs one insert with an Idempotency-Key, sent again while the answer is a 503 with
    Retry-After or no answer (a node died under it); returns the answer's JSON and when it came.
    `client` is a Client, or a function giving the one to send each try with.

    A key whose first request died with its node is `409 idempotency_key_in_flight` (what it
    did is unknown to the server): as the answer says, the client checks what was applied. The
    insert already there counts as applied but never acknowledged (None); else it is sent
    again under a new key."""
    attempt = 0
    while True:
        c = client() if callable(client) else client
        try:
            r = c.post(f"/documents/{doc}/edits", {"insert": text, "at": 0},
                       headers={"Idempotency-Key": f"{key}-{attempt}"}, timeout=5)
        except requests.RequestException:
            r = None
        if r is not None and r.status_code == 200:
            return r.json(), time.monotonic()
        if r is not None and r.status_code == 409:
            assert r.json()["error"]["code"] == "idempotency_key_in_flight", describe(r)
            if text in c.text(doc):
                return None, time.monotonic()
            attempt += 1
            continue
        if r is not None:
            assert r.status_code == 503 and "Retry-After" in r.headers, describe(r)
        assert time.monotonic() < deadline, f"{text} was never acknowledged"
        time.sleep(0.05)


def test_a_request_on_the_node_that_does_not_own_the_document_is_forwarded_with_its_caller(nodes):
    one, two = nodes
    ada, doc = owned_by(one, "fwd", "hello")
    ada2 = on(two, ada)
    r = ada2.post(f"/documents/{doc}/edits", {"insert": "!", "at": 5}, headers={"Idempotency-Key": "k-fwd-1"})
    assert r.status_code == 200, describe(r)
    assert r.json()["revision"] == 1
    # The same key again, on either node: the first answer, not a second change.
    for node in (two, one):
        again = on(node, ada).post(f"/documents/{doc}/edits", {"insert": "!", "at": 5}, headers={"Idempotency-Key": "k-fwd-1"})
        assert again.status_code == 200, describe(again)
        assert again.json()["revision"] == 1
    assert ada.text(doc) == ada2.text(doc) == "hello!"
    # The caller's own undo, through the other node: the owner knows whose change it was.
    assert ada2.post(f"/documents/{doc}/undo").status_code == 200
    assert ada.text(doc) == "hello"


def test_an_event_stream_on_the_other_node_is_relayed_and_resumes_there_after_the_owner_dies(nodes):
    one, two = nodes
    ada, doc = owned_by(one, "relay")
    with SSEStream(two.base, f"/documents/{doc}/events?since=0") as stream:
        for i in range(3):
            ada.insert(doc, "a", i)
        assert [int(stream.next_change().id) for _ in range(3)] == [1, 2, 3]
    one.kill()
    ada2 = on(two, ada)
    edit_until_acknowledged(ada2, doc, "b", "k-relay-4", time.monotonic() + 10)
    with SSEStream(two.base, f"/documents/{doc}/events", headers={"Last-Event-ID": "3"}) as stream:
        assert int(stream.next_change().id) == 4
    assert ada2.text(doc) == "baaa"


def metric(node, name: str) -> float:
    for line in requests.get(node.base + "/metrics", timeout=10).text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"no {name} in {node.base}/metrics")


def test_subscribers_on_the_other_node_share_one_stream_from_the_owner_and_each_gets_every_change(nodes):
    one, two = nodes
    ada, doc = owned_by(one, "mirror")
    for i in range(3):
        ada.insert(doc, "a", i)
    bob = new_session(two.base, "Bob")
    streams = [SSEStream(two.base, f"/documents/{doc}/events"),
               SSEStream(two.base, f"/documents/{doc}/events", headers={"Authorization": f"Bearer {bob.token}"}),
               SSEStream(two.base, f"/documents/{doc}/events", headers={"Last-Event-ID": "1"})]
    try:
        # The resumed one first gets what it missed, from the owner.
        assert [int(streams[2].next_change().id) for _ in range(2)] == [2, 3]
        # Each is joined to the mirror once its presence is in: the owner has every subscriber.
        deadline = time.monotonic() + 10
        while metric(two, "tandem_mirrored_streams") < 3:
            assert time.monotonic() < deadline, "the subscribers never joined the mirror"
            time.sleep(0.05)
        assert metric(two, "tandem_stream_mirrors") == 1
        # Bob's session is present on the owner, though its stream is on the other node.
        assert any(p["id"] == bob.id for p in ada.get(f"/documents/{doc}/presence").json())
        writes = [threading.Thread(target=lambda k=k: [ada.insert(doc, "b", 0) for _ in range(10)]) for k in range(3)]
        for w in writes:
            w.start()
        for w in writes:
            w.join()
        for s in streams:
            assert [int(s.next_change().id) for _ in range(30)] == list(range(4, 34))
    finally:
        for s in streams:
            s.close()
    # Nobody follows it any more: the mirror closes, and the document may move.
    deadline = time.monotonic() + 10
    while metric(two, "tandem_stream_mirrors") > 0:
        assert time.monotonic() < deadline, "the mirror stayed open with nobody following it"
        time.sleep(0.1)


def test_a_subscriber_on_the_other_node_whose_right_to_read_goes_is_ended_and_the_others_stay(nodes):
    one, two = nodes
    ada, doc = owned_by(one, "mirror-revoke")
    assert ada.patch(f"/documents/{doc}", {"access": "private"}).status_code == 200
    bob, eve = new_session(one.base, "Bob", as_owner=False), new_session(one.base, "Eve", as_owner=False)
    for who in (bob, eve):
        r = ada.put(f"/documents/{doc}/members/{who.id}", {"role": "viewer"})
        assert r.status_code == 200, describe(r)
    with SSEStream(two.base, f"/documents/{doc}/events", headers={"Authorization": f"Bearer {bob.token}"}) as b, \
         SSEStream(two.base, f"/documents/{doc}/events", headers={"Authorization": f"Bearer {eve.token}"}) as e:
        ada.insert(doc, "one ", 0)
        assert "one" in b.next_change().data and "one" in e.next_change().data
        assert ada.delete(f"/documents/{doc}/members/{bob.id}").status_code == 204
        deadline = time.monotonic() + 5
        with pytest.raises(ConnectionError):
            while time.monotonic() < deadline:
                b.next_event(timeout=max(0.01, deadline - time.monotonic()))
        ada.insert(doc, "two ", 0)
        assert "two" in e.next_change().data
    # A stranger's stream on the other node is refused by the owner, and no mirror stays for it.
    mallory = new_session(two.base, "Mallory", as_owner=False)
    r = requests.get(f"{two.base}/documents/{doc}/events", headers={"Authorization": f"Bearer {mallory.token}",
                     "Accept": "text/event-stream"}, timeout=10)
    assert r.status_code == 404, describe(r)


def test_only_a_node_may_ask_for_a_documents_mirror(nodes):
    one, _ = nodes
    ada, doc = owned_by(one, "mirror-key")
    r = requests.get(f"{one.base}/documents/{doc}/events", headers={"Accept": "text/event-stream",
                     "Tandem-Peer-Key": "not-the-key", "Tandem-Relay": "mirror"}, timeout=10)
    assert r.status_code == 401, describe(r)


@pytest.mark.timeout(240)
def test_kill_9_of_the_owner_during_concurrent_edits_three_times_loses_nothing_and_writes_resume(nodes):
    one, two = nodes
    owner, doc = owned_by(one, "kill")
    resumed_after: list[float] = []
    for cycle in range(3):
        # Whoever holds the lease now is the victim: the survivor forwards to it until it dies.
        victim, survivor = (one, two) if cycle % 2 == 0 else (two, one)
        acked: list[tuple[str, int]] = []
        unknown: list[str] = []  # applied by a node that died before answering
        lock = threading.Lock()
        stop = threading.Event()
        killed_at = [0.0]

        def type_on(node, name):
            # The victim's writers move to the survivor once it is killed.
            def client():
                return on(survivor if killed_at[0] else node, owner)
            n = 0
            while not stop.is_set():
                n += 1
                text = f"<{name}{n}>"
                answer, at = edit_until_acknowledged(client, doc, text, f"k-{doc}-{name}-{n}", time.monotonic() + 30)
                with lock:
                    if answer is None:
                        unknown.append(text)
                        continue
                    acked.append((text, answer["revision"]))
                    if killed_at[0] and at > killed_at[0] and len(resumed_after) == cycle:
                        resumed_after.append(at - killed_at[0])

        threads = [threading.Thread(target=type_on, args=(n, f"{c}{cycle}")) for n, c in
                   ((victim, "v"), (victim, "w"), (survivor, "s"), (survivor, "t"))]
        for t in threads:
            t.start()
        time.sleep(1.0)
        killed_at[0] = time.monotonic()
        victim.kill()
        deadline = time.monotonic() + 15
        while len(resumed_after) == cycle and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)
        stop.set()
        for t in threads:
            t.join(timeout=40)
        assert len(resumed_after) == cycle + 1, "no edit was acknowledged after the kill"
        victim.start()
        client = on(survivor, owner)
        changes = client.changes(doc)
        revisions = [c["revision"] for c in changes]
        assert revisions == list(range(1, len(revisions) + 1)), "revisions are gapless"
        text = client.text(doc)
        assert on(victim, owner).text(doc) == text
        # Every acknowledged insert is in the text, once, and no revision was given twice.
        assert len({rev for _, rev in acked}) == len(acked)
        for inserted, _ in acked:
            assert text.count(inserted) == 1, inserted
        for inserted in unknown:
            assert text.count(inserted) == 1, inserted
    # Within the 5 s: the lease expires 2 s after the last heartbeat.
    assert max(resumed_after) < 5, resumed_after


@pytest.mark.timeout(120)
def test_a_paused_owner_whose_lease_moved_commits_nothing_after_it_resumes(nodes):
    one, two = nodes
    ada, doc = owned_by(one, "pause", "x")
    assert ada.insert(doc, "1", 0)["revision"] == 1
    with_signal(one, signal.SIGSTOP)
    try:
        # Sent to the paused owner: it waits in the socket until the owner runs again.
        queued: dict = {}

        def send_to_paused():
            try:
                queued["r"] = ada.post(f"/documents/{doc}/edits", {"insert": "late", "at": 0}, timeout=30)
            except requests.RequestException as e:
                queued["e"] = e

        t = threading.Thread(target=send_to_paused)
        t.start()
        answer, _ = edit_until_acknowledged(on(two, ada), doc, "2", "k-pause-2", time.monotonic() + 15)
        assert answer["revision"] == 2
    finally:
        with_signal(one, signal.SIGCONT)
    t.join(timeout=30)
    # The resumed node learns the lease moved before it serves the document again: the queued
    # edit reaches the new owner and is committed there, after revision 2, never beside it.
    r = queued.get("r")
    assert r is not None and r.status_code == 200, describe(r) if r is not None else queued
    assert r.json()["revision"] == 3
    for node in (two, one):
        c = on(node, ada)
        assert [ch["revision"] for ch in c.changes(doc)] == [1, 2, 3]
        assert c.text(doc) == "late21x"


@pytest.mark.timeout(120)
def test_sigterm_of_the_owner_hands_its_documents_over_without_a_refusal(nodes):
    one, two = nodes
    ada, doc = owned_by(one, "term")
    ada2 = on(two, ada)
    statuses: list[int] = []
    stop = threading.Event()
    acked: list[str] = []

    def type_on_survivor():
        n = 0
        while not stop.is_set():
            n += 1
            r = ada2.post(f"/documents/{doc}/edits", {"insert": f"<{n}>", "at": 0}, timeout=10)
            statuses.append(r.status_code)
            if r.status_code == 200:
                acked.append(f"<{n}>")

    t = threading.Thread(target=type_on_survivor)
    t.start()
    time.sleep(0.5)
    with_signal(one, signal.SIGTERM)
    one.process.wait(timeout=30)
    time.sleep(0.5)
    stop.set()
    t.join(timeout=20)
    assert statuses and set(statuses) == {200}, sorted(set(statuses))
    text = ada2.text(doc)
    for inserted in acked:
        assert text.count(inserted) == 1
    revisions = [c["revision"] for c in ada2.changes(doc)]
    assert revisions == list(range(1, len(acked) + 1))


def test_each_document_is_held_by_the_node_the_balancers_hash_sends_it_to(nodes):
    one, two = nodes
    # Each node reads who is alive with its heartbeat (every 2/3 s): both know both by then.
    time.sleep(1.0)
    ada = new_session(one.base, "Ada")
    # An id the server picks: one this node is home for.
    for node in (one, two):
        r = on(node, ada).post("/documents", {"text": "x"})
        assert r.status_code == 201, describe(r)
        doc = r.json()["id"]
        assert home(nodes, doc) == holder(node, doc) == f"127.0.0.1:{node.port}"
    # An id the caller picks is created on its home node, whichever node it was sent to.
    for _ in range(6):
        doc = unique("homed")
        r = ada.post("/documents", {"id": doc, "text": "x"})
        assert r.status_code == 201, describe(r)
        assert holder(one, doc) == home(nodes, doc)


@pytest.mark.timeout(120)
def test_documents_move_to_a_node_that_joins_once_they_are_idle(nodes):
    one, two = nodes
    two.stop()
    ada = new_session(one.base, "Ada")
    docs = [unique("join") for _ in range(8)]
    for doc in docs:
        r = ada.post("/documents", {"id": doc, "text": "x"})
        assert r.status_code == 201, describe(r)
        assert holder(one, doc) == f"127.0.0.1:{one.port}"
    two.start()
    moving = [doc for doc in docs if home(nodes, doc) == f"127.0.0.1:{two.port}"]
    assert moving, "no document hashes to the second node"
    deadline = time.monotonic() + 30
    while any(holder(one, doc) != home(nodes, doc) for doc in docs):
        assert time.monotonic() < deadline, [(doc, holder(one, doc), home(nodes, doc)) for doc in docs]
        time.sleep(0.5)
    # Served where they moved, through either node, with what they held.
    for doc in moving:
        assert ada.insert(doc, "y", 0)["revision"] == 1
        assert on(two, ada).text(doc) == "yx"
