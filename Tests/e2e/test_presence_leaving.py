"""Presence is people with an open stream (issue 39 item 5): a session whose last event stream
on a document closes leaves its presence within 5 s (its selection goes, on every node), while
its session lives on; a reconnect within the grace keeps its place; a client that never
opened a stream keeps the place its selection gives it; tabs of one user say so (`user`)."""

from __future__ import annotations

import time

from sse import SSEStream
from tandem_client import Client, new_session, unique
from test_accounts import add_user, signed_in

LEAVES_WITHIN = 5.0


def present(client: Client, doc_id: str) -> dict[str, dict]:
    r = client.get(f"/documents/{doc_id}/presence")
    assert r.status_code == 200, r.text
    return {p["id"]: p for p in r.json()}


def stream(client: Client, doc_id: str) -> SSEStream:
    return SSEStream(client.base, f"/documents/{doc_id}/events", headers={"Authorization": f"Bearer {client.token}"})


def test_a_closed_tab_leaves_presence_within_seconds_and_a_curl_client_stays(base):
    ada, bob, curl = new_session(base, "Ada"), new_session(base, "Bob"), new_session(base, "Curl")
    doc_id = ada.create_doc("hello world")["id"]
    watcher = Client(base)
    with stream(ada, doc_id) as s:
        s.next_event()
        assert ada.put(f"/documents/{doc_id}/selection", {"anchor": 1, "head": 3}).status_code == 200
        assert curl.put(f"/documents/{doc_id}/selection", {"anchor": 0, "head": 0}).status_code == 200
        assert ada.id in present(watcher, doc_id)
    closed = time.monotonic()
    while ada.id in present(watcher, doc_id):
        assert time.monotonic() - closed < LEAVES_WITHIN, "Ada was still present 5 s after her tab closed"
        time.sleep(0.2)
    # Her session goes on; the client that never had a stream keeps its place.
    assert ada.get("/sessions/me").status_code == 200
    assert curl.id in present(watcher, doc_id)
    assert bob.id not in present(watcher, doc_id)


def test_a_reconnect_within_the_grace_keeps_the_caret(base):
    ada = new_session(base, "Ada")
    doc_id = ada.create_doc("hello world")["id"]
    with stream(ada, doc_id) as s:
        s.next_event()
        assert ada.put(f"/documents/{doc_id}/selection", {"anchor": 2, "head": 4}).status_code == 200
    with stream(ada, doc_id) as s:  # EventSource comes back at once
        s.next_event()
        time.sleep(3)  # past the grace the first stream's close started
        assert present(Client(base), doc_id)[ada.id]["selection"] == {"anchor": 2, "head": 4}


def test_one_users_tabs_say_whose_they_are(servers):
    srv = servers(name="presence-users")
    name = unique("ada")
    add_user(srv, name, "Ada")
    one, two = signed_in(srv.base, name), signed_in(srv.base, name)
    guest = new_session(srv.base, "Guest")
    doc_id = one.post("/documents", {"text": "x", "access": "open"}).json()["id"]
    for c in (one, two, guest):
        assert c.put(f"/documents/{doc_id}/selection", {"anchor": 0, "head": 0}).status_code == 200
    p = present(guest, doc_id)
    assert p[one.id]["user"] == p[two.id]["user"] == one.session["user"]
    assert p[guest.id]["user"] is None
