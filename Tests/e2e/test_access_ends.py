"""Issue 38: an open event stream or long-poll holds no right of its own. It ends when the
session it was opened with ends (logout, idle timeout, the operator) and when the share link
it was opened with expires (on a timer, not at the next access change). Under
TANDEM_E2E_NODES=2 every test runs on two nodes, the stream on one and the end on either."""

from __future__ import annotations

import threading
import time

import pytest

from sse import SSEStream
from tandem_client import Client, assert_error, describe, new_session, unique
from tandem_server import ADMIN_KEY

OPERATOR = {"Tandem-Admin-Key": ADMIN_KEY}


def private_doc_with_viewer(owner: Client, viewer: Client) -> str:
    r = owner.post("/documents", {"id": unique("ends"), "text": "x", "access": "private"})
    assert r.status_code == 201, describe(r)
    doc = r.json()["id"]
    r = owner.put(f"/documents/{doc}/members/{viewer.id}", {"role": "viewer"})
    assert r.status_code == 200, describe(r)
    return doc


def stream_ends(s: SSEStream, within: float) -> bool:
    """Whether the server closed the stream within `within` seconds."""
    deadline = time.monotonic() + within
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        try:
            s.next_event(timeout=left)
        except ConnectionError:
            return True
        except TimeoutError:
            return False


def open_stream(base: str, doc: str, headers: dict, owner: Client) -> SSEStream:
    s = SSEStream(base, f"/documents/{doc}/events", headers=headers)
    assert s.status == 200
    owner.insert(doc, "seen ", 0)
    assert "seen" in s.next_change(timeout=5).data
    return s


@pytest.fixture
def operated(servers):
    return servers(extra_args=("--admin-key", ADMIN_KEY))


def test_a_session_that_logs_out_ends_its_stream(operated):
    ada, bob = new_session(operated.base, "Ada"), new_session(operated.base, "Bob")
    doc = private_doc_with_viewer(ada, bob)
    with open_stream(operated.base, doc, {"Authorization": f"Bearer {bob.token}"}, ada) as s:
        assert bob.delete("/sessions/me").status_code == 204
        assert stream_ends(s, within=3), "the ended session's stream kept receiving"


def test_a_session_the_operator_ends_loses_its_stream_and_its_long_poll(operated):
    ada, bob = new_session(operated.base, "Ada"), new_session(operated.base, "Bob")
    doc = private_doc_with_viewer(ada, bob)
    revision = ada.doc(doc)["revision"]
    polled = {}

    def poll():
        polled["r"] = bob.get(f"/documents/{doc}/edits", params={"since": revision + 5, "wait": 20})

    with open_stream(operated.base, doc, {"Authorization": f"Bearer {bob.token}"}, ada) as s:
        revision += 1
        poller = threading.Thread(target=poll)
        poller.start()
        time.sleep(0.3)
        r = Client(operated.base).delete(f"/sessions/{bob.id}", headers=OPERATOR)
        assert r.status_code == 204, describe(r)
        assert stream_ends(s, within=3), "the stream outlived the session the operator ended"
        poller.join(10)
    assert not poller.is_alive(), "the long-poll outlived the session"
    assert_error(polled["r"], 401, "unauthorized")


def test_a_session_that_times_out_while_long_polling_gets_401(servers):
    # An open event stream keeps its session alive (docs/API.md); a long-poll does not.
    server = servers(session_timeout=2)
    ada, bob = new_session(server.base, "Ada"), new_session(server.base, "Bob")
    doc = private_doc_with_viewer(ada, bob)
    revision = ada.doc(doc)["revision"]
    start = time.monotonic()
    r = bob.get(f"/documents/{doc}/edits", params={"since": revision, "wait": 20})
    took = time.monotonic() - start
    assert_error(r, 401, "unauthorized")
    assert took < 8, f"the long-poll was answered after {took:.1f} s"
    assert_error(bob.get("/sessions/me"), 401, "unauthorized")


def test_a_stream_opened_with_a_link_ends_when_the_link_expires(operated):
    ada = new_session(operated.base, "Ada")
    r = ada.post("/documents", {"id": unique("ends"), "text": "x", "access": "private"})
    doc = r.json()["id"]
    r = ada.post(f"/documents/{doc}/links", {"role": "viewer", "expiresIn": 2})
    assert r.status_code == 201, describe(r)
    token = r.json()["token"]
    opened = time.monotonic()
    with open_stream(operated.base, doc, {"Tandem-Link": token}, ada) as s:
        assert stream_ends(s, within=4), "the stream outlived its link's expiry"
        took = time.monotonic() - opened
    assert 1.5 <= took < 4, f"ended {took:.1f} s after opening, the link expired after 2 s"
    assert_error(Client(operated.base).get(f"/documents/{doc}", headers={"Tandem-Link": token}), 401, "invalid_link")


def test_a_long_poll_opened_with_a_link_ends_when_the_link_expires(operated):
    ada = new_session(operated.base, "Ada")
    doc = ada.post("/documents", {"id": unique("ends"), "text": "x", "access": "private"}).json()["id"]
    token = ada.post(f"/documents/{doc}/links", {"role": "viewer", "expiresIn": 2}).json()["token"]
    start = time.monotonic()
    r = Client(operated.base).get(f"/documents/{doc}/edits", params={"since": 0, "wait": 20},
                                  headers={"Tandem-Link": token})
    took = time.monotonic() - start
    assert_error(r, 401, "invalid_link")
    assert took < 5, f"the long-poll was answered after {took:.1f} s"
