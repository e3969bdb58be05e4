"""Undo and redo: per-session contexts, document scope, redo stacks, names, levels, cycles."""

from tandem_client import assert_error, describe, new_session, unchanged
from utf16 import apply_ops

HISTORY_FIELDS = {"canUndo", "canRedo", "undoActionName", "redoActionName", "undoMenuItemTitle",
                  "redoMenuItemTitle", "levelsOfUndo", "groupingLevel", "undoStack", "redoStack"}


def _undo(client, doc_id, scope=None, redo=False):
    before = client.doc(doc_id)
    r = (client.redo if redo else client.undo)(doc_id, scope)
    assert r.status_code == 200, describe(r)
    body = r.json()
    assert set(body) >= {"revision", "ops", "actionName", "range", "history"}
    assert set(body["range"]) >= {"from", "to"}
    assert set(body["history"]) >= {"canUndo", "canRedo"}
    after = client.doc(doc_id)
    assert body["revision"] == before["revision"] + 1 == after["revision"]
    assert apply_ops(before["text"], body["ops"]) == after["text"]
    return body, after["text"]


def test_history_shape(alice):
    d = alice.create_doc("")
    alice.insert(d["id"], "hi", 0)
    h = alice.history(d["id"])
    assert set(h) >= HISTORY_FIELDS
    assert h["canUndo"] is True and h["canRedo"] is False
    assert h["groupingLevel"] == 0
    assert isinstance(h["undoStack"], list) and len(h["undoStack"]) == 1
    entry = h["undoStack"][0]
    assert set(entry) >= {"actionName", "revision", "session", "time"}
    assert entry["session"] == alice.id and entry["revision"] == 1
    assert h["redoStack"] == []


def test_undo_and_redo_insert(alice):
    d = alice.create_doc("abc")
    alice.insert(d["id"], "hello", 3)
    body, text = _undo(alice, d["id"])
    assert text == "abc"
    assert body["range"] == {"from": 3, "to": 3}
    assert body["history"]["canUndo"] is False and body["history"]["canRedo"] is True
    body, text = _undo(alice, d["id"], redo=True)
    assert text == "abchello"
    assert body["range"] == {"from": 3, "to": 8}
    assert body["history"]["canUndo"] is True and body["history"]["canRedo"] is False


def test_undo_delete_restores_and_selects_it(alice):
    d = alice.create_doc("hello cruel world")
    alice.edit(d["id"], {"delete": {"from": 5, "to": 11}})
    body, text = _undo(alice, d["id"])
    assert text == "hello cruel world"
    assert body["range"] == {"from": 5, "to": 11}


def test_nothing_to_undo_or_redo_is_409(alice, anon):
    d = alice.create_doc("x")
    with unchanged(anon, d["id"]):
        assert_error(alice.undo(d["id"]), 409, "nothing_to_undo")
        assert_error(alice.redo(d["id"]), 409, "nothing_to_redo")
        assert_error(anon.undo(d["id"]), 409, "nothing_to_undo")
        assert_error(anon.redo(d["id"], scope="document"), 409, "nothing_to_redo")


def test_session_undo_does_not_touch_others_text(anon, alice, bob):
    d = anon.create_doc("")
    alice.insert(d["id"], "AAA", 0)
    bob.insert(d["id"], "BBB", 3)
    alice.insert(d["id"], "aaa", 6, newGroup=True)
    assert anon.text(d["id"]) == "AAABBBaaa"
    _, text = _undo(alice, d["id"])
    assert text == "AAABBB"
    _, text = _undo(alice, d["id"])
    assert text == "BBB"
    assert_error(alice.undo(d["id"]), 409, "nothing_to_undo")
    assert bob.history(d["id"])["canUndo"] is True
    _, text = _undo(bob, d["id"])
    assert text == ""


def test_undo_reverts_only_what_is_left_of_a_change(anon, alice, bob):
    d = anon.create_doc("")
    alice.insert(d["id"], "hello world", 0)
    bob.insert(d["id"], "[B]", 6)                       # inside Alice's text
    bob.edit(d["id"], {"delete": {"from": 0, "to": 2}})  # deletes "he" of Alice's text
    assert anon.text(d["id"]) == "llo [B]world"
    _, text = _undo(alice, d["id"])
    assert text == "[B]"
    # Bob's undo of his delete restores "he" even though Alice's text around it is gone.
    _, text = _undo(bob, d["id"])
    assert "he" in text and "[B]" in text and len(text) == 5


def test_document_scope_undoes_latest_group_by_anyone(anon, alice, bob):
    d = anon.create_doc("")
    alice.insert(d["id"], "a", 0)
    bob.insert(d["id"], "b", 1)
    body, text = _undo(alice, d["id"], scope="document")
    assert text == "a"
    assert alice.history(d["id"], scope="document")["canUndo"] is True
    body, text = _undo(anon, d["id"])  # no token: document scope by default
    assert text == ""
    _, text = _undo(anon, d["id"], redo=True)
    assert text == "a"


def test_anonymous_edits_land_only_in_the_document_undo_manager(anon, alice):
    d = anon.create_doc("")
    anon.insert(d["id"], "anon", 0)
    assert alice.history(d["id"])["canUndo"] is False
    assert_error(alice.undo(d["id"]), 409, "nothing_to_undo")
    _, text = _undo(anon, d["id"])
    assert text == ""


def test_session_history_lists_only_its_own_groups(anon, alice, bob):
    d = anon.create_doc("")
    alice.insert(d["id"], "a", 0)
    bob.insert(d["id"], "b", 1)
    alice.insert(d["id"], "c", 0, newGroup=True)
    mine = alice.history(d["id"])["undoStack"]
    assert len(mine) == 2 and all(e["session"] == alice.id for e in mine)
    everyone = alice.history(d["id"], scope="document")["undoStack"]
    assert len(everyone) == 3
    assert {e["session"] for e in everyone} == {alice.id, bob.id}


def test_redo_stack_cleared_only_by_own_new_change(anon, alice, bob):
    d = anon.create_doc("")
    alice.insert(d["id"], "a", 0)
    _undo(alice, d["id"])
    bob.insert(d["id"], "b", 0)
    assert alice.history(d["id"])["canRedo"] is True  # others' changes do not clear it
    _, text = _undo(alice, d["id"], redo=True)
    assert sorted(text) == ["a", "b"]
    _undo(alice, d["id"])
    alice.insert(d["id"], "z", 0)
    h = alice.history(d["id"])
    assert h["canRedo"] is False and h["redoStack"] == []
    with unchanged(anon, d["id"]):
        assert_error(alice.redo(d["id"]), 409, "nothing_to_redo")


def test_undo_redo_cycles_forever(alice):
    d = alice.create_doc("base")
    alice.insert(d["id"], "+more", 4)
    for _ in range(4):
        _, text = _undo(alice, d["id"])
        assert text == "base"
        _, text = _undo(alice, d["id"], redo=True)
        assert text == "base+more"
    assert alice.doc(d["id"])["revision"] == 9


def test_action_names(alice):
    d = alice.create_doc("text")
    alice.edit(d["id"], {"replace": {"from": 0, "to": 4}, "with": "TEXT"})
    r = alice.patch(f"/documents/{d['id']}/history", {"actionName": "Bold"})
    assert r.status_code == 200, describe(r)
    h = alice.history(d["id"])
    assert h["undoActionName"] == "Bold"
    assert h["undoMenuItemTitle"] == "Undo Bold"
    assert h["undoStack"][-1]["actionName"] == "Bold"
    body, _ = _undo(alice, d["id"])
    assert body["actionName"] == "Bold"
    h = alice.history(d["id"])
    assert h["redoActionName"] == "Bold" and h["redoMenuItemTitle"] == "Redo Bold"
    assert h["undoMenuItemTitle"] == "Undo"  # NSUndoManager's title with nothing to undo
    alice.insert(d["id"], "!", 4, actionName="Exclaim")
    assert alice.history(d["id"])["undoMenuItemTitle"] == "Undo Exclaim"


def test_patch_history_without_anything_to_name(alice, anon):
    d = alice.create_doc("x")
    with unchanged(alice, d["id"]):
        assert_error(alice.patch(f"/documents/{d['id']}/history", {"actionName": "Bold"}), 409, "nothing_to_undo")
    assert alice.history(d["id"])["canUndo"] is False
    assert_error(alice.patch(f"/documents/{d['id']}/history", {"actionName": 5}), 400, "invalid_field")
    assert_error(alice.patch(f"/documents/{d['id']}/history", {"levelsOfUndo": -2}), 400, "invalid_field")


def test_undoable_false_registers_nothing(anon, alice):
    d = anon.create_doc("")
    alice.insert(d["id"], "kept", 0, undoable=False)
    assert alice.history(d["id"])["canUndo"] is False
    assert_error(alice.undo(d["id"]), 409, "nothing_to_undo")
    alice.insert(d["id"], "[u]", 0)
    alice.insert(d["id"], "[n]", 7, undoable=False)
    _, text = _undo(alice, d["id"])
    assert text == "kept[n]"
    assert_error(alice.undo(d["id"]), 409, "nothing_to_undo")


def test_levels_of_undo_per_session(anon, alice):
    d = anon.create_doc("")
    r = alice.patch(f"/documents/{d['id']}/history", {"levelsOfUndo": 2})
    assert r.status_code == 200, describe(r)
    for i, ch in enumerate("wxyz"):
        alice.insert(d["id"], ch, i, newGroup=True)
    assert len(alice.history(d["id"])["undoStack"]) == 2
    _undo(alice, d["id"])
    _, text = _undo(alice, d["id"])
    assert text == "wx"
    assert_error(alice.undo(d["id"]), 409, "nothing_to_undo")
    # The history of the scope that was capped reports the cap it enforces.
    assert alice.history(d["id"])["levelsOfUndo"] == 2


def test_levels_of_undo_of_the_document(anon):
    d = anon.create_doc("")
    r = anon.patch(f"/documents/{d['id']}", {"levelsOfUndo": 3})
    assert r.status_code == 200, describe(r)
    assert anon.history(d["id"], scope="document")["levelsOfUndo"] == 3
    for i in range(5):
        anon.insert(d["id"], str(i), i, newGroup=True)
    for _ in range(3):
        _undo(anon, d["id"])
    assert anon.text(d["id"]) == "01"
    assert_error(anon.undo(d["id"]), 409, "nothing_to_undo")


def test_levels_of_undo_zero_is_unlimited(alice):
    d = alice.create_doc("")
    alice.patch(f"/documents/{d['id']}/history", {"levelsOfUndo": 0})
    for i in range(30):
        alice.insert(d["id"], "x", i, newGroup=True)
    assert len(alice.history(d["id"])["undoStack"]) == 30


def test_remove_all_actions_for_a_scope(anon, alice, bob):
    d = anon.create_doc("")
    alice.insert(d["id"], "a", 0)
    bob.insert(d["id"], "b", 1)
    r = alice.delete(f"/documents/{d['id']}/history")
    assert r.status_code == 200, describe(r)
    assert alice.history(d["id"])["canUndo"] is False
    assert bob.history(d["id"])["canUndo"] is True
    assert_error(alice.undo(d["id"]), 409, "nothing_to_undo")
    r = anon.delete(f"/documents/{d['id']}/history", params={"scope": "document"})
    assert r.status_code == 200, describe(r)
    assert bob.history(d["id"])["canUndo"] is False
    assert anon.text(d["id"]) == "ab"


def test_change_count_follows_uidocument(anon, alice):
    d = anon.create_doc("")

    def count():
        doc = anon.doc(d["id"])
        assert doc["hasUnsavedChanges"] is (doc["changeCount"] != 0)
        return doc["changeCount"]

    assert count() == 0
    alice.insert(d["id"], "a", 0)
    alice.insert(d["id"], "b", 0, newGroup=True)
    assert count() == 2
    _undo(alice, d["id"])
    assert count() == 1
    _undo(alice, d["id"], redo=True)
    assert count() == 2
    assert anon.post(f"/documents/{d['id']}/save").status_code == 201
    assert count() == 0
    _undo(alice, d["id"])
    assert count() == -1
    assert anon.doc(d["id"])["hasUnsavedChanges"] is True


def test_ended_session_changes_stay_in_the_text(base, anon):
    d = anon.create_doc("")
    carol = new_session(base, "Carol")
    carol.insert(d["id"], "carol", 0)
    carol.delete("/sessions/me")
    assert anon.text(d["id"]) == "carol"


def test_range_is_where_the_change_landed_after_others_edits(anon, alice, bob):
    d = anon.create_doc("abc")
    alice.insert(d["id"], "XYZ", 3)
    bob.insert(d["id"], "123", 0)
    assert anon.text(d["id"]) == "123abcXYZ"
    body, text = _undo(alice, d["id"])
    assert text == "123abc"
    assert body["range"] == {"from": 6, "to": 6}
    bob.insert(d["id"], "--", 0, newGroup=True)
    body, text = _undo(alice, d["id"], redo=True)
    assert text == "--123abcXYZ"
    assert body["range"] == {"from": 8, "to": 11}


def test_name_the_latest_group_of_the_document(anon):
    d = anon.create_doc("")
    anon.insert(d["id"], "x", 0)
    r = anon.patch(f"/documents/{d['id']}/history", {"actionName": "Bold"}, params={"scope": "document"})
    assert r.status_code == 200, describe(r)
    h = anon.history(d["id"], scope="document")
    assert h["undoActionName"] == "Bold" and h["undoMenuItemTitle"] == "Undo Bold"


def test_undo_of_a_change_others_erased_leaves_their_work(anon, alice, bob):
    d = anon.create_doc("")
    alice.insert(d["id"], "abc", 0)
    bob.edit(d["id"], {"delete": {"from": 0, "to": 3}})
    # Nothing of Alice's change is left: her stack holds only a group others erased, which
    # is never offered, so there is nothing to undo (and the undo drops the group).
    assert alice.history(d["id"])["canUndo"] is False
    assert_error(alice.undo(d["id"]), 409, "nothing_to_undo")
    assert anon.text(d["id"]) == ""
    _, text = _undo(bob, d["id"])
    assert text == "abc"
    changes = anon.changes(d["id"])
    replayed = ""
    for c in changes:
        replayed = apply_ops(replayed, c["ops"])
    assert replayed == "abc"
