"""Idempotency-Key across nodes (issue 30): two servers on one PostgreSQL schema; a client that
lost the answer resends with the same key to the other node and gets the first answer, and
nothing is applied twice."""

from __future__ import annotations

import threading
import uuid

import pytest

from postgres_env import DATABASE, needs_postgres
from tandem_client import Client, assert_error, describe, new_session, unique

pytestmark = needs_postgres()


@pytest.fixture
def cluster(servers):
    """Starts nodes on one schema of this test's own: `cluster()` is the next node. They are
    stopped when the test ends: each holds several connections, and the test cluster's are
    few (`max_connections`)."""
    schema = "e2e_" + uuid.uuid4().hex[:12]
    started = []

    def node():
        started.append(servers(name=schema, extra_args=("--database", DATABASE, "--database-schema", schema), one_node=True))  # each one node: the test addresses each itself
        return started[-1]

    yield node
    for n in started:
        n.stop()


def _on(node, client: Client) -> Client:
    """The same session, talking to `node`."""
    return Client(node.base, token=client.token, session=client.session)


def _post(client, path, body, key):
    return client.post(path, body, headers={"Idempotency-Key": key})


def test_a_resend_to_another_node_answers_the_first_answer(cluster):
    one, two = cluster(), cluster()
    alice = new_session(one.base, "Alice")
    d = alice.create_doc("abc")
    key = unique("key")
    first = _post(alice, f"/documents/{d['id']}/edits", {"insert": "X", "at": 1}, key)
    assert first.status_code == 200, describe(first)

    # The answer was lost; the load balancer sends the resend to the other node.
    again = _post(_on(two, alice), f"/documents/{d['id']}/edits", {"insert": "X", "at": 1}, key)
    assert again.status_code == first.status_code, describe(again)
    assert again.content == first.content
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert again.headers.get("ETag") == first.headers.get("ETag")
    for node in (one, two):
        doc = _on(node, alice).doc(d["id"])
        assert (doc["text"], doc["revision"]) == ("aXbc", 1), node.base

    # The same key with another request is refused on the other node too, and changes nothing.
    other = _post(_on(two, alice), f"/documents/{d['id']}/edits", {"insert": "Y", "at": 1}, key)
    assert_error(other, 422, "idempotency_key_reused")
    assert "Idempotent-Replayed" not in other.headers
    assert _on(one, alice).doc(d["id"])["revision"] == 1
    # And the first node still replays it.
    back = _post(alice, f"/documents/{d['id']}/edits", {"insert": "X", "at": 1}, key)
    assert (back.status_code, back.content) == (first.status_code, first.content)


def test_a_document_created_once_whichever_node_gets_the_resend(cluster):
    one, two = cluster(), cluster()
    alice = new_session(two.base, "Alice")
    key = unique("key")
    first = _post(alice, "/documents", {"text": "made once"}, key)
    assert first.status_code == 201, describe(first)
    one, two = two, one  # created on the second node, resent to the first
    again = _post(_on(two, alice), "/documents", {"text": "made once"}, key)
    assert (again.status_code, again.content) == (first.status_code, first.content)
    assert again.headers.get("Idempotent-Replayed") == "true"
    # The schema is this test's own: the one document in it is the first answer's.
    for node in (one, two):
        listed = _on(node, alice).get("/documents").json()
        listed = listed if isinstance(listed, list) else listed["documents"]
        assert [doc["id"] for doc in listed] == [first.json()["id"]], node.base


def test_a_refused_request_does_not_burn_the_key_on_any_node(cluster):
    one, two = cluster(), cluster()
    alice = new_session(one.base, "Alice")
    d = alice.create_doc("x")
    key = unique("key")
    assert_error(_post(alice, f"/documents/{d['id']}/edits", {"insert": "y", "at": 9}, key), 422)
    r = _post(_on(two, alice), f"/documents/{d['id']}/edits", {"insert": "y", "at": 9}, key)
    assert_error(r, 422)
    assert "Idempotent-Replayed" not in r.headers
    fixed = _post(_on(two, alice), f"/documents/{d['id']}/edits", {"insert": "y", "at": 1}, key)
    assert fixed.status_code == 200, describe(fixed)
    assert alice.text(d["id"]) == "xy"


def test_the_same_request_to_both_nodes_at_once_applies_once(cluster):
    """Resends racing on two nodes: one runs it, the others wait for its answer (on the other
    node by polling the key's row) and all answer the same."""
    one, two = cluster(), cluster()
    alice = new_session(one.base, "Alice")
    d = alice.create_doc("")
    for round in range(5):
        key = unique("key")
        answers, errors = [], []

        def send(node):
            try:
                r = _post(_on(node, alice), f"/documents/{d['id']}/edits", {"insert": f"<{round}>", "at": 0}, key)
                answers.append((r.status_code, r.content))
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=send, args=(node,)) for node in (one, two, one, two)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
        assert not errors, errors[0]
        assert len(answers) == 4 and all(a == answers[0] for a in answers), answers
        assert answers[0][0] == 200, answers[0]
    for node in (one, two):
        doc = _on(node, alice).doc(d["id"])
        assert (doc["text"], doc["revision"]) == ("<4><3><2><1><0>", 5), node.base
