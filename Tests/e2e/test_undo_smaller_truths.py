"""Issue 37's smaller truths, over the real server: the cap `…/history` reports, discardable
groups and what `changeCount` and `hasUnsavedChanges` each mean, a session's own switch for
undo registration, automatic groups announced like explicit ones, `…/actions` answering
every caller as the requests would, and `?type=` on paste."""

from sse import SSEStream
from tandem_client import Client, assert_error, new_session, unchanged, unique


# --- 1. the cap in force ---------------------------------------------------------------

def test_a_session_without_a_cap_of_its_own_is_told_the_documents_cap(base):
    ada = new_session(base, "Ada")
    d = ada.create_doc("")
    assert ada.patch(f"/documents/{d['id']}", {"levelsOfUndo": 2}).status_code == 200
    h = ada.history(d["id"])
    assert (h["levelsOfUndo"], h["ownLevelsOfUndo"]) == (2, 0), h
    for i in range(3):
        ada.insert(d["id"], f"{i}", i, newGroup=True)
    # The cap reported is the one that trimmed the stack.
    assert len(ada.history(d["id"])["undoStack"]) == 2
    r = ada.patch(f"/documents/{d['id']}/history", {"levelsOfUndo": 5})
    assert r.status_code == 200, r.text
    assert (r.json()["levelsOfUndo"], r.json()["ownLevelsOfUndo"]) == (5, 5), r.json()
    doc_scope = ada.history(d["id"], scope="document")
    assert (doc_scope["levelsOfUndo"], doc_scope["ownLevelsOfUndo"]) == (2, 2), doc_scope


# --- 2. discardable groups, changeCount and hasUnsavedChanges ---------------------------

def test_a_discardable_edit_changes_the_text_but_not_the_change_count(base):
    ada = new_session(base, "Ada")
    d = ada.create_doc("")
    assert ada.post(f"/documents/{d['id']}/save").status_code == 201
    ada.insert(d["id"], "scroll mark", 0, discardable=True)
    doc = ada.doc(d["id"])
    # Nothing to prompt a save for, yet the text differs from the saved one: autosave saves it.
    assert (doc["changeCount"], doc["hasUnsavedChanges"]) == (0, True), doc
    assert Client(base).doc(d["id"])["changeCount"] == 0
    h = ada.history(d["id"])
    assert h["undoActionIsDiscardable"] is True and h["canUndo"] is True, h
    assert ada.undo(d["id"]).status_code == 200
    h = ada.history(d["id"])
    assert h["redoActionIsDiscardable"] is True and h["undoActionIsDiscardable"] is False, h
    doc = ada.doc(d["id"])
    assert (doc["changeCount"], doc["hasUnsavedChanges"]) == (0, False), doc
    assert ada.redo(d["id"]).status_code == 200
    assert ada.doc(d["id"])["changeCount"] == 0


def test_marking_the_latest_group_discardable_takes_its_count_back(base):
    ada = new_session(base, "Ada")
    d = ada.create_doc("")
    ada.insert(d["id"], "a", 0, actionName="A")
    ada.insert(d["id"], "b", 1, actionName="B")
    assert ada.doc(d["id"])["changeCount"] == 2
    r = ada.patch(f"/documents/{d['id']}/history", {"actionIsDiscardable": True})
    assert r.status_code == 200, r.text
    assert r.json()["undoActionIsDiscardable"] is True and r.json()["undoActionName"] == "B", r.json()
    assert ada.doc(d["id"])["changeCount"] == 1
    r = ada.patch(f"/documents/{d['id']}/history", {"actionIsDiscardable": False})
    assert r.status_code == 200 and r.json()["undoActionIsDiscardable"] is False, r.text
    assert ada.doc(d["id"])["changeCount"] == 2


def test_bad_discardable_requests_change_nothing(base):
    ada = new_session(base, "Ada")
    d = ada.create_doc("text")
    assert_error(ada.patch(f"/documents/{d['id']}/history", {"actionIsDiscardable": True}), 409, "nothing_to_undo")
    assert_error(ada.patch(f"/documents/{d['id']}/history", {"actionIsDiscardable": "yes"}), 400, "invalid_field")
    with unchanged(ada, d["id"]):
        r = ada.post(f"/documents/{d['id']}/edits", {"insert": "x", "at": 0, "discardable": True, "undoable": False})
        assert_error(r, 400, "invalid_field")
        assert_error(ada.post(f"/documents/{d['id']}/edits", {"insert": "x", "at": 0, "discardable": 1}), 400, "invalid_field")


def test_the_text_back_at_the_saved_one_is_saved_while_the_count_still_counts_steps(base):
    ada = new_session(base, "Ada")
    d = ada.create_doc("saved")
    assert ada.post(f"/documents/{d['id']}/save").status_code == 201
    ada.insert(d["id"], "!", 5)
    ada.edit(d["id"], {"delete": {"from": 5, "to": 6}})
    doc = ada.doc(d["id"])
    # UIDocument counts the two steps; hasUnsavedChanges is about the text, which is saved.
    assert (doc["text"], doc["changeCount"], doc["hasUnsavedChanges"]) == ("saved", 2, False), doc


def test_a_discardable_flag_survives_a_restart(servers):
    srv = servers(name="discardable-restart")
    ada = new_session(srv.base, "Ada")
    d = ada.create_doc("")
    ada.insert(d["id"], "a", 0, actionName="A")
    ada.insert(d["id"], "b", 1, discardable=True)
    assert ada.patch(f"/documents/{d['id']}/history", {"actionIsDiscardable": True}).status_code == 200
    before = (ada.doc(d["id"])["changeCount"], ada.history(d["id"]))
    srv.restart()
    ada2 = Client(srv.base, token=ada.token, session=ada.session)
    assert (ada2.doc(d["id"])["changeCount"], ada2.history(d["id"])) == before
    assert before[0] == 1


# --- 3. a session's own registration switch ---------------------------------------------

def _registration(client, doc_id, what):
    return client.post(f"/documents/{doc_id}/history/registration/{what}")


def test_a_session_disables_its_own_registration_nested_and_enables_it_again(base):
    ada, bob = new_session(base, "Ada"), new_session(base, "Bob")
    d = ada.create_doc("")
    r = _registration(ada, d["id"], "disable")
    assert r.status_code == 200 and r.json() == {"undoRegistrationEnabled": False, "disabledLevel": 1}, r.text
    assert _registration(ada, d["id"], "disable").json() == {"undoRegistrationEnabled": False, "disabledLevel": 2}
    ada.insert(d["id"], "not undoable ", 0)
    bob.insert(d["id"], "undoable", len(ada.text(d["id"])))
    h = ada.history(d["id"])
    assert h["undoRegistrationEnabled"] is False and h["undoStack"] == [], h
    assert bob.history(d["id"])["undoRegistrationEnabled"] is True
    assert len(bob.history(d["id"])["undoStack"]) == 1
    assert _registration(ada, d["id"], "enable").json() == {"undoRegistrationEnabled": False, "disabledLevel": 1}
    assert _registration(ada, d["id"], "enable").json() == {"undoRegistrationEnabled": True, "disabledLevel": 0}
    assert_error(_registration(ada, d["id"], "enable"), 409, "undo_registration_not_disabled")
    ada.insert(d["id"], "back", 0)
    assert ada.history(d["id"])["undoStack"][-1]["actionName"] == "Typing"


def test_registration_needs_a_session_and_takes_no_body_fields(base, anon):
    ada = new_session(base, "Ada")
    d = ada.create_doc("")
    assert_error(_registration(anon, d["id"], "disable"), 401)
    assert_error(ada.post(f"/documents/{d['id']}/history/registration/disable", {"level": 2}), 400, "invalid_field")
    assert ada.history(d["id"])["undoRegistrationEnabled"] is True


def test_a_disabled_registration_survives_a_restart(servers):
    srv = servers(name="registration-restart")
    ada = new_session(srv.base, "Ada")
    d = ada.create_doc("")
    assert _registration(ada, d["id"], "disable").status_code == 200
    srv.restart()
    ada2 = Client(srv.base, token=ada.token, session=ada.session)
    assert ada2.history(d["id"])["undoRegistrationEnabled"] is False
    ada2.insert(d["id"], "x", 0)
    assert ada2.history(d["id"])["undoStack"] == []
    assert _registration(ada2, d["id"], "enable").json() == {"undoRegistrationEnabled": True, "disabledLevel": 0}


# --- 4. automatic groups announced --------------------------------------------------------

def _history_until(s, session_id, last):
    names = []
    while True:
        ev = s.next_event()
        if ev.type == "change":
            names.append("change")
        elif ev.type == "history" and ev.json()["session"] == session_id:
            names.append(ev.json()["notification"])
            if ev.json()["notification"] == last:
                return names


def test_an_automatic_group_opens_before_its_change_and_closes_after_it(base):
    ada = new_session(base, "Ada")
    d = ada.create_doc("")
    with SSEStream(base, f"/documents/{d['id']}/events") as s:
        ada.insert(d["id"], "a", 0)
        assert _history_until(s, ada.id, "didCloseUndoGroup") == [
            "didOpenUndoGroup", "change", "checkpoint", "willCloseUndoGroup", "didCloseUndoGroup"]
        # A keystroke that joins the typing group opens none: it is inside the same group.
        ada.insert(d["id"], "b", 1)
        ada.insert(d["id"], "c", 0, newGroup=True)
        # (Checkpoints left out: b's may be coalesced into c's when both go out in one write.)
        got = [n for n in _history_until(s, ada.id, "didCloseUndoGroup") if n != "checkpoint"]
        assert got == ["change", "didOpenUndoGroup", "change", "willCloseUndoGroup", "didCloseUndoGroup"]


# --- 5. …/actions tells every caller the truth ------------------------------------------

def test_an_anonymous_caller_is_told_paste_works_on_a_range_as_it_does(base, anon):
    ada = new_session(base, "Ada")
    board = unique("board")
    assert ada.post("/pasteboards", {"name": board, "shared": "everyone"}).status_code == 201
    assert anon.put(f"/pasteboards/{board}/items", [[{"type": "text/plain", "string": "P"}]]).status_code == 200
    d = anon.create_doc("abc")
    path = f"/documents/{d['id']}"
    plain = anon.get(f"{path}/actions", params={"pasteboard": board}).json()
    # No selection: the requests without a range are 401, and so the menu offers none.
    assert [plain[k] for k in ("cut", "copy", "paste", "delete")] == [False] * 4, plain
    assert_error(anon.post(f"{path}/paste", {"pasteboard": board}), 401)
    ranged = anon.get(f"{path}/actions", params={"pasteboard": board, "from": 1, "to": 2}).json()
    assert [ranged[k] for k in ("cut", "copy", "paste", "delete", "select")] == [True, True, True, True, False], ranged
    assert anon.post(f"{path}/paste", {"from": 1, "to": 2, "pasteboard": board}).status_code == 200
    assert anon.text(d["id"]) == "aPc"
    caret = anon.get(f"{path}/actions", params={"pasteboard": board, "from": 0, "to": 0}).json()
    assert (caret["paste"], caret["cut"], caret["delete"]) == (True, False, False), caret
    assert_error(anon.post(f"{path}/delete", {"from": 0, "to": 0}), 422, "empty_range")


def test_select_is_offered_only_where_it_has_somewhere_to_start(base):
    ada = new_session(base, "Ada")
    d = ada.create_doc("two words")
    a = ada.get(f"/documents/{d['id']}/actions").json()
    assert (a["select"], a["selectAll"]) == (False, True), a
    assert_error(ada.post(f"/documents/{d['id']}/select"), 409, "no_selection")
    assert ada.get(f"/documents/{d['id']}/actions", params={"from": 0, "to": 3}).json()["select"] is True
    assert ada.put(f"/documents/{d['id']}/selection", {"anchor": 1, "head": 1}).status_code == 200
    assert ada.get(f"/documents/{d['id']}/actions").json()["select"] is True
    assert ada.post(f"/documents/{d['id']}/select").status_code == 200


def test_an_actions_range_is_checked_as_the_requests_check_it(anon):
    d = anon.create_doc("ab")
    path = f"/documents/{d['id']}/actions"
    assert_error(anon.get(path, params={"from": 1}), 400, "invalid_field")
    assert_error(anon.get(path, params={"from": "-1", "to": 1}), 400, "invalid_field")
    assert_error(anon.get(path, params={"from": "1.0", "to": 1}), 400, "invalid_field")
    assert_error(anon.get(path, params={"from": 2, "to": 1}), 422, "position_out_of_range")
    assert_error(anon.get(path, params={"from": 0, "to": 9}), 422, "position_out_of_range")
    assert_error(anon.get(path, params={"form": 0}), 400, "invalid_field")
    assert_error(anon.get(path, params={"type": "not a type"}), 400, "invalid_type")


# --- 6. paste ?type= ----------------------------------------------------------------------

def test_paste_takes_its_type_from_the_query_as_from_the_body(base):
    ada = new_session(base, "Ada")
    board = unique("board")
    assert ada.post("/pasteboards", {"name": board}).status_code == 201
    item = [[{"type": "text/plain", "string": "plain"}, {"type": "text/html", "string": "<b>html</b>"}]]
    assert ada.put(f"/pasteboards/{board}/items", item).status_code == 200
    d = ada.create_doc("")
    path = f"/documents/{d['id']}/paste"
    assert ada.get(f"/documents/{d['id']}/actions", params={"pasteboard": board, "type": "public.png", "from": 0, "to": 0}).json()["paste"] is False
    r = ada.post(path, {"from": 0, "to": 0, "pasteboard": board}, params={"type": "text/html"})
    assert r.status_code == 200, r.text
    assert ada.text(d["id"]) == "<b>html</b>"
    with unchanged(ada, d["id"]):
        assert_error(ada.post(path, {"from": 0, "to": 0, "pasteboard": board}, params={"type": "text/"}), 400, "invalid_type")
        r = ada.post(path, {"from": 0, "to": 0, "pasteboard": board, "type": "public.utf8-plain-text"}, params={"type": "text/html"})
        assert_error(r, 400, "invalid_field")
        assert_error(ada.post(path, {"from": 0, "to": 0, "pasteboard": board}, params={"typ": "text/html"}), 400, "invalid_field")
        assert_error(ada.post(f"/documents/{d['id']}/delete", {"from": 0, "to": 1}, params={"type": "text/html"}), 400, "invalid_field")
    # The same type in both places is one request, not a conflict.
    r = ada.post(path, {"from": 0, "to": 0, "pasteboard": board, "type": "public.html"}, params={"type": "text/html"})
    assert r.status_code == 200, r.text
