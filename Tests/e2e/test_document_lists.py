"""Private by default where people are known, unlisted always (issue 39 item 3): a signed-in
user's new document is private, a guest's stays open but unlisted; `GET /documents` lists
what the caller's person owns, was given or opened, and remembers openings across sessions,
restarts and nodes; only owners and editors rename; owners share with a user by name."""

from __future__ import annotations

import time

import requests

from tandem_client import Client, assert_error, describe, new_session, unique
from test_accounts import add_user, signed_in


def listed(client: Client) -> dict[str, dict]:
    r = client.get("/documents")
    assert r.status_code == 200, describe(r)
    return {d["id"]: d for d in r.json()}


def eventually_listed(client: Client, doc_id: str, timeout: float = 5.0) -> dict:
    """The caller's entry for `doc_id`: an opening is noted a moment after it is answered."""
    deadline = time.monotonic() + timeout
    while True:
        entry = listed(client).get(doc_id)
        if entry is not None or time.monotonic() > deadline:
            assert entry is not None, f"{doc_id} never listed"
            return entry
        time.sleep(0.1)


def test_a_users_new_document_is_private_and_a_guests_is_open_but_unlisted(servers):
    srv = servers(name="lists-defaults")
    ada_name = unique("ada")
    add_user(srv, ada_name, "Ada")
    ada = signed_in(srv.base, ada_name)
    mine = ada.post("/documents", {"title": "Plans", "text": "secret"})
    assert mine.status_code == 201, describe(mine)
    assert mine.json()["access"] == "private"
    guest = new_session(srv.base, "Guest")
    theirs = guest.post("/documents", {"title": "Pad", "text": "hello"})
    assert theirs.json()["access"] == "open"
    # Nobody else sees either in their list; the private one does not exist for them.
    stranger = new_session(srv.base, "Stranger")
    assert mine.json()["id"] not in listed(stranger) and theirs.json()["id"] not in listed(stranger)
    assert_error(stranger.get(f"/documents/{mine.json()['id']}"), 404, "not_found")
    assert listed(Client(srv.base)) == {}
    # Each creator's list has its own, as owner, not opened.
    assert {k: (v["role"], v["opened"]) for k, v in listed(ada).items()} == {mine.json()["id"]: ("owner", None)}
    assert listed(guest)[theirs.json()["id"]]["role"] == "owner"


def test_an_explicit_default_access_applies_to_users_too(servers):
    srv = servers(name="lists-default-access", extra_args=("--default-access", "locked"))
    name = unique("ada")
    add_user(srv, name)
    assert signed_in(srv.base, name).post("/documents", {"text": "x"}).json()["access"] == "locked"
    assert new_session(srv.base).post("/documents", {"text": "x"}).json()["access"] == "locked"


def test_what_a_person_opened_is_listed_in_all_their_sessions_after_a_restart(servers):
    srv = servers(name="lists-opened")
    ada_name = unique("ada")
    add_user(srv, ada_name, "Ada")
    guest = new_session(srv.base, "Guest")
    pad = guest.post("/documents", {"title": "Pad", "text": "hello"}).json()["id"]
    laptop = signed_in(srv.base, ada_name)
    assert pad not in listed(laptop)
    assert laptop.get(f"/documents/{pad}").status_code == 200
    entry = eventually_listed(laptop, pad)
    assert entry["role"] is None and entry["opened"] >= entry["modified"] - 1, entry
    # The same person in another session, and after a restart.
    phone = signed_in(srv.base, ada_name)
    assert pad in listed(phone)
    srv.restart()
    phone = Client(srv.base, token=phone.token, session=phone.session)
    guest = Client(srv.base, token=guest.token, session=guest.session)
    assert pad in listed(phone)
    # Deleted, it leaves every list.
    assert guest.delete(f"/documents/{pad}").status_code == 204
    assert pad not in listed(phone)


def test_a_private_document_opened_through_a_share_link_is_listed_while_the_link_works(base):
    owner = new_session(base, "Owner")
    doc = owner.post("/documents", {"text": "team notes", "access": "private"}).json()["id"]
    link = owner.post(f"/documents/{doc}/links", {"role": "viewer"}).json()
    reader = new_session(base, "Reader", as_owner=False)
    assert reader.get(f"/documents/{doc}", headers={"Tandem-Link": link["token"]}).status_code == 200
    # Listed without the link in hand: the browser keeps links, a list request carries none.
    entry = eventually_listed(reader, doc)
    assert entry["role"] is None and entry["title"] == "Untitled", entry
    # Revoked, the link lists nothing any more.
    assert owner.delete(f"/documents/{doc}/links/{link['id']}").status_code == 204
    assert doc not in listed(reader)


def test_only_the_owner_and_editors_rename_in_every_mode(base):
    owner = new_session(base, "Owner")
    # Clients that never borrow the creator's owner link (tandem_client's convenience).
    editor = new_session(base, "Editor", as_owner=False)
    other = new_session(base, "Other", as_owner=False)
    for mode in ("open", "editable", "locked", "private"):
        doc = owner.post("/documents", {"text": "x", "access": mode}).json()["id"]
        assert owner.put(f"/documents/{doc}/members/{editor.id}", {"role": "editor"}).status_code == 200
        if mode != "private":
            assert other.get(f"/documents/{doc}").json()["canRename"] is False
            assert_error(other.patch(f"/documents/{doc}", {"title": "Mine now"}), 403, "forbidden")
            assert_error(Client(base, as_owner=False).patch(f"/documents/{doc}", {"title": "Mine now"}), 403, "forbidden")
        assert editor.get(f"/documents/{doc}").json()["canRename"] is True
        r = editor.patch(f"/documents/{doc}", {"title": f"Renamed in {mode}"})
        assert r.status_code == 200, describe(r)
        assert owner.get(f"/documents/{doc}").json()["title"] == f"Renamed in {mode}"
    # On an open document anyone still edits the text: only the title is the owner's to name.
    doc = owner.post("/documents", {"text": "x", "access": "open"}).json()["id"]
    assert other.insert(doc, "y", 0)["revision"] == 1


def test_an_owner_shares_with_a_user_by_name(servers):
    srv = servers(name="lists-share")
    ada_name, bob_name = unique("ada"), unique("bob")
    add_user(srv, ada_name, "Ada")
    add_user(srv, bob_name, "Bob")
    ada = signed_in(srv.base, ada_name)
    doc = ada.post("/documents", {"title": "Plans", "text": "draft"}).json()["id"]
    bob = signed_in(srv.base, bob_name)
    bob_id = bob.get("/users/me").json()["id"]
    assert bob.delete("/sessions/me").status_code == 204
    # Bob has no live session: he is found by name, and named in the access list all the same.
    r = ada.post(f"/documents/{doc}/members", {"user": bob_name.upper(), "role": "editor"})
    assert r.status_code == 200, describe(r)
    assert r.json()["members"] == [{"session": f"user:{bob_id}", "name": "Bob", "role": "editor"}]
    assert_error(ada.post(f"/documents/{doc}/members", {"user": unique("nobody"), "role": "viewer"}), 422, "unknown_user")
    assert_error(ada.post(f"/documents/{doc}/members", {"user": bob_name, "role": "owner"}), 400, "invalid_field")
    assert_error(ada.post(f"/documents/{doc}/members", {"role": "viewer"}), 400, "invalid_field")
    bob = signed_in(srv.base, bob_name)
    bob.as_owner = False  # never borrows Ada's owner link (tandem_client's convenience)
    assert listed(bob)[doc]["role"] == "editor"
    assert bob.insert(doc, "Bob: ", 0)["revision"] == 1
    # Only the owner shares: an editor may not, and a stranger finds no document.
    assert_error(bob.post(f"/documents/{doc}/members", {"user": ada_name, "role": "viewer"}), 403, "forbidden")
    assert_error(new_session(srv.base, as_owner=False).post(f"/documents/{doc}/members", {"user": bob_name, "role": "viewer"}), 404, "not_found")


def test_the_server_says_what_guests_may_do_and_whether_people_sign_up(servers):
    srv = servers(name="lists-accounts", extra_args=("--guests", "off", "--signup", "open"))
    r = requests.get(srv.base + "/accounts", timeout=10)
    assert r.status_code == 200, describe(r)
    assert r.json() == {"guests": "off", "signup": "open", "tokens": False}


def test_signing_up_from_the_browser_keeps_it_signed_in(servers):
    srv = servers(name="lists-signup-cookie", extra_args=("--signup", "open"))
    r = requests.post(srv.base + "/users", json={"name": unique("eve"), "password": "correct horse battery"},
                      headers={"Tandem-Login": "cookie"}, timeout=30)
    assert r.status_code == 201, describe(r)
    cookie = r.headers["Set-Cookie"]
    assert cookie.startswith("tandem_login=") and "HttpOnly" in cookie and "SameSite=Strict" in cookie, cookie
    again = requests.post(srv.base + "/sessions", headers={"Tandem-Login": "cookie", "Cookie": cookie.split(";")[0]}, timeout=30)
    assert again.status_code == 201, describe(again)
    assert again.json()["user"] == r.json()["user"]
