"""Issue 37 over the real server: text someone deleted and restored with an undo is still its
author's to undo, and the document scope ("Everyone's") offers exactly what its next undo
reverts. In CI this file runs on SQLite, on PostgreSQL and on two nodes behind nginx."""

from tandem_client import Client, assert_error, describe, new_session, unchanged


def _ada_restores_graces_text(base):
    """Ada types " AdaOld", Grace types " GraceNew" after it, Ada deletes " GraceNew" and then
    undoes her delete."""
    ada, grace = new_session(base, "Ada"), new_session(base, "Grace")
    d = ada.create_doc("")
    ada.insert(d["id"], " AdaOld", 0)
    grace.insert(d["id"], " GraceNew", 7)
    ada.edit(d["id"], {"delete": {"from": 7, "to": 16}})
    assert ada.text(d["id"]) == " AdaOld"
    r = ada.undo(d["id"])
    assert r.status_code == 200, describe(r)
    assert ada.text(d["id"]) == " AdaOld GraceNew"
    return ada, grace, d["id"]


def test_text_deleted_and_restored_by_someone_elses_undo_is_still_mine_to_undo(base):
    ada, grace, doc = _ada_restores_graces_text(base)
    h = grace.history(doc)
    assert h["canUndo"] is True and h["undoMenuItemTitle"] == "Undo Typing", h
    r = grace.undo(doc)
    assert r.status_code == 200, describe(r)
    body = r.json()
    assert body["actionName"] == "Typing" and body["partial"] is False and body["notReverted"] == 0, body
    assert body["skipped"] == [], body
    assert grace.text(doc) == " AdaOld"


def test_the_document_scope_reverts_the_restored_group_instead_of_dropping_it(base):
    _, _, doc = _ada_restores_graces_text(base)
    anon = Client(base)
    h = anon.history(doc, scope="document")
    assert h["canUndo"] is True and h["undoMenuItemTitle"] == "Undo Typing", h
    r = anon.undo(doc, scope="document")
    assert r.status_code == 200, describe(r)
    assert r.json()["skipped"] == [] and r.json()["reverts"]["group"] == 2, r.text
    assert anon.text(doc) == " AdaOld"


def test_a_restore_gives_back_only_what_it_restored_and_the_undo_says_what_is_missing(base):
    ada, grace, bob = new_session(base, "Ada"), new_session(base, "Grace"), new_session(base, "Bob")
    d = grace.create_doc("")
    grace.insert(d["id"], " GraceNew", 0)
    bob.edit(d["id"], {"delete": {"from": 6, "to": 9}})
    ada.edit(d["id"], {"delete": {"from": 0, "to": 6}})
    assert ada.undo(d["id"]).status_code == 200
    assert grace.text(d["id"]) == " Grace"
    r = grace.undo(d["id"])
    assert r.status_code == 200, describe(r)
    assert r.json()["partial"] is True and r.json()["notReverted"] == 3, r.text
    assert grace.text(d["id"]) == ""


def test_the_document_scope_offers_an_older_group_when_the_newest_was_wiped(base):
    ada, grace, bob = new_session(base, "Ada"), new_session(base, "Grace"), new_session(base, "Bob")
    anon = Client(base)
    d = ada.create_doc("")
    ada.insert(d["id"], "AdaOld ", 0, actionName="AdaOld")
    grace.insert(d["id"], "GraceNew", 7, actionName="GraceNew")
    bob.edit(d["id"], {"delete": {"from": 7, "to": 15}, "undoable": False})
    h = anon.history(d["id"], scope="document")
    assert h["canUndo"] is True and h["undoMenuItemTitle"] == "Undo AdaOld", h
    r = anon.undo(d["id"], scope="document")
    assert r.status_code == 200 and r.json()["actionName"] == "AdaOld", describe(r)
    assert anon.text(d["id"]) == ""
    # Nothing left: it says so, and says so again.
    for _ in range(2):
        h = anon.history(d["id"], scope="document")
        assert h["canUndo"] is False and h["undoMenuItemTitle"] == "Undo", h
        with unchanged(anon, d["id"]):
            assert_error(anon.undo(d["id"], scope="document"), 409, "nothing_to_undo")


def test_the_document_scope_title_and_stack_skip_a_group_still_open(base):
    ada, grace = new_session(base, "Ada"), new_session(base, "Grace")
    anon = Client(base)
    d = ada.create_doc("")
    grace.insert(d["id"], "Grace Line", 0, actionName="Grace Line")
    assert ada.post(f"/documents/{d['id']}/history/groups").status_code == 200
    ada.insert(d["id"], " Outer", 10, actionName="Outer")
    h = anon.history(d["id"], scope="document")
    assert h["undoMenuItemTitle"] == "Undo Grace Line", h
    assert [e["actionName"] for e in h["undoStack"]] == ["Grace Line"], h
    r = anon.undo(d["id"], scope="document")
    assert r.status_code == 200 and r.json()["actionName"] == "Grace Line", describe(r)


def test_the_restored_text_stays_its_authors_after_a_restart(servers):
    srv = servers(name="ownership-restart")
    ada, grace, doc = _ada_restores_graces_text(srv.base)
    srv.restart()
    # Sessions live on in the store: the same tokens still work.
    grace = Client(srv.base, token=grace.token)
    h = grace.history(doc)
    assert h["canUndo"] is True and h["undoMenuItemTitle"] == "Undo Typing", h
    r = grace.undo(doc)
    assert r.status_code == 200 and r.json()["partial"] is False, describe(r)
    assert grace.text(doc) == " AdaOld"
