"""Undo that tells the truth (issue 26), over the real server: what the menu names is what
undo does, a group still open is its owner's, other people's typing never evicts mine, and
"unsaved" means the text differs from the last saved version."""

import time

from tandem_client import Client, assert_error, new_session, unchanged


def test_the_title_names_what_undo_reverts_when_others_erased_the_top_group(base):
    ada, bob = new_session(base, "Ada"), new_session(base, "Bob")
    d = ada.create_doc("")
    ada.insert(d["id"], "Old", 0, actionName="Old")
    ada.insert(d["id"], "New", 3, actionName="New")
    bob.edit(d["id"], {"delete": {"from": 3, "to": 6}})
    h = ada.history(d["id"])
    assert h["canUndo"] is True and h["undoActionName"] == "Old" and h["undoMenuItemTitle"] == "Undo Old", h
    actions = ada.get(f"/documents/{d['id']}/actions").json()
    assert actions["undo"] is True and actions["undoMenuItemTitle"] == "Undo Old", actions
    r = ada.undo(d["id"])
    assert r.status_code == 200 and r.json()["actionName"] == "Old", r.text
    # The answer says which group it skipped: "New", made at revision 2, erased by Bob.
    assert r.json()["skipped"] == [{"actionName": "New", "revision": 2}], r.text
    assert ada.text(d["id"]) == ""


def test_a_group_others_erased_entirely_is_not_offered(base):
    ada, bob = new_session(base, "Ada"), new_session(base, "Bob")
    d = ada.create_doc("")
    ada.insert(d["id"], "Gone", 0)
    bob.edit(d["id"], {"delete": {"from": 0, "to": 4}})
    h = ada.history(d["id"])
    assert h["canUndo"] is False and h["undoActionName"] == "" and h["undoMenuItemTitle"] == "Undo", h
    assert ada.get(f"/documents/{d['id']}/actions").json()["undo"] is False
    with unchanged(ada, d["id"]):
        assert_error(ada.undo(d["id"]), 409, "nothing_to_undo")


def test_nobody_else_closes_or_undoes_an_open_group(base):
    ada, bob = new_session(base, "Ada"), new_session(base, "Bob")
    anon = Client(base)
    d = ada.create_doc("")
    assert ada.post(f"/documents/{d['id']}/history/groups").status_code == 200
    ada.insert(d["id"], "open", 0)
    with unchanged(ada, d["id"]):
        assert_error(anon.undo(d["id"], scope="document"), 409, "nothing_to_undo")
        assert_error(bob.undo(d["id"], scope="document"), 409, "nothing_to_undo")
    assert anon.history(d["id"], scope="document")["canUndo"] is False
    assert ada.history(d["id"])["groupingLevel"] == 1
    # Its owner closes it; then it is anyone's to undo in document scope.
    r = ada.delete(f"/documents/{d['id']}/history/groups")
    assert r.status_code == 200, r.text
    assert anon.undo(d["id"], scope="document").status_code == 200
    assert ada.text(d["id"]) == ""


def test_other_peoples_typing_never_evicts_my_undo(base):
    ada, bob = new_session(base, "Ada"), new_session(base, "Bob")
    d = ada.create_doc("")
    assert ada.patch(f"/documents/{d['id']}", {"levelsOfUndo": 2}).status_code == 200
    ada.insert(d["id"], "mine ", 0)
    for i in range(4):
        bob.insert(d["id"], f"b{i}", len(ada.text(d["id"])), newGroup=True)
    assert [e["actionName"] for e in ada.history(d["id"])["undoStack"]] == ["Typing"]
    assert len(bob.history(d["id"])["undoStack"]) == 2
    r = ada.undo(d["id"])
    assert r.status_code == 200, r.text
    assert ada.text(d["id"]) == "b0b1b2b3"


def test_unsaved_means_the_text_differs_from_the_last_saved_version(base):
    ada = new_session(base, "Ada")
    d = ada.create_doc("")
    ada.insert(d["id"], "v0 one", 0)
    assert ada.post(f"/documents/{d['id']}/save").status_code == 201
    assert ada.doc(d["id"])["hasUnsavedChanges"] is False
    assert ada.undo(d["id"]).status_code == 200
    ada.insert(d["id"], "v0 two", 0, newGroup=True)
    doc = ada.doc(d["id"])
    # UIDocument's count is back at 0 (one undone, one done); the text was never saved.
    assert doc["text"] == "v0 two" and doc["hasUnsavedChanges"] is True, doc
    assert ada.post(f"/documents/{d['id']}/save").status_code == 201
    assert ada.doc(d["id"])["hasUnsavedChanges"] is False


def test_an_undo_after_others_typed_leaves_the_document_unsaved(base):
    ada, bob = new_session(base, "Ada"), new_session(base, "Bob")
    d = ada.create_doc("base")
    ada.insert(d["id"], "ADA ", 0)
    assert ada.post(f"/documents/{d['id']}/save").status_code == 201
    bob.insert(d["id"], "BOB ", 0)
    assert ada.undo(d["id"]).status_code == 200
    doc = ada.doc(d["id"])
    assert doc["text"] == "BOB base" and doc["hasUnsavedChanges"] is True, doc


def test_autosave_saves_a_text_the_change_count_calls_clean(servers):
    srv = servers(name="autosave-truth")
    ada = new_session(srv.base, "Ada")
    d = ada.create_doc("")
    ada.insert(d["id"], "v0 one", 0)
    assert ada.post(f"/documents/{d['id']}/save").status_code == 201
    assert ada.undo(d["id"]).status_code == 200
    ada.insert(d["id"], "v0 two", 0, newGroup=True)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and ada.doc(d["id"])["hasUnsavedChanges"]:
        time.sleep(0.25)
    versions = ada.get(f"/documents/{d['id']}/versions").json()
    newest = versions[-1] if isinstance(versions, list) else versions["versions"][-1]
    text = ada.get(f"/documents/{d['id']}/versions/{newest['number']}/text").text
    assert text == "v0 two", versions
    # Restarted, the document knows its saved text again.
    srv.restart()
    assert Client(srv.base).doc(d["id"])["hasUnsavedChanges"] is False
