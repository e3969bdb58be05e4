"""Your clipboard is yours (issue 39): `general` is each person's own (a user's across their
sessions, a guest session's alone); a named pasteboard is private to its owner until shared
with everyone; lists, reads, writes and events show each caller only what they may read; a
copy from a private document lands nowhere another person reads."""

from __future__ import annotations

import pytest

from sse import SSEStream
from tandem_client import Client, assert_error, describe, new_session, unique
from test_accounts import add_user, signed_in


def names(client: Client) -> list[str]:
    r = client.get("/pasteboards")
    assert r.status_code == 200, describe(r)
    return [p["name"] for p in r.json()]


def test_a_copy_from_a_private_document_reaches_only_the_copier(base):
    ada, bob, anon = new_session(base, "Ada"), new_session(base, "Bob"), Client(base)
    doc = ada.post("/documents", {"text": "the secret plan", "access": "private"}).json()["id"]
    r = ada.post(f"/documents/{doc}/copy", {"from": 4, "to": 10})
    assert r.status_code == 200, describe(r)
    assert ada.get("/pasteboards/general/items/0").text == "secret"
    bobs = bob.get("/pasteboards/general")
    assert bobs.status_code == 200, describe(bobs)
    assert "secret" not in bobs.text and bobs.json()["changeCount"] == 0
    # Without a session there is no clipboard at all, and the list is only what is shared.
    assert_error(anon.get("/pasteboards/general"), 401, "session_required")
    assert "general" not in names(anon)
    assert "secret" not in anon.get("/pasteboards").text
    # Bob's paste pastes his own (empty) clipboard.
    own = bob.create_doc("bob's")["id"]
    assert_error(bob.post(f"/documents/{own}/paste", {"from": 0, "to": 0}), 409, "nothing_to_paste")


def test_a_named_pasteboard_is_its_owners_until_shared_with_everyone(base):
    ada, bob, anon = new_session(base, "Ada"), new_session(base, "Bob"), Client(base)
    board = unique("notes")
    r = ada.post("/pasteboards", {"name": board})
    assert r.status_code == 201 and r.json()["shared"] == "none", describe(r)
    assert ada.put(f"/pasteboards/{board}/items", [[{"type": "text/plain", "string": "draft"}]]).status_code == 200
    # To anyone else it does not exist: every route answers 404 and changes nothing.
    for who in (bob, anon):
        assert_error(who.get(f"/pasteboards/{board}"), 404)
        assert_error(who.get(f"/pasteboards/{board}/items/0"), 404)
        assert_error(who.put(f"/pasteboards/{board}/items", [[{"type": "text/plain", "string": "x"}]]), 404)
        assert board not in names(who)
    assert_error(bob.patch(f"/pasteboards/{board}", {"shared": "everyone"}), 404)
    assert_error(bob.delete(f"/pasteboards/{board}"), 404)
    # A name is one for everyone: Bob cannot take it, private or not.
    assert_error(bob.post("/pasteboards", {"name": board}), 409, "name_taken")
    assert ada.get(f"/pasteboards/{board}").json()["changeCount"] == 1
    # Shared with everyone: a team pasteboard anyone reads and writes, its owner still decides.
    r = ada.patch(f"/pasteboards/{board}", {"shared": "everyone"})
    assert r.status_code == 200 and r.json()["shared"] == "everyone", describe(r)
    assert board in names(bob) and board in names(anon)
    assert bob.put(f"/pasteboards/{board}/items", [[{"type": "text/plain", "string": "bob's"}]]).status_code == 200
    assert anon.get(f"/pasteboards/{board}/items/0").text == "bob's"
    assert_error(bob.patch(f"/pasteboards/{board}", {"shared": "none"}), 403, "not_owner")
    assert ada.patch(f"/pasteboards/{board}", {"shared": "none"}).status_code == 200
    assert_error(bob.get(f"/pasteboards/{board}"), 404)
    assert_error(ada.patch(f"/pasteboards/{board}", {"shared": "team"}), 400, "invalid_field")
    r = ada.post("/pasteboards", {"name": unique("team"), "shared": "everyone"})
    assert r.status_code == 201 and r.json()["shared"] == "everyone", describe(r)


def test_the_pasteboards_stream_tells_each_caller_only_of_what_they_may_read(base):
    ada, bob = new_session(base, "Ada"), new_session(base, "Bob")
    private, team = unique("private"), unique("team")
    assert ada.post("/pasteboards", {"name": private}).status_code == 201
    assert ada.post("/pasteboards", {"name": team, "shared": "everyone"}).status_code == 201
    with SSEStream(base, "/pasteboards/events", headers={"Authorization": f"Bearer {bob.token}"}) as bobs:
        assert ada.put("/pasteboards/general/items", [[{"type": "text/plain", "string": "a"}]]).status_code == 200
        assert ada.put(f"/pasteboards/{private}/items", [[{"type": "text/plain", "string": "b"}]]).status_code == 200
        assert ada.put(f"/pasteboards/{team}/items", [[{"type": "text/plain", "string": "c"}]]).status_code == 200
        # Bob's first event is the team pasteboard's: Ada's general and private one never came.
        ev = bobs.next_event()
        assert (ev.type, ev.json()["name"]) == ("changed", team), ev


def test_a_users_clipboard_follows_them_across_sessions_and_restarts(servers):
    srv = servers(name="clipboard-users")
    ada_name = unique("ada")
    add_user(srv, ada_name)
    laptop, phone = signed_in(srv.base, ada_name), signed_in(srv.base, ada_name)
    guest = new_session(srv.base, "Guest")
    doc = laptop.post("/documents", {"text": "from the laptop", "access": "private"}).json()["id"]
    assert laptop.post(f"/documents/{doc}/copy", {"from": 9, "to": 15}).status_code == 200
    # The same person in another tab pastes what they copied; a guest does not see it.
    assert phone.get("/pasteboards/general/items/0").text == "laptop"
    assert guest.get("/pasteboards/general").json()["changeCount"] == 0
    board = unique("mine")
    assert phone.post("/pasteboards", {"name": board, "persistent": True}).status_code == 201
    assert board in names(laptop) and board not in names(guest)
    # A user's pasteboards outlive the session that made them, and restarts.
    assert phone.delete("/sessions/me").status_code == 204
    srv.restart()
    laptop = Client(srv.base, token=laptop.token, session=laptop.session)
    assert laptop.get("/pasteboards/general/items/0").text == "laptop"
    assert board in names(laptop)
    assert laptop.delete(f"/pasteboards/{board}").status_code == 204


def test_a_guests_private_pasteboards_go_with_their_session(base):
    ada, bob = new_session(base, "Ada"), new_session(base, "Bob")
    kept, team = unique("kept"), unique("team")
    assert ada.post("/pasteboards", {"name": kept, "persistent": True}).status_code == 201
    assert ada.post("/pasteboards", {"name": team, "persistent": True, "shared": "everyone"}).status_code == 201
    assert ada.put("/pasteboards/general/items", [[{"type": "text/plain", "string": "gone"}]]).status_code == 200
    assert ada.delete("/sessions/me").status_code == 204
    # Nobody could read the private ones any more: they went. The shared one is nobody's now.
    assert_error(bob.get(f"/pasteboards/{kept}"), 404)
    r = bob.get(f"/pasteboards/{team}")
    assert r.status_code == 200 and r.json()["owner"] is None, describe(r)
    assert bob.delete(f"/pasteboards/{team}").status_code == 204


def test_a_named_pasteboard_shared_with_people_by_name_reaches_them_alone(servers):
    srv = servers(name="clipboard-people")
    ada_name, bob_name = unique("ada"), unique("bob")
    add_user(srv, ada_name, "Ada")
    add_user(srv, bob_name, "Bob")
    ada, bob = signed_in(srv.base, ada_name), signed_in(srv.base, bob_name)
    guest = new_session(srv.base, "Guest")
    bob_id = bob.get("/users/me").json()["id"]
    board = unique("pair")
    r = ada.post("/pasteboards", {"name": board, "persistent": True, "shared": [bob_name.upper(), ada_name]})
    assert r.status_code == 201, describe(r)
    # Sharing with oneself is no sharing: only Bob is named.
    assert (r.json()["shared"], r.json()["sharedWith"]) == ("people", [{"person": f"user:{bob_id}", "name": "Bob"}])
    team = unique("team")
    assert ada.post("/pasteboards", {"name": team, "shared": "everyone"}).status_code == 201
    with SSEStream(srv.base, "/pasteboards/events", headers={"Authorization": f"Bearer {bob.token}"}) as bobs_events, \
            SSEStream(srv.base, "/pasteboards/events", headers={"Authorization": f"Bearer {guest.token}"}) as guests_events:
        assert ada.put(f"/pasteboards/{board}/items", [[{"type": "text/plain", "string": "for Bob"}]]).status_code == 200
        assert bobs_events.next_of("changed").json()["name"] == board
        assert bob.get(f"/pasteboards/{board}/items/0").text == "for Bob"
        assert bob.get(f"/pasteboards/{board}").json()["ownerName"] == "Ada"
        assert bob.put(f"/pasteboards/{board}/items", [[{"type": "text/plain", "string": "back"}]]).status_code == 200
        assert ada.get(f"/pasteboards/{board}/items/0").text == "back"
        assert board in names(bob) and board not in names(guest)
        assert_error(guest.get(f"/pasteboards/{board}"), 404, "not_found")
        # The guest's first event is the team pasteboard's: the pair's never came.
        assert ada.put(f"/pasteboards/{team}/items", [[{"type": "text/plain", "string": "all"}]]).status_code == 200
        ev = guests_events.next_event()
        assert (ev.type, ev.json()["name"]) == ("changed", team), ev
    # Only the owner says who shares it; an unknown name changes nothing.
    assert_error(bob.patch(f"/pasteboards/{board}", {"shared": "everyone"}), 403, "not_owner")
    assert_error(ada.patch(f"/pasteboards/{board}", {"shared": [bob_name, unique("nobody")]}), 422, "unknown_user")
    assert_error(ada.patch(f"/pasteboards/{board}", {"shared": [3]}), 400, "invalid_field")
    assert_error(ada.patch(f"/pasteboards/{board}", {"shared": ["x"] * 101}), 400, "invalid_field")
    assert ada.get(f"/pasteboards/{board}").json()["shared"] == "people"
    # It holds across a restart; unshared, Bob no longer finds it.
    srv.restart()
    ada = Client(srv.base, token=ada.token, session=ada.session)
    bob = Client(srv.base, token=bob.token, session=bob.session)
    assert bob.get(f"/pasteboards/{board}/items/0").text == "back"
    assert ada.patch(f"/pasteboards/{board}", {"shared": []}).json()["shared"] == "none"
    assert_error(bob.get(f"/pasteboards/{board}"), 404, "not_found")
