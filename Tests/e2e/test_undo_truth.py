"""Undo that tells the truth (issue 26), over the real server: what the menu names is what
undo does, a group still open is its owner's, other people's typing never evicts mine, and
"unsaved" means the text differs from the last saved version."""

import time

from sse import SSEStream
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
    # UIDocument's arithmetic would be back at 0 (one undone, one done); NSDocument's rule
    # says the save point is out of reach: 2 away (the undone group and the new one).
    assert doc["text"] == "v0 two" and doc["hasUnsavedChanges"] is True and doc["changeCount"] == 2, doc
    # Undoing the new change does not make it look clean: the saved text is not back.
    assert ada.undo(d["id"]).status_code == 200
    doc = ada.doc(d["id"])
    assert doc["text"] == "" and doc["hasUnsavedChanges"] is True and doc["changeCount"] == 1, doc
    assert ada.post(f"/documents/{d['id']}/save").status_code == 201
    doc = ada.doc(d["id"])
    assert doc["hasUnsavedChanges"] is False and doc["changeCount"] == 0, doc


def test_an_undo_after_others_typed_leaves_the_document_unsaved(base):
    ada, bob = new_session(base, "Ada"), new_session(base, "Bob")
    d = ada.create_doc("base")
    ada.insert(d["id"], "ADA ", 0)
    assert ada.post(f"/documents/{d['id']}/save").status_code == 201
    bob.insert(d["id"], "BOB ", 0)
    assert ada.undo(d["id"]).status_code == 200
    doc = ada.doc(d["id"])
    assert doc["text"] == "BOB base" and doc["hasUnsavedChanges"] is True, doc
    # Each scope counts its own context: Ada undid one (−1), Bob did one (+1), the document
    # both (0, which would say clean: reported as 1 while the text is unsaved).
    assert (doc["changeCount"], bob.doc(d["id"])["changeCount"], Client(base).doc(d["id"])["changeCount"]) == (-1, 1, 1)


def test_a_change_count_of_zero_never_hides_unsaved_text(base):
    ada, bob = new_session(base, "Ada"), new_session(base, "Bob")
    d = ada.create_doc("")
    ada.insert(d["id"], "hello world", 0, actionName="Greet")
    assert ada.post(f"/documents/{d['id']}/save").status_code == 201
    bob.edit(d["id"], {"delete": {"from": 5, "to": 11}})
    assert ada.undo(d["id"]).status_code == 200
    # Ada: −1; Bob: +1; the document's arithmetic: 0, yet "" was never saved.
    doc = Client(base).doc(d["id"])
    assert doc["text"] == "" and doc["hasUnsavedChanges"] is True and doc["changeCount"] == 1, doc


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


def _post_undo(client: Client, doc_id: str, query: str):
    return client.post(f"/documents/{doc_id}/undo?{query}", {})


def test_an_undo_is_recorded_under_whoever_asked_and_names_the_group_it_reverted(base):
    ada, bob = new_session(base, "Ada"), new_session(base, "Bob")
    anon = Client(base)
    d = ada.create_doc("")
    ada.insert(d["id"], "Ada's", 0, actionName="Sign")
    group = ada.history(d["id"])["undoStack"][-1]["id"]
    with SSEStream(base, f"/documents/{d['id']}/events?lastEventId=1") as s:
        r = bob.undo(d["id"], scope="document")
        assert r.status_code == 200, r.text
        answer = r.json()
        assert answer["session"] == bob.id and answer["reverts"] == {"session": ada.id, "group": group}, answer
        # The broadcast says the same; Ada's context is the one whose history changed.
        change = s.next_change().json()
        assert change["session"] == bob.id and change["kind"] == "undo", change
        assert change["reverts"] == {"session": ada.id, "group": group} and change["partial"] is False, change
        note = s.next_of("history").json()
        assert note == {"notification": "didUndo", "session": ada.id, "revision": 2}, note
    # An anonymous redo stays anonymous; the group keeps its id on Ada's stack.
    r = anon.redo(d["id"], scope="document")
    assert r.status_code == 200 and r.json()["session"] is None, r.text
    assert r.json()["reverts"] == {"session": ada.id, "group": group}, r.text
    assert [e["id"] for e in ada.history(d["id"])["undoStack"]] == [group]
    listed = ada.changes(d["id"], since=0)
    assert "reverts" not in listed[0] and "partial" not in listed[0], listed
    assert [(c["session"], c["kind"], c.get("reverts")) for c in listed] == [
        (ada.id, "edit", None),
        (bob.id, "undo", {"session": ada.id, "group": group}),
        (None, "redo", {"session": ada.id, "group": group}),
    ], listed


def test_a_partial_undo_says_what_it_could_not_revert(base):
    ada, bob = new_session(base, "Ada"), new_session(base, "Bob")
    d = ada.create_doc("")
    ada.insert(d["id"], "hello world", 0, actionName="Greet")
    bob.edit(d["id"], {"delete": {"from": 5, "to": 11}})
    with SSEStream(base, f"/documents/{d['id']}/events?lastEventId=2") as s:
        r = ada.undo(d["id"])
        assert r.status_code == 200, r.text
        assert (r.json()["partial"], r.json()["notReverted"], r.json()["actionName"]) == (True, 6, "Greet"), r.text
        change = s.next_change().json()
        assert (change["partial"], change["notReverted"]) == (True, 6), change
    assert ada.text(d["id"]) == ""
    assert ada.changes(d["id"], since=2)[0]["notReverted"] == 6
    # A whole undo says so too.
    r = ada.redo(d["id"])
    assert r.status_code == 200 and (r.json()["partial"], r.json()["notReverted"]) == (False, 0), r.text
    assert ada.text(d["id"]) == "hello"


def test_a_selective_undo_reverts_one_older_group_of_my_own(base):
    ada, bob = new_session(base, "Ada"), new_session(base, "Bob")
    d = ada.create_doc("")
    ada.insert(d["id"], "alpha ", 0, actionName="Alpha")
    ada.insert(d["id"], "beta ", 6, actionName="Beta")
    bob.insert(d["id"], "[bob]", 0)
    ada.insert(d["id"], "gamma", len(ada.text(d["id"])), actionName="Gamma")
    stack = ada.history(d["id"])["undoStack"]
    assert [(e["id"], e["actionName"]) for e in stack] == [(1, "Alpha"), (2, "Beta"), (4, "Gamma")], stack
    r = _post_undo(ada, d["id"], "group=1")
    assert r.status_code == 200, r.text
    assert r.json()["actionName"] == "Alpha" and r.json()["reverts"] == {"session": ada.id, "group": 1}, r.text
    assert ada.text(d["id"]) == "[bob]beta gamma"
    h = ada.history(d["id"])
    assert [e["id"] for e in h["undoStack"]] == [2, 4] and [e["id"] for e in h["redoStack"]] == [1], h
    assert (h["undoMenuItemTitle"], h["redoMenuItemTitle"]) == ("Undo Gamma", "Redo Alpha"), h
    r = ada.redo(d["id"])
    assert r.status_code == 200 and r.json()["reverts"]["group"] == 1, r.text
    assert ada.text(d["id"]) == "[bob]alpha beta gamma"
    assert [e["id"] for e in ada.history(d["id"])["undoStack"]] == [2, 4, 1]


def test_a_selective_undo_takes_only_my_own_undo_stack(base):
    ada, bob = new_session(base, "Ada"), new_session(base, "Bob")
    anon = Client(base)
    d = ada.create_doc("")
    ada.insert(d["id"], "a", 0, actionName="A")
    bob.insert(d["id"], "b", 1, actionName="B")
    ada.insert(d["id"], "c", 2, actionName="C")
    assert ada.undo(d["id"]).status_code == 200
    with unchanged(ada, d["id"]):
        assert_error(_post_undo(ada, d["id"], "group=2"), 403, "not_your_group")
        assert_error(_post_undo(ada, d["id"], "group=3"), 409, "nothing_to_undo")
        assert_error(_post_undo(ada, d["id"], "group=999"), 404, "group_not_found")
        assert_error(_post_undo(anon, d["id"], "group=1"), 401)
        assert_error(_post_undo(ada, d["id"], "group=1&scope=document"), 400, "invalid_field")
        for bad in ["0", "-1", "1.0", "x", str(2**31), "99999999999999999999"]:
            assert_error(_post_undo(ada, d["id"], f"group={bad}"), 400, "invalid_field")
        assert_error(ada.post(f"/documents/{d['id']}/redo?group=1", {}), 400, "invalid_field")
        assert_error(_post_undo(ada, d["id"], "nested=maybe"), 400, "invalid_field")
        assert_error(_post_undo(ada, d["id"], "nested=true&group=1"), 400, "invalid_field")


def test_undo_nested_group_undoes_the_last_closed_nested_group(base):
    ada = new_session(base, "Ada")
    d = ada.create_doc("")
    groups = f"/documents/{d['id']}/history/groups"
    assert ada.post(groups).json() == {"groupingLevel": 1}
    ada.insert(d["id"], "outer ", 0)
    assert ada.post(groups).json() == {"groupingLevel": 2}
    ada.insert(d["id"], "inner", 6)
    assert ada.delete(groups).json() == {"groupingLevel": 1}
    r = _post_undo(ada, d["id"], "nested=true")
    assert r.status_code == 200, r.text
    assert ada.text(d["id"]) == "outer "
    # The outer group is still open, and a nested undo with its own change on top is refused.
    assert ada.history(d["id"])["groupingLevel"] == 1
    ada.insert(d["id"], "more", 6)
    with unchanged(ada, d["id"]):
        assert_error(_post_undo(ada, d["id"], "nested=true"), 409, "group_open")


def test_who_undid_what_survives_a_restart(servers):
    srv = servers(name="undo-truth-restart")
    ada, bob = new_session(srv.base, "Ada"), new_session(srv.base, "Bob")
    d = ada.create_doc("")
    ada.insert(d["id"], "hello world", 0, actionName="Greet")
    ada.insert(d["id"], "!", 11, actionName="Bang")
    bob.edit(d["id"], {"delete": {"from": 5, "to": 11}})
    assert _post_undo(ada, d["id"], "group=1").json()["notReverted"] == 6
    assert bob.undo(d["id"], scope="document").status_code == 200   # Bob's delete
    before = ada.changes(d["id"], since=0)
    history = ada.history(d["id"])
    srv.restart()
    ada2 = Client(srv.base, token=ada.token, session=ada.session)
    assert ada2.changes(d["id"], since=0) == before
    assert ada2.history(d["id"]) == history


def test_seeded_sessions_find_titles_and_unsaved_state_true_after_every_step(base):
    """Three sessions do random edits, undos, redos, selective undos, group opens and closes,
    and saves over the API. Before each undo (redo) the caller's title names what it then
    reverts; after every step `hasUnsavedChanges` is exactly "the text differs from the last
    saved version", and `changeCount` is never 0 while it is true."""
    import random
    for seed in (1, 2, 3):
        rng = random.Random(seed)
        people = [new_session(base, f"P{i}") for i in range(3)]
        d = people[0].create_doc("")
        doc_id = d["id"]
        saved = ""
        text = ""
        fresh = iter(chr(c) for c in range(0x4E00, 0x9FFF))
        for step in range(90):
            p = rng.choice(people)
            roll = rng.random()
            if roll < 0.45:
                at = rng.randint(0, len(text))
                if text and rng.random() < 0.3:
                    to = min(len(text), at + rng.randint(1, 3))
                    p.edit(doc_id, {"delete": {"from": at, "to": to}} if at < to else {"insert": next(fresh), "at": at})
                else:
                    extra = {"actionName": f"g{step}"} if rng.random() < 0.5 else {}
                    p.insert(doc_id, "".join(next(fresh) for _ in range(rng.randint(1, 3))), at, **extra)
            elif roll < 0.75:
                kind = "undo" if roll < 0.62 else "redo"
                h = p.history(doc_id)
                offered, can = h[f"{kind}ActionName"], h["canUndo" if kind == "undo" else "canRedo"]
                r = p.post(f"/documents/{doc_id}/{kind}", {})
                if r.status_code == 200:
                    assert can and r.json()["actionName"] == offered, (seed, step, h, r.text)
                else:
                    assert r.status_code == 409 and (not can or r.json()["error"]["code"] == "group_open"), (seed, step, h, r.text)
            elif roll < 0.82:
                h = p.history(doc_id)
                if h["undoStack"]:
                    entry = rng.choice(h["undoStack"])
                    r = p.post(f"/documents/{doc_id}/undo?group={entry['id']}", {})
                    if r.status_code == 200:
                        assert r.json()["reverts"] == {"session": p.id, "group": entry["id"]}, r.text
                    else:
                        # The walk decides: two open levels refuse it, else the group was one others erased.
                        assert_error(r, 409, "group_open" if h["groupingLevel"] >= 2 else "nothing_to_undo")
            elif roll < 0.88:
                level = p.history(doc_id)["groupingLevel"]
                r = p.post(f"/documents/{doc_id}/history/groups") if level == 0 else p.delete(f"/documents/{doc_id}/history/groups")
                assert r.status_code == 200, r.text
            else:
                assert p.post(f"/documents/{doc_id}/save").status_code == 201
                saved = p.text(doc_id)
            for q in people:
                doc = q.doc(doc_id)
                text = doc["text"]
                assert doc["hasUnsavedChanges"] is (text != saved), (seed, step, doc, saved)
                if doc["hasUnsavedChanges"]:
                    assert doc["changeCount"] != 0, (seed, step, doc)
