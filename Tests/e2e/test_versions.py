"""Versions and the saveless model: save, autosave, revert, change counts across restarts,
and the locks behind them (a save, copy, cut or PATCH never blocks the edits of others)."""

from __future__ import annotations

import contextlib
import threading
import time

import pytest
import requests

from sse import SSEStream
from tandem_client import Client, assert_error, change_list, describe, new_session
from utf16 import apply_ops

REQUEST_TIMEOUT = 10  # seconds; a request that takes this long is stuck, not slow


def _versions(client: Client, doc_id: str) -> list[dict]:
    r = client.get(f"/documents/{doc_id}/versions")
    assert r.status_code == 200, describe(r)
    return r.json()


def _wait_for(predicate, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {seconds} s waiting for {what}")


@pytest.mark.timeout(120)
def test_saves_copies_cuts_and_patches_never_deadlock_with_concurrent_edits(servers):
    """The store has one writer thread, which takes a document's lock to publish each commit.
    A handler that waited for the store while holding that lock (a save, a copy or cut onto
    the persistent general pasteboard, a PATCH) would hang forever as soon as another
    session's edit was waiting for its commit. Many editors plus all of those, on one
    document, for a few seconds: every request must be answered."""
    srv = servers(name="no-deadlock")
    setup = Client(srv.base)
    doc_id = setup.create_doc("x" * 200)["id"]
    stop = threading.Event()
    failures: list[str] = []
    counts: dict[str, int] = {}
    lock = threading.Lock()

    def record(kind: str, r: requests.Response | None, ok: tuple[int, ...], error: str | None = None):
        with lock:
            if r is None:
                failures.append(f"{kind}: {error}")
            elif r.status_code not in ok:
                failures.append(f"{kind}: {describe(r)}")
            else:
                counts[kind] = counts.get(kind, 0) + 1

    def loop(kind: str, ok: tuple[int, ...], call):
        client = new_session(srv.base, kind)
        i = 0
        while not stop.is_set():
            try:
                r = call(client, i)
            except requests.RequestException as e:
                record(kind, None, ok, f"no answer within {REQUEST_TIMEOUT} s ({e.__class__.__name__})")
                stop.set()
                return
            record(kind, r, ok)
            i += 1

    def edit(c, i):
        return c.post(f"/documents/{doc_id}/edits", {"insert": "ab", "at": 0}, timeout=REQUEST_TIMEOUT)

    def save(c, i):
        return c.post(f"/documents/{doc_id}/save", timeout=REQUEST_TIMEOUT)

    def copy(c, i):
        return c.post(f"/documents/{doc_id}/copy", {"from": 0, "to": 5}, timeout=REQUEST_TIMEOUT)

    def cut(c, i):
        return c.post(f"/documents/{doc_id}/cut", {"from": 0, "to": 1}, timeout=REQUEST_TIMEOUT)

    def patch(c, i):
        return c.patch(f"/documents/{doc_id}", {"title": f"title {i}"}, timeout=REQUEST_TIMEOUT)

    workers = [("edit", (200,), edit)] * 6 + [("save", (201,), save)] * 2 + [("copy", (200,), copy)] * 2 \
        + [("cut", (200,), cut)] * 2 + [("patch", (200,), patch)]
    threads = [threading.Thread(target=loop, args=w, daemon=True) for w in workers]
    for t in threads:
        t.start()
    time.sleep(5)
    stop.set()
    for t in threads:
        t.join(timeout=REQUEST_TIMEOUT + 5)
    assert not any(t.is_alive() for t in threads), "a worker is still waiting for an answer"
    assert not failures, f"{len(failures)} requests failed, e.g. {failures[:5]}"
    for kind in ("edit", "save", "copy", "cut", "patch"):
        assert counts.get(kind, 0) > 0, f"no {kind} completed: {counts}"
    # Still healthy, and the document is what its log says.
    doc = setup.doc(doc_id)
    text = "x" * 200
    for c in setup.changes(doc_id):
        text = apply_ops(text, c["ops"])
    assert doc["text"] == text


def test_a_read_revision_can_always_be_followed_with_edits_since(servers):
    """GET shows the committed state: a revision read there is one `edits?since=` can serve,
    even while other edits wait for their commit, and the text is the log's at that revision."""
    srv = servers(name="committed-reads")
    setup = Client(srv.base)
    doc_id = setup.create_doc("")["id"]
    stop = threading.Event()
    errors: list[str] = []

    def write():
        c = Client(srv.base)
        while not stop.is_set():
            r = c.post(f"/documents/{doc_id}/edits", {"insert": "z", "at": 0}, timeout=REQUEST_TIMEOUT)
            if r.status_code != 200:
                errors.append(describe(r))

    writers = [threading.Thread(target=write, daemon=True) for _ in range(4)]
    for t in writers:
        t.start()
    reader = Client(srv.base)
    try:
        checked = 0
        deadline = time.monotonic() + 4
        while time.monotonic() < deadline:
            doc = reader.doc(doc_id)
            assert doc["length"] == len(doc["text"]) == doc["revision"], doc
            r = reader.get(f"/documents/{doc_id}/edits", params={"since": doc["revision"]})
            assert r.status_code == 200, describe(r)
            t = reader.get(f"/documents/{doc_id}/text")
            assert t.status_code == 200, describe(t)
            # A compressed answer carries the weak form of the tag (W/"n").
            assert int(t.headers["ETag"].removeprefix("W/").strip('"')) == len(t.text)
            checked += 1
        assert checked > 10
    finally:
        stop.set()
        for t in writers:
            t.join(timeout=REQUEST_TIMEOUT + 5)
    assert not errors, errors[:5]


def test_revert_to_version_is_one_undoable_change(servers):
    srv = servers(name="revert")
    ada = new_session(srv.base, "Ada")
    doc_id = ada.create_doc("first draft")["id"]
    ada.insert(doc_id, " plus more", 11)
    r = ada.post(f"/documents/{doc_id}/save")
    assert r.status_code == 201, describe(r)
    saved = r.json()
    assert saved["revision"] == 1 and saved["length"] == len("first draft plus more")
    ada.edit(doc_id, {"delete": {"from": 0, "to": 6}, "newGroup": True})
    ada.insert(doc_id, "!", 15, newGroup=True)
    assert ada.text(doc_id) == "draft plus more!"
    before = ada.doc(doc_id)["revision"]

    r = ada.post(f"/documents/{doc_id}/versions/{saved['number']}/revert")
    assert r.status_code == 200, describe(r)
    assert r.json()["revision"] == before + 1
    assert ada.text(doc_id) == "first draft plus more"
    history = ada.history(doc_id)
    assert history["undoActionName"] == "Revert to Version"
    assert history["undoMenuItemTitle"] == "Undo Revert to Version"

    r = ada.undo(doc_id)
    assert r.status_code == 200, describe(r)
    assert r.json()["actionName"] == "Revert to Version"
    assert ada.text(doc_id) == "draft plus more!"
    r = ada.redo(doc_id)
    assert r.status_code == 200, describe(r)
    assert ada.text(doc_id) == "first draft plus more"
    # One change each, in the log, with their names.
    kinds = [(c["kind"], c["actionName"]) for c in change_list(ada.changes(doc_id, since=before))]
    assert kinds == [("edit", "Revert to Version"), ("undo", "Revert to Version"), ("redo", "Revert to Version")]
    # A missing version is 404 and changes nothing.
    r = ada.post(f"/documents/{doc_id}/versions/99/revert")
    assert r.status_code == 404, describe(r)
    assert ada.text(doc_id) == "first draft plus more"


@pytest.mark.timeout(60)
def test_autosave_writes_a_version_once_edits_go_quiet(servers):
    srv = servers(name="autosave")
    anon = Client(srv.base)
    doc_id = anon.create_doc("quiet")["id"]
    assert _versions(anon, doc_id) == []
    assert anon.doc(doc_id)["hasUnsavedChanges"] is False
    anon.insert(doc_id, " now", 5)
    anon.insert(doc_id, "!", 9)
    assert anon.doc(doc_id)["hasUnsavedChanges"] is True
    # Autosave waits for two quiet seconds; give it ample time on a busy machine.
    versions = _wait_for(lambda: _versions(anon, doc_id), 20, "an autosaved version")
    assert len(versions) == 1
    assert versions[0]["revision"] == 2 and versions[0]["name"] is None
    assert versions[0]["automatic"] is True and versions[0]["since"] == versions[0]["time"]
    r = anon.get(f"/documents/{doc_id}/versions/{versions[0]['number']}/text")
    assert r.status_code == 200 and r.text == "quiet now!", describe(r)
    doc = anon.doc(doc_id)
    assert (doc["changeCount"], doc["hasUnsavedChanges"]) == (0, False)
    # Nothing changed since: no second version.
    time.sleep(3)
    assert len(_versions(anon, doc_id)) == 1


@pytest.mark.timeout(60)
@pytest.mark.parametrize("stop", ["restart", "kill"])
def test_a_saved_document_stays_saved_across_a_restart(servers, stop):
    """The cleared change count of a save changes no text; it is stored at once, so after a
    clean restart or a crash the document is still saved and autosave adds no version."""
    srv = servers(name=f"saved-{stop}")
    anon = Client(srv.base)
    doc_id = anon.create_doc("abc")["id"]
    anon.insert(doc_id, "d", 3)
    r = anon.post(f"/documents/{doc_id}/save")
    assert r.status_code == 201, describe(r)
    doc = anon.doc(doc_id)
    assert (doc["changeCount"], doc["hasUnsavedChanges"]) == (0, False)
    if stop == "kill":
        srv.kill()
        srv.start()
    else:
        srv.restart()
    anon = Client(srv.base)
    doc = anon.doc(doc_id)
    assert (doc["text"], doc["revision"]) == ("abcd", 1)
    assert (doc["changeCount"], doc["hasUnsavedChanges"]) == (0, False), doc
    # Longer than autosave's quiet time: no duplicate version appears.
    time.sleep(3.5)
    assert len(_versions(anon, doc_id)) == 1
    # And counting goes on from there.
    anon.insert(doc_id, "e", 4)
    assert anon.doc(doc_id)["changeCount"] == 1


@pytest.mark.timeout(60)
@pytest.mark.parametrize("stop", ["restart", "kill"])
def test_an_ended_sessions_groups_do_not_come_back_after_a_restart(servers, stop):
    srv = servers(name=f"ended-{stop}")
    ada, bob = new_session(srv.base, "Ada"), new_session(srv.base, "Bob")
    doc_id = ada.create_doc("")["id"]
    bob.insert(doc_id, "bob ", 0)
    ada.insert(doc_id, "ada", 4, newGroup=True)
    assert ada.history(doc_id, scope="document")["undoStack"].__len__() == 2
    r = ada.delete("/sessions/me")
    assert r.status_code == 204, describe(r)
    anon = Client(srv.base)
    stack = anon.history(doc_id, scope="document")["undoStack"]
    assert [e["session"] for e in stack] == [bob.id]
    if stop == "kill":
        srv.kill()
        srv.start()
    else:
        srv.restart()
    anon = Client(srv.base)
    stack = anon.history(doc_id, scope="document")["undoStack"]
    assert [e["session"] for e in stack] == [bob.id], stack
    # Document-scope undo takes Bob's group: Ada's is gone for good.
    r = anon.undo(doc_id, scope="document")
    assert r.status_code == 200, describe(r)
    assert anon.text(doc_id) == "ada"
    r = anon.undo(doc_id, scope="document")
    assert r.status_code == 409, describe(r)


def _events(srv, client: Client, doc_id: str):
    """The document's event stream as `client` opens it, closed when the block ends."""
    return contextlib.closing(SSEStream(srv.base, f"/documents/{doc_id}/events",
                                        headers={"Authorization": f"Bearer {client.token}"}))


def _next_event(stream: SSEStream, kind: str, seconds: float = 20):
    deadline = time.monotonic() + seconds
    while True:
        event = stream.next_event(timeout=max(0.1, deadline - time.monotonic()))
        if event.type == kind:
            return event.json()


@pytest.mark.timeout(120)
def test_autosave_checkpoints_collapse_into_one_while_saves_made_on_purpose_stay(servers):
    """Autosave keeps the text saved without a version per pause: its checkpoint takes the
    place of the one before it (a new number, the same `since`) until a save made on purpose,
    named or not, which no checkpoint replaces; and so on after a restart."""
    srv = servers(name="checkpoints")
    ada = new_session(srv.base, "Ada")
    doc_id = ada.create_doc("")["id"]
    with _events(srv, ada, doc_id) as events:
        ada.insert(doc_id, "a", 0)
        first = _next_event(events, "saved")
        assert (first["automatic"], first["name"], first["replaced"], first["since"]) == (True, None, None, first["time"])
        ada.insert(doc_id, "b", 1)
        second = _next_event(events, "saved")
        assert second["number"] == first["number"] + 1
        assert (second["automatic"], second["replaced"], second["since"]) == (True, first["number"], first["since"])
        assert [v["number"] for v in _versions(ada, doc_id)] == [second["number"]]
        assert_error(ada.get(f"/documents/{doc_id}/versions/{first['number']}/text"), 404, "not_found")
        # A named save stays, and so does one without a name (nothing typed between, so no
        # autosave can come first).
        r = ada.post(f"/documents/{doc_id}/save", {"name": "First draft ✓"})
        assert r.status_code == 201, describe(r)
        named = r.json()
        assert (named["name"], named["automatic"], named["since"], named["length"]) == ("First draft ✓", False, None, 2)
        r = ada.post(f"/documents/{doc_id}/save")
        assert r.status_code == 201, describe(r)
        plain = r.json()
        assert (plain["name"], plain["automatic"]) == (None, False)
        ada.insert(doc_id, "d", 2)
        third = _next_event(events, "saved")
        while third["automatic"] is False:     # the two saves above
            third = _next_event(events, "saved")
        assert (third["replaced"], third["since"]) == (None, third["time"])
    listed = _versions(ada, doc_id)
    assert [(v["number"], v["automatic"], v["name"]) for v in listed] == [
        (second["number"], True, None), (named["number"], False, "First draft ✓"),
        (plain["number"], False, None), (third["number"], True, None)]
    # The newest checkpoint is read back from the store after a restart, and still replaced.
    srv.restart()
    ada = Client(srv.base, token=ada.token, session=ada.session)
    ada.insert(doc_id, "e", 3)
    after = _wait_for(lambda: [v for v in _versions(ada, doc_id) if v["length"] == 4], 20, "the next checkpoint")[0]
    assert (after["automatic"], after["since"]) == (True, third["since"])
    assert [v["number"] for v in _versions(ada, doc_id)] == [second["number"], named["number"], plain["number"], after["number"]]


def test_a_version_name_is_checked_where_it_is_read(servers):
    srv = servers(name="version-names")
    ada = new_session(srv.base, "Ada")
    doc_id = ada.create_doc("text")["id"]
    for body in ({"name": ""}, {"name": "x" * 201}, {"name": 5}, {"title": "x"}, {"name": " \t\u3000"}):
        assert_error(ada.post(f"/documents/{doc_id}/save", body), 400, "invalid_field")
    assert _versions(ada, doc_id) == []
    r = ada.post(f"/documents/{doc_id}/save", {"name": "é" * 200})
    assert r.status_code == 201 and r.json()["name"] == "é" * 200, describe(r)
    r = ada.post(f"/documents/{doc_id}/save", {"name": None})
    assert r.status_code == 201 and r.json()["name"] is None, describe(r)


@pytest.mark.timeout(90)
def test_a_named_checkpoint_is_kept_and_no_later_one_replaces_it(servers):
    srv = servers(name="name-checkpoint")
    ada = new_session(srv.base, "Ada")
    doc_id = ada.create_doc("")["id"]
    with _events(srv, ada, doc_id) as events:
        ada.insert(doc_id, "a", 0)
        checkpoint = _next_event(events, "saved")
        assert checkpoint["automatic"] is True
        n = checkpoint["number"]
        r = ada.patch(f"/documents/{doc_id}/versions/{n}", {"name": "Before the rewrite"})
        assert r.status_code == 200, describe(r)
        named = r.json()
        assert (named["number"], named["name"], named["automatic"], named["since"]) == (
            n, "Before the rewrite", False, checkpoint["since"])
        heard = _next_event(events, "version")
        assert (heard["number"], heard["name"], heard["automatic"]) == (n, "Before the rewrite", False)
        ada.insert(doc_id, "b", 1)
        after = _next_event(events, "saved")
        assert (after["number"], after["replaced"], after["since"]) == (n + 1, None, after["time"])
    assert [(v["number"], v["name"], v["automatic"]) for v in _versions(ada, doc_id)] == [
        (n, "Before the rewrite", False), (n + 1, None, True)]
    # Taking the name away keeps it kept.
    r = ada.patch(f"/documents/{doc_id}/versions/{n}", {"name": None})
    assert r.status_code == 200 and (r.json()["name"], r.json()["automatic"]) == (None, False), describe(r)
    # Refusals change nothing.
    for body in ({}, {"name": ""}, {"name": "x" * 201}, {"name": 3}, {"name": "x", "title": "y"}):
        assert_error(ada.patch(f"/documents/{doc_id}/versions/{n}", body), 400, "invalid_field")
    assert_error(ada.patch(f"/documents/{doc_id}/versions/{n}"), 400, "missing_body")
    assert_error(ada.patch(f"/documents/{doc_id}/versions/99", {"name": "x"}), 404, "not_found")
    assert_error(ada.patch(f"/documents/{doc_id}/versions/x", {"name": "x"}), 400, "invalid_field")
    assert [(v["number"], v["name"], v["automatic"]) for v in _versions(ada, doc_id)] == [
        (n, None, False), (n + 1, None, True)]


@pytest.mark.timeout(90)
def test_versions_past_their_budget_drop_the_oldest_checkpoints_then_refuse_and_the_owner_makes_room(servers):
    """--version-bytes bounds what a document's versions hold: a save first drops the oldest
    autosave checkpoints (the saved event lists them), never a save made on purpose; one that
    still does not fit is 507 versions_full and changes nothing; the owner deletes a version
    to make room, and every window hears of it."""
    srv = servers(name="version-budget", extra_args=("--version-bytes", "4096"))
    ada, bob = new_session(srv.base, "Ada", as_owner=False), new_session(srv.base, "Bob", as_owner=False)
    r = ada.post("/documents", {"text": "x" * 1000, "access": "open"})
    assert r.status_code == 201, describe(r)
    doc_id = r.json()["id"]
    with _events(srv, ada, doc_id) as events:
        first = ada.post(f"/documents/{doc_id}/save", {"name": "A"}).json()
        ada.insert(doc_id, "y", 0)
        checkpoint = _next_event(events, "saved")
        while checkpoint["number"] == first["number"]:
            checkpoint = _next_event(events, "saved")
        assert checkpoint["automatic"] is True
        second = ada.post(f"/documents/{doc_id}/save", {"name": "B"}).json()
        # A third of ~1.3 KB does not fit beside three: the checkpoint makes room.
        r = ada.post(f"/documents/{doc_id}/save", {"name": "C"})
        assert r.status_code == 201, describe(r)
        third = r.json()
        heard = _next_event(events, "saved")
        while heard["number"] != third["number"]:
            heard = _next_event(events, "saved")
        assert (heard["dropped"], heard["replaced"]) == ([checkpoint["number"]], None)
        kept = [v["number"] for v in _versions(ada, doc_id)]
        assert kept == [first["number"], second["number"], third["number"]]
        # Nothing automatic is left to drop: refused, and nothing changed.
        assert_error(ada.post(f"/documents/{doc_id}/save", {"name": "D"}), 507, "versions_full")
        assert [v["number"] for v in _versions(ada, doc_id)] == kept
        # Nor is there room for autosave's checkpoint: the document stays unsaved (its text is
        # durable in the change log all the same) and autosave waits.
        ada.insert(doc_id, "z", 0)
        time.sleep(4)
        assert [v["number"] for v in _versions(ada, doc_id)] == kept
        assert ada.doc(doc_id)["hasUnsavedChanges"] is True
        # Only the owner deletes a version; Bob may edit this open document, not that.
        assert_error(bob.delete(f"/documents/{doc_id}/versions/{second['number']}"), 403)
        r = ada.delete(f"/documents/{doc_id}/versions/{second['number']}")
        assert r.status_code == 204, describe(r)
        assert _next_event(events, "versionRemoved") == {"number": second["number"]}
        assert_error(ada.delete(f"/documents/{doc_id}/versions/{second['number']}"), 404, "not_found")
        r = ada.post(f"/documents/{doc_id}/save", {"name": "D"})
        assert r.status_code == 201, describe(r)
        assert ada.doc(doc_id)["hasUnsavedChanges"] is False
    assert [v["name"] for v in _versions(ada, doc_id)] == ["A", "C", "D"]
