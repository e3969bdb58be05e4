"""Undo groups spanning requests, and "Typing" coalescing."""

import time

from tandem_client import assert_error, describe, new_session, unchanged


def _open(client, doc_id):
    r = client.post(f"/documents/{doc_id}/history/groups")
    assert r.status_code == 200, describe(r)
    return r.json()["groupingLevel"]


def _close(client, doc_id):
    r = client.delete(f"/documents/{doc_id}/history/groups")
    assert r.status_code == 200, describe(r)
    return r.json()["groupingLevel"]


def test_group_spanning_requests_undoes_as_one(anon, alice):
    d = anon.create_doc("0123456789")
    assert _open(alice, d["id"]) == 1
    assert alice.history(d["id"])["groupingLevel"] == 1
    alice.insert(d["id"], "A", 0)
    alice.edit(d["id"], {"delete": {"from": 5, "to": 8}})
    alice.insert(d["id"], "Z", 6)
    assert anon.text(d["id"]) == "A01237Z89"
    assert _close(alice, d["id"]) in (0, None)
    assert alice.history(d["id"])["groupingLevel"] == 0
    assert len(alice.history(d["id"])["undoStack"]) == 1
    r = alice.undo(d["id"])
    assert r.status_code == 200, describe(r)
    assert anon.text(d["id"]) == "0123456789"
    assert_error(alice.undo(d["id"]), 409, "nothing_to_undo")
    r = alice.redo(d["id"])
    assert r.status_code == 200, describe(r)
    assert anon.text(d["id"]) == "A01237Z89"


def test_nested_groups(anon, alice):
    d = anon.create_doc("")
    assert _open(alice, d["id"]) == 1
    alice.insert(d["id"], "a", 0)
    assert _open(alice, d["id"]) == 2
    alice.insert(d["id"], "b", 1)
    assert _close(alice, d["id"]) in (1, None)
    assert alice.history(d["id"])["groupingLevel"] == 1
    alice.insert(d["id"], "c", 2)
    _close(alice, d["id"])
    assert alice.history(d["id"])["groupingLevel"] == 0
    r = alice.undo(d["id"])
    assert r.status_code == 200, describe(r)
    assert anon.text(d["id"]) == ""


def test_close_without_open_group_is_409(anon, alice):
    d = anon.create_doc("x")
    with unchanged(anon, d["id"]):
        assert_error(alice.delete(f"/documents/{d['id']}/history/groups"), 409, "group_not_open")
        _open(alice, d["id"])
        _close(alice, d["id"])
        assert_error(alice.delete(f"/documents/{d['id']}/history/groups"), 409, "group_not_open")


def test_groups_are_per_session(anon, alice, bob):
    d = anon.create_doc("")
    _open(alice, d["id"])
    assert bob.history(d["id"])["groupingLevel"] == 0
    assert_error(bob.delete(f"/documents/{d['id']}/history/groups"), 409, "group_not_open")
    alice.insert(d["id"], "a", 0)
    bob.insert(d["id"], "b", 1)
    alice.insert(d["id"], "c", 0)
    _close(alice, d["id"])
    r = alice.undo(d["id"])
    assert r.status_code == 200, describe(r)
    assert anon.text(d["id"]) == "b"


def test_undo_while_group_open_closes_it_first(anon, alice):
    d = anon.create_doc("")
    alice.insert(d["id"], "first ", 0, newGroup=True)
    _open(alice, d["id"])
    alice.insert(d["id"], "x", 6)
    alice.insert(d["id"], "y", 0)
    r = alice.undo(d["id"])
    assert r.status_code == 200, describe(r)
    assert anon.text(d["id"]) == "first "
    assert alice.history(d["id"])["groupingLevel"] == 0


def test_group_named_by_patch_history(anon, alice):
    d = anon.create_doc("abc")
    _open(alice, d["id"])
    alice.insert(d["id"], "<b>", 0)
    alice.insert(d["id"], "</b>", 6)
    _close(alice, d["id"])
    r = alice.patch(f"/documents/{d['id']}/history", {"actionName": "Bold"})
    assert r.status_code == 200, describe(r)
    h = alice.history(d["id"])
    assert h["undoMenuItemTitle"] == "Undo Bold"
    r = alice.undo(d["id"])
    assert r.json()["actionName"] == "Bold"
    assert alice.history(d["id"])["redoMenuItemTitle"] == "Redo Bold"


def test_group_operations_need_a_session(anon):
    d = anon.create_doc("")
    # Anonymous callers have no undo context of their own to group in.
    assert_error(anon.post(f"/documents/{d['id']}/history/groups"), 401, "session_required")


def test_typing_coalesces_into_one_group(anon, alice):
    d = anon.create_doc("")
    for i, ch in enumerate("hello"):
        alice.insert(d["id"], ch, i)
    h = alice.history(d["id"])
    assert len(h["undoStack"]) == 1
    assert h["undoActionName"] == "Typing"
    assert h["undoMenuItemTitle"] == "Undo Typing"
    r = alice.undo(d["id"])
    assert r.status_code == 200 and r.json()["actionName"] == "Typing"
    assert anon.text(d["id"]) == ""
    r = alice.redo(d["id"])
    assert r.status_code == 200
    assert anon.text(d["id"]) == "hello"


def test_new_group_splits_typing(anon, alice):
    d = anon.create_doc("")
    alice.insert(d["id"], "a", 0)
    alice.insert(d["id"], "b", 1)
    alice.insert(d["id"], "c", 2, newGroup=True)
    alice.insert(d["id"], "d", 3)
    assert len(alice.history(d["id"])["undoStack"]) == 2
    alice.undo(d["id"])
    assert anon.text(d["id"]) == "ab"


def test_position_jump_splits_typing(anon, alice):
    d = anon.create_doc("----")
    alice.insert(d["id"], "a", 0)
    alice.insert(d["id"], "b", 1)
    alice.insert(d["id"], "c", 5)  # not where the caret was
    assert len(alice.history(d["id"])["undoStack"]) == 2
    alice.undo(d["id"])
    assert anon.text(d["id"]) == "ab----"


def test_other_kind_of_change_splits_typing(anon, alice):
    d = anon.create_doc("")
    alice.insert(d["id"], "a", 0)
    alice.insert(d["id"], "b", 1)
    alice.edit(d["id"], {"delete": {"from": 0, "to": 1}})
    assert len(alice.history(d["id"])["undoStack"]) == 2
    alice.undo(d["id"])
    assert anon.text(d["id"]) == "ab"


def test_typing_of_two_sessions_stays_apart(anon, alice, bob):
    d = anon.create_doc("|")
    for i, ch in enumerate("abc"):
        alice.insert(d["id"], ch, i)
        bob.insert(d["id"], ch.upper(), 2 * i + 2)
    assert anon.text(d["id"]) == "abc|ABC"
    assert len(alice.history(d["id"])["undoStack"]) == 1
    alice.undo(d["id"])
    assert anon.text(d["id"]) == "|ABC"
    bob.undo(d["id"])
    assert anon.text(d["id"]) == "|"


def test_typing_pause_ends_the_group(servers):
    # Set through the environment, the other way to configure `tandem serve`.
    srv = servers(env={"TANDEM_TYPING_PAUSE": "0.4"}, name="typing")
    from tandem_client import Client
    anon = Client(srv.base)
    ada = new_session(srv.base, "Ada")
    d = anon.create_doc("")
    ada.insert(d["id"], "a", 0)
    # Twice the 0.4 s pause, yet under the 1 s default: the group splits only if the
    # environment was honoured.
    time.sleep(0.8)
    ada.insert(d["id"], "b", 1)
    assert len(ada.history(d["id"])["undoStack"]) == 2
    ada.undo(d["id"])
    assert anon.text(d["id"]) == "a"
