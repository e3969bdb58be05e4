"""Ownership and roles belong to people (issue 39 item 2): a signed-in user's document and the
roles given to a user hold in every session of theirs, and outlive the session that made or
received them, and restarts. A guest's session is a person of its own, as before."""

from __future__ import annotations

from tandem_client import Client, assert_error, describe, new_session, unique
from test_accounts import add_user, signed_in


def test_a_users_document_and_the_roles_they_are_given_follow_them_across_sessions(servers):
    srv = servers(name="ownership-users")
    ada_name, bob_name = unique("ada"), unique("bob")
    add_user(srv, ada_name, "Ada")
    add_user(srv, bob_name, "Bob")
    laptop = signed_in(srv.base, ada_name)
    doc = laptop.post("/documents", {"text": "plans", "access": "private"})
    assert doc.status_code == 201, describe(doc)
    doc_id = doc.json()["id"]
    ada_user = laptop.get("/users/me").json()["id"]
    assert laptop.get(f"/documents/{doc_id}/access").json()["owner"] == f"user:{ada_user}"

    # Ada's other session is the owner too; the one that made it can end.
    phone = signed_in(srv.base, ada_name)
    assert laptop.delete("/sessions/me").status_code == 204
    assert phone.get(f"/documents/{doc_id}").json()["role"] == "owner"

    # A role given through one of Bob's sessions is Bob's, in every session of his.
    bob_first = signed_in(srv.base, bob_name)
    r = phone.put(f"/documents/{doc_id}/members/{bob_first.session['id']}", {"role": "editor"})
    assert r.status_code == 200, describe(r)
    bob_user = bob_first.get("/users/me").json()["id"]
    members = phone.get(f"/documents/{doc_id}/access").json()["members"]
    assert members == [{"session": f"user:{bob_user}", "name": "Bob", "role": "editor"}], members
    assert bob_first.delete("/sessions/me").status_code == 204
    bob = signed_in(srv.base, bob_name)
    assert bob.insert(doc_id, "Bob's ", 0)["revision"] >= 1
    # A guest is nobody in this document.
    assert_error(new_session(srv.base, "Guest").get(f"/documents/{doc_id}"), 404)

    # Restarts change nothing.
    srv.restart()
    phone = Client(srv.base, token=phone.token, session=phone.session)
    bob = Client(srv.base, token=bob.token, session=bob.session)
    assert phone.get(f"/documents/{doc_id}").json()["role"] == "owner"
    assert bob.get(f"/documents/{doc_id}").json()["role"] == "editor"
    # Revoked through any live session of his, the role is gone from all of them.
    assert phone.delete(f"/documents/{doc_id}/members/{bob.session['id']}").status_code == 204
    assert_error(bob.get(f"/documents/{doc_id}"), 404)


def test_ownership_given_to_a_users_session_is_the_users(servers):
    srv = servers(name="ownership-given")
    ada_name = unique("ada")
    add_user(srv, ada_name)
    guest = new_session(srv.base, "Guest")
    doc_id = guest.post("/documents", {"text": "x", "access": "locked"}).json()["id"]
    assert guest.get(f"/documents/{doc_id}/access").json()["owner"] == guest.session["id"]
    ada = signed_in(srv.base, ada_name)
    r = guest.patch(f"/documents/{doc_id}", {"owner": ada.session["id"]})
    assert r.status_code == 200, describe(r)
    assert ada.delete("/sessions/me").status_code == 204
    again = signed_in(srv.base, ada_name)
    assert again.get(f"/documents/{doc_id}").json()["role"] == "owner"
    assert guest.get(f"/documents/{doc_id}").json()["role"] != "owner"
