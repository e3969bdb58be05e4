"""`--guests` (issue 39): what callers who are nobody in particular (no user's session, no
share link, not the operator) may do. `edit` is today's behaviour, tested everywhere else."""

from __future__ import annotations

import requests

from tandem_client import Client, assert_error, describe, new_session
from test_accounts import add_user, signed_in


def test_with_guests_read_guests_read_and_change_nothing_while_people_and_links_work(servers):
    srv = servers(name="guests-read", extra_args=("--guests", "read"))
    add_user(srv, "owner-read")
    owner = signed_in(srv.base, "owner-read")
    doc = owner.create_doc("hello", access="open")["id"]
    anon, guest = Client(srv.base), new_session(srv.base, "Visitor")
    for who in (anon, guest):
        assert who.text(doc) == "hello"
        assert who.get(f"/documents/{doc}/edits", params={"since": 0}).status_code == 200
        for r in (who.post(f"/documents/{doc}/edits", {"insert": "x", "at": 0}),
                  who.post("/documents", {"text": "mine"}),
                  who.post(f"/documents/{doc}/undo", params={"scope": "document"}),
                  who.post(f"/documents/{doc}/copy", {"from": 0, "to": 1}),
                  who.put("/pasteboards/general/items", [[{"type": "text/plain", "string": "x"}]])):
            assert_error(r, 403, "guests_read_only")
    # A guest's own session: a selection, a name.
    assert guest.put(f"/documents/{doc}/selection", {"anchor": 0, "head": 1}).status_code == 200
    assert guest.patch("/sessions/me", {"name": "Visitor 2"}).status_code == 200
    assert owner.text(doc) == "hello"
    # A user edits; so does the holder of an editor link the owner shared.
    owner.insert(doc, "A", 0)
    link = owner.post(f"/documents/{doc}/links", {"role": "editor"}).json()["token"]
    r = requests.post(f"{srv.base}/documents/{doc}/edits", json={"insert": "L", "at": 0}, headers={"Tandem-Link": link}, timeout=10)
    assert r.status_code == 200, describe(r)
    assert owner.text(doc) == "LAhello"


def test_with_guests_off_only_signing_in_and_the_health_check_are_open(servers):
    srv = servers(name="guests-off", extra_args=("--guests", "off"))
    add_user(srv, "member-off")
    anon = Client(srv.base)
    assert_error(anon.post("/sessions", {}), 403, "guests_off")
    assert_error(anon.post("/sessions", {"name": "Visitor"}), 403, "guests_off")
    for r in (anon.get("/documents"), anon.post("/documents", {"text": "x"}), anon.get("/pasteboards")):
        assert_error(r, 401, "sign_in_required")
    assert anon.get("/healthz").status_code == 200
    assert requests.get(srv.base + "/", timeout=10).status_code == 200
    member = signed_in(srv.base, "member-off")
    doc = member.create_doc("only us")["id"]
    assert_error(anon.get(f"/documents/{doc}"), 401, "sign_in_required")
    assert member.text(doc) == "only us"


def test_guests_must_be_edit_read_or_off(servers):
    import subprocess
    from tandem_server import binary_path
    r = subprocess.run([str(binary_path()), "serve", "--guests", "maybe", "--port", "0"], capture_output=True, text=True, timeout=30)
    assert r.returncode != 0 and "--guests must be edit, read or off" in r.stderr, r
