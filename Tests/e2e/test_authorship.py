"""Who wrote what, and what changed (issue 42): the authorship of a document's text, now and at
an earlier revision, kept through undo and a restart; the changes between two saved versions;
and history entries that say what each did."""

from __future__ import annotations

from tandem_client import Client, describe, new_session, unique


def shown(answer: dict, text: str) -> list[str]:
    """Each run as "author-name:text"."""
    names = {a["id"]: a["name"] for a in answer["authors"]}
    return [f"{names.get(r['author'], '?') if r['author'] else '?'}:{text[r['from']:r['to']]}" for r in answer["runs"]]


def authorship(client: Client, doc: str, **params) -> dict:
    r = client.get(f"/documents/{doc}/authorship", params=params or None)
    assert r.status_code == 200, describe(r)
    return r.json()


def test_each_persons_text_is_theirs_and_text_an_undo_restores_keeps_its_writer(servers):
    srv = servers(name="authorship")
    ada, bob = new_session(srv.base, "Ada"), new_session(srv.base, "Bob")
    doc = unique("auth")
    r = ada.post("/documents", {"id": doc, "text": "Title\n", "access": "open"})
    assert r.status_code == 201, describe(r)
    ada.insert(doc, "Hello", 6)
    bob.insert(doc, " world", 11)
    # Bob deletes Ada's word, then undoes that: "Hello" is Ada's again.
    r = bob.edit(doc, {"delete": {"from": 6, "to": 11}, "newGroup": True})
    assert ada.text(doc) == "Title\n world"
    assert bob.undo(doc, scope="session").status_code == 200
    text = ada.text(doc)
    assert text == "Title\nHello world"
    now = authorship(bob, doc)
    assert shown(now, text) == ["Ada:Title\nHello", "Bob: world"]
    assert {a["name"] for a in now["authors"]} == {"Ada", "Bob"}
    assert all(a["color"] for a in now["authors"])
    # An earlier revision still in the log: as it was.
    then = authorship(bob, doc, revision=1)
    assert then["revision"] == 1
    assert shown(then, "Title\nHello") == ["Ada:Title\nHello"]
    # The same after a restart: kept with the snapshot and the log, not guessed.
    srv.restart()
    again = authorship(Client(srv.base, token=bob.token, session=bob.session), doc)
    assert [(r["from"], r["to"]) for r in again["runs"]] == [(r["from"], r["to"]) for r in now["runs"]]
    assert [r["author"] for r in again["runs"]] == [r["author"] for r in now["runs"]]


def test_authorship_refuses_what_it_cannot_answer(servers):
    srv = servers(name="authorship-refusals")
    ada = new_session(srv.base, "Ada")
    d = ada.create_doc("x")
    for bad in ("-1", "one", "1.5"):
        r = ada.get(f"/documents/{d['id']}/authorship", params={"revision": bad})
        assert r.status_code == 400, describe(r)
    r = ada.get(f"/documents/{d['id']}/authorship", params={"revision": "7"})
    assert r.status_code == 422 and r.json()["error"]["code"] == "revision_in_future", describe(r)
    r = Client(srv.base, as_owner=False).get("/documents/no-such-doc/authorship")
    assert r.status_code == 404, describe(r)


def test_the_diff_between_two_versions_says_what_each_person_inserted_and_deleted(servers):
    srv = servers(name="diffs")
    ada, bob = new_session(srv.base, "Ada"), new_session(srv.base, "Bob")
    doc = unique("diff")
    assert ada.post("/documents", {"id": doc, "text": "The cat sat.", "access": "open"}).status_code == 201
    v0 = ada.post(f"/documents/{doc}/save").json()["number"]
    bob.insert(doc, "black ", 4)
    ada.edit(doc, {"delete": {"from": 13, "to": 17}})
    ada.insert(doc, " slept", 13)
    assert ada.text(doc) == "The black cat slept."
    v1 = ada.post(f"/documents/{doc}/save").json()["number"]
    r = bob.get(f"/documents/{doc}/versions/{v0}/diff", params={"to": str(v1)})
    assert r.status_code == 200, describe(r)
    d = r.json()
    names = {a["id"]: a["name"] for a in d["authors"]}
    assert d["method"] == "log"
    assert d["from"]["version"] == v0 and d["to"]["version"] == v1
    assert [(c["kind"], c["at"], c["text"], names[c["author"]]) for c in d["changes"]] == [
        ("insert", 4, "black ", "Bob"), ("delete", 13, " sat", "Ada"), ("insert", 13, " slept", "Ada")]
    assert (d["inserted"], d["deleted"]) == (12, 4)
    # To the current text, which moved on since.
    bob.insert(doc, "!", 20)
    current = bob.get(f"/documents/{doc}/versions/{v1}/diff").json()
    assert current["to"]["version"] == "current"
    assert [(c["kind"], c["at"], c["text"]) for c in current["changes"]] == [("insert", 20, "!")]
    for bad in ({"to": "x"}, {"to": "-2"}):
        r = bob.get(f"/documents/{doc}/versions/{v0}/diff", params=bad)
        assert r.status_code == 400, describe(r)
    r = bob.get(f"/documents/{doc}/versions/99/diff")
    assert r.status_code == 404, describe(r)


def test_history_entries_say_what_they_inserted_and_deleted_and_when(servers):
    srv = servers(name="previews")
    ada = new_session(srv.base, "Ada")
    d = ada.create_doc("Dear Sir,\n")
    doc = d["id"]
    # One group (as an editor groups a burst of typing with its corrections).
    assert ada.post(f"/documents/{doc}/history/groups").status_code == 200
    for ch in "Thanks fro":
        ada.insert(doc, ch, len(ada.text(doc)))
    # A typo taken back with backspace is not part of what the group did.
    ada.edit(doc, {"delete": {"from": len(ada.text(doc)) - 2, "to": len(ada.text(doc))}})
    for ch in "rom you":
        ada.insert(doc, ch, len(ada.text(doc)))
    assert ada.delete(f"/documents/{doc}/history/groups").status_code == 200
    ada.edit(doc, {"delete": {"from": 0, "to": 5}, "newGroup": True})
    h = ada.history(doc)
    typing, deleting = h["undoStack"][-2], h["undoStack"][-1]
    assert typing["preview"] == {"position": 10, "inserted": "Thanks from you", "deleted": "",
                                 "insertedCount": 15, "deletedCount": 0}
    assert deleting["preview"] == {"position": 0, "inserted": "", "deleted": "Dear ", "insertedCount": 0, "deletedCount": 5}
    assert typing["time"] > 1.7e9 and deleting["time"] >= typing["time"]
    # A redo entry tells what redoing does.
    assert ada.undo(doc).status_code == 200
    redo = ada.history(doc)["redoStack"][-1]
    assert redo["preview"]["deleted"] == "Dear " and redo["preview"]["inserted"] == ""
    # Long text is cut at 40 units, with the whole count beside it.
    ada.insert(doc, "x" * 100, 0, newGroup=True)
    long = ada.history(doc)["undoStack"][-1]["preview"]
    assert long["inserted"] == "x" * 40 and long["insertedCount"] == 100


def _wait_trimmed(client: Client, doc: str, revision: int, seconds: float = 15):
    """The log is trimmed in the server's once-a-second housekeeping."""
    import time
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        r = client.get(f"/documents/{doc}/authorship", params={"revision": revision})
        if r.status_code == 410:
            return r
        time.sleep(0.2)
    raise AssertionError(f"revision {revision} was not trimmed from the log")


def test_a_saved_version_keeps_its_authors_after_the_log_no_longer_reaches_it(servers):
    """A version stores who wrote its text: `?version=` answers from the log while it reaches
    the version and from what was stored after, also across a restart; a diff by text past the
    log names the writers of each stretch from the two sides' stored authors."""
    srv = servers(name="version-authors", extra_args=("--log-kept", "2", "--archive-bytes", "0"))
    ada, bob = new_session(srv.base, "Ada"), new_session(srv.base, "Bob")
    doc = unique("vauth")
    assert ada.post("/documents", {"id": doc, "text": "one\n", "access": "open"}).status_code == 201
    bob.insert(doc, "two\n", 4)
    r = ada.post(f"/documents/{doc}/save", {"name": "Two lines"})
    assert r.status_code == 201, describe(r)
    v1 = r.json()
    # While the log reaches it, from the log.
    logged = authorship(bob, doc, version=v1["number"])
    assert (logged["revision"], logged["version"]) == (v1["revision"], v1["number"])
    assert shown(logged, "one\ntwo\n") == ["Ada:one\n", "Bob:two\n"]
    for i in range(4):
        ada.insert(doc, f"{i}", 8 + i)
    bob.insert(doc, "three\n", 12)
    # A revision past the log that no version has is gone; one a version has is answered.
    r = _wait_trimmed(bob, doc, v1["revision"] + 1)
    assert r.json()["error"]["code"] == "revision_trimmed" and "no saved version" in r.json()["error"]["message"]
    for who in ("before", "after a restart"):
        for ask in ({"version": v1["number"]}, {"revision": v1["revision"]}):
            stored = authorship(bob, doc, **ask)
            assert (stored["revision"], stored["version"]) == (v1["revision"], v1["number"]), (who, ask)
            assert shown(stored, "one\ntwo\n") == ["Ada:one\n", "Bob:two\n"], (who, ask)
        d = bob.get(f"/documents/{doc}/versions/{v1['number']}/diff").json()
        names = {a["id"]: a["name"] for a in d["authors"]}
        assert d["method"] == "text", who
        assert [(c["kind"], c["at"], c["text"], names.get(c["author"])) for c in d["changes"]] == [
            ("insert", 8, "0123", "Ada"), ("insert", 12, "three\n", "Bob")], who
        srv.restart()
        bob = Client(srv.base, token=bob.token, session=bob.session)
    for bad in ({"version": "x"}, {"version": "-1"}, {"version": "1", "revision": "1"}):
        r = bob.get(f"/documents/{doc}/authorship", params=bad)
        assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_field", describe(r)
    r = bob.get(f"/documents/{doc}/authorship", params={"version": "99"})
    assert r.status_code == 404, describe(r)
