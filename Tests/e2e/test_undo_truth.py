"""Undo that tells the truth (issue 26), over the real server: what the menu names is what
undo does, a group still open is its owner's, and other people's typing never evicts mine."""

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
