"""Every acknowledgement is durable: with the data folder on a full 2 MiB tmpfs, each kind of
mutation (sessions, pasteboards, documents and their metadata, versions, undo settings)
answers exactly 503 storage_failing and changes nothing, in memory or after a crash and
restart, while /healthz says the store is failing; once the disk has room, /healthz is ok
again and the same request is acknowledged and survives a crash."""

from __future__ import annotations

import os
import re

import pytest
import requests

from tandem_client import Client, assert_error, describe, new_session
from tandem_server import TandemServer
from test_storage_failure import RECOVERY_WAIT, _fill, small_disk_server  # noqa: F401 (a fixture)

BIG = "y" * 60_000  # a document this large needs WAL frames a full disk does not have


def _fill_until_the_store_fails(srv: TandemServer) -> None:
    """Fills the disk, then creates throwaway documents until the store refuses one, so the
    store is known to be failing before the request under test. (SQLite may still have room
    in pages it already holds, so the first writes after filling may succeed.)"""
    _fill(srv.data / "filler")
    anon = Client(srv.base)
    for i in range(50):
        r = anon.post("/documents", {"text": BIG, "title": f"ballast {i}"})
        if r.status_code == 503:
            assert_error(r, 503, "storage_failing")
            return
        assert r.status_code == 201, describe(r)
    pytest.fail("50 large documents on a full 2 MiB disk were all stored")


def _health(srv: TandemServer) -> requests.Response:
    return requests.get(srv.url("/healthz"), timeout=10)


def _assert_store_failing(srv: TandemServer) -> None:
    r = _health(srv)
    assert r.status_code == 503, describe(r)
    body = r.json()
    assert (body["status"], body["store"]) == ("failing", "failing"), body
    assert body["reason"] and body["since"] > 0, body


def _wait_store_ok(srv: TandemServer) -> None:
    """/healthz answers 200 with the store ok once the disk has room again."""
    import time
    deadline = time.monotonic() + RECOVERY_WAIT
    while True:
        r = _health(srv)
        if r.status_code == 200:
            assert (r.json()["status"], r.json()["store"]) == ("ok", "ok"), r.json()
            return
        assert r.status_code == 503, describe(r)
        assert time.monotonic() < deadline, f"/healthz still failing {RECOVERY_WAIT} s after the disk had room"
        time.sleep(0.2)


def _crash_and_start(srv: TandemServer, *clients: Client) -> None:
    """kill -9 (nothing gets flushed or retried on the way out), the disk's room back, a new
    process on the same data; the clients follow it to its new port."""
    srv.kill()
    if (srv.data / "filler").exists():
        os.remove(srv.data / "filler")
    srv.start()
    for c in clients:
        c.base = srv.base


def _refused_then_acknowledged(srv: TandemServer, observe, mutate, ok_status: int, clients: tuple[Client, ...]):
    """The contract for one mutation: refused with exactly 503 storage_failing while the disk
    is full, nothing visible changes then or after a crash; with room again it is answered
    `ok_status`, visibly changes something, and that survives a crash. Returns (before, after)."""
    _fill_until_the_store_fails(srv)
    before = observe()
    assert_error(mutate(), 503, "storage_failing")
    assert observe() == before, "a refused mutation changed what the server shows"
    _assert_store_failing(srv)

    os.remove(srv.data / "filler")
    _wait_store_ok(srv)
    _crash_and_start(srv, *clients)
    assert observe() == before, "after a restart the server shows a mutation it refused"

    r = mutate()
    assert r.status_code == ok_status, describe(r)
    after = observe()
    assert after != before, "the acknowledged mutation changed nothing visible"
    _crash_and_start(srv, *clients)
    assert observe() == after, "an acknowledged mutation was lost in a crash"
    return before, after


def _document(client: Client, doc_id: str):
    """What a reader sees of a document, less `state` (a refused write puts it in savingError
    until the store recovers) and `modified` (memory's edit time is not stored)."""
    r = client.get(f"/documents/{doc_id}")
    if r.status_code == 404:
        return None
    assert r.status_code == 200, describe(r)
    return {k: v for k, v in r.json().items() if k not in ("state", "modified")}


def _live_sessions(client: Client) -> float:
    r = client.get("/metrics")
    assert r.status_code == 200, describe(r)
    m = re.search(r"^tandem_sessions (\S+)$", r.text, re.M)
    assert m, "no tandem_sessions gauge in /metrics"
    return float(m.group(1))


# --- sessions ------------------------------------------------------------------------------

def test_a_session_is_not_created_while_the_store_fails(small_disk_server):
    srv = small_disk_server
    anon = Client(srv.base)
    new_session(srv.base, "Ada")

    def mutate():
        return anon.post("/sessions", {"name": "Bo"})

    before, after = _refused_then_acknowledged(srv, lambda: _live_sessions(anon), mutate, 201, (anon,))
    assert after == before + 1


def test_ending_a_session_is_refused_while_the_store_fails_and_the_token_keeps_working(small_disk_server):
    srv = small_disk_server
    ada = new_session(srv.base, "Ada")
    doc_id = ada.create_doc("shared\n")["id"]
    ada.insert(doc_id, "Ada's words ", 0, newGroup=True)
    assert ada.post(f"/documents/{doc_id}/save").status_code == 201  # nothing left to autosave
    r = ada.post("/pasteboards", {"name": "ada-notes", "persistent": True, "shared": "everyone"})
    assert r.status_code == 201, describe(r)
    r = ada.put("/pasteboards/ada-notes/items", [[{"type": "text/plain", "string": "kept"}]])
    assert r.status_code == 200, describe(r)
    r = ada.post("/pasteboards", {"name": "ada-scratch", "shared": "everyone"})
    assert r.status_code == 201, describe(r)
    r = ada.put(f"/documents/{doc_id}/selection", {"anchor": 0, "head": 3})
    assert r.status_code == 200, describe(r)

    anon = Client(srv.base)  # reads go on after the token is revoked

    def observe():
        notes = anon.get("/pasteboards/ada-notes")
        presence = anon.get(f"/documents/{doc_id}/presence")
        assert presence.status_code == 200, describe(presence)
        return {
            "me": ada.get("/sessions/me").status_code,
            "selection": [p.get("selection") for p in presence.json() if p.get("id") == ada.id],
            "undo": [(e["actionName"], e["session"]) for e in anon.history(doc_id, scope="document")["undoStack"]],
            "notes owner": notes.json()["owner"] if notes.status_code == 200 else notes.status_code,
            "scratch": anon.get("/pasteboards/ada-scratch").status_code,
        }

    _fill_until_the_store_fails(srv)
    before = observe()
    assert before == {"me": 200, "selection": [{"anchor": 0, "head": 3}], "undo": [("Typing", ada.id)],
                      "notes owner": ada.id, "scratch": 200}, before
    assert_error(ada.delete("/sessions/me"), 503, "storage_failing")
    assert observe() == before, "a refused DELETE /sessions/me ended something"
    _assert_store_failing(srv)

    os.remove(srv.data / "filler")
    _wait_store_ok(srv)
    _crash_and_start(srv, ada, anon)
    # A restart ends the transient pasteboard, never the session; a selection is not stored
    # (it comes back where the session's last change left it).
    restarted = observe()
    assert {**restarted, "selection": None} == {**before, "selection": None, "scratch": 404}, \
        "after a restart the refused end took effect"

    r = ada.delete("/sessions/me")
    assert r.status_code == 204, describe(r)
    after = {"me": 401, "selection": [], "undo": [], "notes owner": None, "scratch": 404}
    assert observe() == after
    _crash_and_start(srv, ada, anon)
    assert observe() == after, "an acknowledged DELETE /sessions/me was undone by a crash"


def test_a_session_is_not_renamed_while_the_store_fails(small_disk_server):
    srv = small_disk_server
    ada = new_session(srv.base, "Ada")

    def observe():
        r = ada.get("/sessions/me")
        assert r.status_code == 200, describe(r)
        return r.json()["name"]

    before, after = _refused_then_acknowledged(
        srv, observe, lambda: ada.patch("/sessions/me", {"name": "Grace"}), 200, (ada,))
    assert (before, after) == ("Ada", "Grace")


# --- pasteboards ---------------------------------------------------------------------------

def _persistent_pasteboard(srv: TandemServer) -> Client:
    ada = new_session(srv.base, "Ada")
    r = ada.post("/pasteboards", {"name": "notes", "persistent": True})
    assert r.status_code == 201, describe(r)
    r = ada.put("/pasteboards/notes/items", [[{"type": "text/plain", "string": "first"}]])
    assert r.status_code == 200, describe(r)
    return ada


def _pasteboards(client: Client):
    r = client.get("/pasteboards")
    assert r.status_code == 200, describe(r)
    boards = {p["name"]: p for p in r.json()}
    notes = client.get("/pasteboards/notes")
    return boards, notes.json() if notes.status_code == 200 else notes.status_code


@pytest.mark.parametrize("kind", ["set items", "add items", "copy", "make transient", "delete"])
def test_a_persistent_pasteboard_is_not_changed_while_the_store_fails(small_disk_server, kind):
    srv = small_disk_server
    ada = _persistent_pasteboard(srv)
    doc_id = ada.create_doc("copied text")["id"]
    mutations = {
        "set items": lambda: ada.put("/pasteboards/notes/items", [[{"type": "text/plain", "string": "second"}]]),
        "add items": lambda: ada.post("/pasteboards/notes/items", [[{"type": "text/plain", "string": "more"}]]),
        "copy": lambda: ada.post(f"/documents/{doc_id}/copy", {"from": 0, "to": 6, "pasteboard": "notes"}),
        "make transient": lambda: ada.patch("/pasteboards/notes", {"persistent": False}),
        "delete": lambda: ada.delete("/pasteboards/notes"),
    }
    if kind == "make transient":
        # A transient pasteboard is not stored: after a crash it is gone, as it should be.
        def observe():
            notes = ada.get("/pasteboards/notes")
            return notes.status_code == 200 and notes.json()["persistent"]
        before, after = _refused_then_acknowledged(srv, observe, mutations[kind], 200, (ada,))
        assert (before, after) == (True, False)
        return
    before, after = _refused_then_acknowledged(srv, lambda: _pasteboards(ada), mutations[kind],
                                               204 if kind == "delete" else 200, (ada,))
    assert before[1]["changeCount"] == 1


def test_a_persistent_pasteboard_is_not_created_while_the_store_fails(small_disk_server):
    srv = small_disk_server
    ada = new_session(srv.base, "Ada")

    def observe():
        return ada.get("/pasteboards/fresh").status_code

    before, after = _refused_then_acknowledged(
        srv, observe, lambda: ada.post("/pasteboards", {"name": "fresh", "persistent": True}), 201, (ada,))
    assert (before, after) == (404, 200)


# --- documents -----------------------------------------------------------------------------

def test_a_document_is_not_created_while_the_store_fails(small_disk_server):
    srv = small_disk_server
    anon = Client(srv.base)
    before, after = _refused_then_acknowledged(
        srv, lambda: _document(anon, "fresh"), lambda: anon.post("/documents", {"id": "fresh", "text": "new"}),
        201, (anon,))
    assert before is None and after["text"] == "new"


def test_a_document_is_not_deleted_while_the_store_fails(small_disk_server):
    srv = small_disk_server
    anon = Client(srv.base)
    doc_id = anon.create_doc("keep me")["id"]
    before, after = _refused_then_acknowledged(
        srv, lambda: _document(anon, doc_id), lambda: anon.delete(f"/documents/{doc_id}"), 204, (anon,))
    assert before["text"] == "keep me" and after is None


@pytest.mark.parametrize("field, value", [("title", "Renamed"), ("levelsOfUndo", 3), ("secure", True),
                                          ("editingDisabled", True)])
def test_document_metadata_is_not_changed_while_the_store_fails(small_disk_server, field, value):
    srv = small_disk_server
    anon = Client(srv.base)
    doc_id = anon.create_doc("metadata", title="Original")["id"]
    before, after = _refused_then_acknowledged(
        srv, lambda: _document(anon, doc_id), lambda: anon.patch(f"/documents/{doc_id}", {field: value}), 200, (anon,))
    assert before[field] != value and after[field] == value


# --- versions ------------------------------------------------------------------------------

def test_a_version_is_not_saved_while_the_store_fails(small_disk_server):
    srv = small_disk_server
    ada = new_session(srv.base, "Ada")
    doc_id = ada.create_doc("draft")["id"]

    def observe():
        r = ada.get(f"/documents/{doc_id}/versions")
        assert r.status_code == 200, describe(r)
        doc = ada.doc(doc_id)
        return [v["number"] for v in r.json()], doc["changeCount"], doc["hasUnsavedChanges"]

    # The edit is made with the disk already full (autosave would save it 2 s later).
    _fill_until_the_store_fails(srv)
    os.remove(srv.data / "filler")
    _wait_store_ok(srv)
    ada.insert(doc_id, "more ", 0)
    before, after = _refused_then_acknowledged(
        srv, observe, lambda: ada.post(f"/documents/{doc_id}/save"), 201, (ada,))
    assert before == ([], 1, True) and after == ([1], 0, False), (before, after)


# --- undo settings -------------------------------------------------------------------------

def _history(client: Client, doc_id: str, scope: str):
    h = client.history(doc_id, scope=scope)
    return {k: h[k] for k in ("levelsOfUndo", "groupingLevel", "undoActionName", "canUndo")} | {
        "undoStack": [(e["actionName"], e["revision"]) for e in h["undoStack"]]}


@pytest.mark.parametrize("kind", ["levelsOfUndo", "actionName", "begin group", "end group", "clear"])
def test_undo_settings_are_not_changed_while_the_store_fails(small_disk_server, kind):
    srv = small_disk_server
    ada = new_session(srv.base, "Ada")
    doc_id = ada.create_doc("undo me")["id"]
    ada.insert(doc_id, "one ", 0, newGroup=True)
    ada.insert(doc_id, "two ", 0, newGroup=True)
    assert ada.post(f"/documents/{doc_id}/save").status_code == 201  # nothing left to autosave
    if kind == "end group":
        r = ada.post(f"/documents/{doc_id}/history/groups")
        assert r.status_code == 200, describe(r)
    history = f"/documents/{doc_id}/history"
    mutations = {
        "levelsOfUndo": lambda: ada.patch(history, {"levelsOfUndo": 1}, params={"scope": "session"}),
        "actionName": lambda: ada.patch(history, {"actionName": "Renamed"}, params={"scope": "session"}),
        "begin group": lambda: ada.post(f"{history}/groups"),
        "end group": lambda: ada.delete(f"{history}/groups"),
        "clear": lambda: ada.delete(history, params={"scope": "session"}),
    }
    _refused_then_acknowledged(srv, lambda: _history(ada, doc_id, "session"), mutations[kind], 200, (ada,))


# --- health --------------------------------------------------------------------------------

def test_healthz_is_ok_with_a_store_that_commits(small_disk_server):
    r = _health(small_disk_server)
    assert r.status_code == 200, describe(r)
    assert (r.json()["status"], r.json()["store"]) == ("ok", "ok")


# --- undo state replayed after a crash -----------------------------------------------------

def test_an_open_undo_group_survives_a_crash_and_closes_across_another(servers):
    """The undo-manager events a crash left pending are carried on with the next write: once
    they were replaced by it, and the group's end alone made start-up fail."""
    srv = servers(name="pending-undo")
    ada = new_session(srv.base, "Ada")
    doc_id = ada.create_doc("grouped")["id"]
    groups = f"/documents/{doc_id}/history/groups"
    r = ada.post(groups)
    assert r.status_code == 200 and r.json()["groupingLevel"] == 1, describe(r)
    _crash_and_start(srv, ada)
    assert ada.history(doc_id)["groupingLevel"] == 1
    r = ada.delete(groups)
    assert r.status_code == 200 and r.json()["groupingLevel"] == 0, describe(r)
    _crash_and_start(srv, ada)
    assert ada.history(doc_id)["groupingLevel"] == 0
