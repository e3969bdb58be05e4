"""Durability: `kill -9` at any moment loses no acknowledged change and leaves nothing
half-written; a restart keeps text, versions and every session's undo state."""

from __future__ import annotations

import random
import re
import threading
import time

import pytest
import requests

from tandem_client import Client, describe, new_session
from utf16 import apply_ops, length

START = "start|end"
MARKER = re.compile(r"<[a-z0-9]+:\d+>")
ROUNDS = 5
SESSIONS = 4


def safe_positions(text: str) -> list[int]:
    """Offsets that fall inside no marker, so markers stay whole whatever the interleaving
    (the text is ASCII, so these are UTF-16 offsets too)."""
    inside: set[int] = set()
    for m in MARKER.finditer(text):
        inside.update(range(m.start() + 1, m.end()))
    return [p for p in range(len(text) + 1) if p not in inside]


def inserted(ops: list) -> str:
    return "".join(o for o in ops if isinstance(o, str))


def deleted(text: str, ops: list) -> str:
    """The characters of `text` that `ops` deletes, in order."""
    out, i = [], 0
    for o in ops:
        if isinstance(o, str):
            continue
        if o > 0:
            i += o
        else:
            out.append(text[i:i - o])
            i -= o
    return "".join(out)


class Editor:
    """One editing session on its own thread: inserts unique markers (each its own undo
    group) at random places of a stale view, undoes and redoes now and then, and records
    every change the server acknowledged with 200."""

    def __init__(self, name: str, token: str | None, session_id: str | None, seed: int):
        self.name = name
        self.token = token
        self.session_id = session_id
        self.rng = random.Random(seed)
        self.counter = 0
        self.acknowledged: list[dict] = []
        self.unexpected: list[str] = []

    def run(self, base: str, doc_id: str, stop: threading.Event) -> None:
        client = Client(base, token=self.token)
        view = None
        try:
            while not stop.is_set():
                if view is None or self.rng.random() < 0.25:
                    view = client.doc(doc_id)
                roll = self.rng.random()
                if self.token and roll < 0.12:
                    self._undo_redo(client, doc_id, "undo")
                elif self.token and roll < 0.2:
                    self._undo_redo(client, doc_id, "redo")
                else:
                    self._insert(client, doc_id, view)
        except requests.RequestException:
            return  # the server was killed under us: whatever was in flight is unacknowledged

    def _insert(self, client: Client, doc_id: str, view: dict) -> None:
        self.counter += 1
        marker = f"<{self.name}:{self.counter}>"
        body = {"insert": marker, "newGroup": True}
        if self.rng.random() < 0.15:
            body["at"] = 0  # no base: applies at the current revision
        else:
            body["base"] = view["revision"]
            body["at"] = self.rng.choice(safe_positions(view["text"]))
        r = client.post(f"/documents/{doc_id}/edits", body)
        if r.status_code == 200:
            a = r.json()
            self.acknowledged.append({"revision": a["revision"], "ops": a["ops"], "kind": "edit",
                                      "session": self.session_id})
        else:
            self.unexpected.append(describe(r))

    def _undo_redo(self, client: Client, doc_id: str, kind: str) -> None:
        r = client.post(f"/documents/{doc_id}/{kind}")
        if r.status_code == 200:
            a = r.json()
            self.acknowledged.append({"revision": a["revision"], "ops": a["ops"], "kind": kind,
                                      "session": self.session_id})
        elif not (r.status_code == 409 and r.json()["error"]["code"] == f"nothing_to_{kind}"):
            self.unexpected.append(describe(r))


def undo_model(log: list[dict]) -> dict[str, list[list[str]]]:
    """Replays the log's group structure per session (every insert is its own group) and
    checks every stored undo and redo against it: an undo removes exactly the marker on top
    of that session's undo stack, a redo puts back exactly the one on top of its redo stack.
    Returns each session's [undo stack, redo stack] of markers."""
    stacks: dict[str, list[list[str]]] = {}
    text = START
    for c in log:
        s = c.get("session")
        if s is not None:
            undo, redo = stacks.setdefault(s, [[], []])
            if c["kind"] == "edit":
                marker = inserted(c["ops"])
                assert MARKER.fullmatch(marker) and deleted(text, c["ops"]) == "", f"edit {c} is not one whole marker"
                undo.append(marker)
                redo.clear()
            elif c["kind"] == "undo":
                assert undo, f"undo at revision {c['revision']} by {s} with nothing to undo in the log"
                marker = undo.pop()
                got = (deleted(text, c["ops"]), inserted(c["ops"]))
                assert got == (marker, ""), f"undo at revision {c['revision']} removed {got}, expected {marker!r}"
                redo.append(marker)
            elif c["kind"] == "redo":
                assert redo, f"redo at revision {c['revision']} by {s} with nothing to redo in the log"
                marker = redo.pop()
                got = (deleted(text, c["ops"]), inserted(c["ops"]))
                assert got == ("", marker), f"redo at revision {c['revision']} put back {got}, expected {marker!r}"
                undo.append(marker)
        text = apply_ops(text, c["ops"])
    return stacks


def check_log(client: Client, doc_id: str, acknowledged: list[dict]) -> list[dict]:
    """Everything acknowledged is stored as it was answered, revisions have no gaps, and
    the stored log replayed from the starting text is exactly the document's text."""
    log = client.changes(doc_id)
    assert [c["revision"] for c in log] == list(range(1, len(log) + 1)), "revisions have gaps or repeats"
    by_revision = {c["revision"]: c for c in log}
    for a in acknowledged:
        stored = by_revision.get(a["revision"])
        assert stored is not None, f"acknowledged revision {a['revision']} is missing (log ends at {len(log)})"
        assert (stored["ops"], stored["kind"], stored.get("session")) == (a["ops"], a["kind"], a["session"]), \
            f"revision {a['revision']} was acknowledged as {a}, stored as {stored}"
    text = START
    for c in log:
        text = apply_ops(text, c["ops"])  # a torn change would fail here (length mismatch)
    doc = client.doc(doc_id)
    assert doc["revision"] == len(log), f"document at revision {doc['revision']}, log has {len(log)}"
    r = client.get(f"/documents/{doc_id}/text")
    assert r.status_code == 200, describe(r)
    assert r.content.decode("utf-8") == doc["text"] == text, "text differs from the replayed log"
    assert doc["length"] == length(text)
    return log


def test_kill_9_loses_no_acknowledged_change(servers):
    srv = servers(name="crash")
    rng = random.Random(20261122)
    anon = Client(srv.base)
    doc_id = anon.create_doc(START)["id"]
    editors = [Editor(f"s{i}", (c := new_session(srv.base, f"S{i}")).token, c.id, seed=i)
               for i in range(SESSIONS)]
    editors.append(Editor("anon", None, None, seed=99))
    acknowledged_before = 0

    for round_ in range(ROUNDS):
        stop = threading.Event()
        threads = [threading.Thread(target=e.run, args=(srv.base, doc_id, stop), daemon=True) for e in editors]
        for t in threads:
            t.start()
        time.sleep(rng.uniform(0.5, 2.5))
        srv.kill()
        stop.set()
        for t in threads:
            t.join(timeout=30)
            assert not t.is_alive(), "an editing thread hung after the kill"
        srv.start()

        acknowledged = [a for e in editors for a in e.acknowledged]
        assert len(acknowledged) > acknowledged_before, f"round {round_}: no change was acknowledged before the kill"
        acknowledged_before = len(acknowledged)
        client = Client(srv.base)
        log = check_log(client, doc_id, acknowledged)
        undo_model(log)

    for e in editors:
        assert not e.unexpected, f"{e.name} got unexpected answers: {e.unexpected[:3]}"

    # After the last restart each session's undo removes its own latest marker, and the
    # model above (built from the stored log) agrees with what the server restored.
    stacks = undo_model(client.changes(doc_id))
    undone = 0
    for e in editors[:SESSIONS]:
        session = Client(srv.base, token=e.token)
        undo_stack, _ = stacks.get(e.session_id, [[], []])
        history = session.history(doc_id, scope="session")
        assert history["canUndo"] == bool(undo_stack), f"{e.name}: {history}"
        if not undo_stack:
            continue
        before = session.text(doc_id)
        r = session.undo(doc_id)
        assert r.status_code == 200, describe(r)
        ops = r.json()["ops"]
        assert (deleted(before, ops), inserted(ops)) == (undo_stack[-1], ""), \
            f"{e.name}'s undo after the restart did not remove its latest marker {undo_stack[-1]!r}: {ops}"
        assert session.text(doc_id) == apply_ops(before, ops)
        undone += 1
    assert undone > 0, "no session had anything to undo"


def _open_group_with_change(a: Client, doc_id: str) -> None:
    """An open undo group with a change in it: the open group is stored with that change."""
    r = a.post(f"/documents/{doc_id}/history/groups")
    assert r.status_code == 200 and r.json()["groupingLevel"] == 1, describe(r)
    a.insert(doc_id, "[in group]", 0)


def _rename_and_open_group(a: Client, b: Client, doc_id: str) -> None:
    """Undo-manager state after the last change that changes no text: a renamed action and
    a nested open group with nothing in it yet (stored at once, in the meta key)."""
    r = b.patch(f"/documents/{doc_id}/history", {"actionName": "Bold"})
    assert r.status_code == 200, describe(r)
    r = a.post(f"/documents/{doc_id}/history/groups")
    assert r.status_code == 200 and r.json()["groupingLevel"] == 2, describe(r)


def _state(anon: Client, a: Client, b: Client, doc_id: str) -> dict:
    doc = anon.doc(doc_id)
    versions = anon.get(f"/documents/{doc_id}/versions")
    assert versions.status_code == 200, describe(versions)
    version_texts = []
    for v in _version_list(versions.json()):
        n = v.get("number", v.get("version", v.get("id")))
        r = anon.get(f"/documents/{doc_id}/versions/{n}/text")
        assert r.status_code == 200, describe(r)
        version_texts.append(r.text)
    return {
        "document": {k: doc[k] for k in ("text", "revision", "length", "changeCount", "hasUnsavedChanges",
                                         "state", "title", "created")},
        "changes": anon.changes(doc_id),
        "versions": versions.json(),
        "version texts": version_texts,
        "history a": a.history(doc_id, scope="session"),
        "history b": b.history(doc_id, scope="session"),
        "history document": anon.history(doc_id, scope="document"),
    }


def _version_list(body) -> list[dict]:
    if isinstance(body, list):
        return body
    return body["versions"]


def _edit_save_undo(anon: Client, a: Client, b: Client, doc_id: str) -> None:
    """Leaves A with two groups to undo and B with two to undo and one to redo, two versions."""
    for i, word in enumerate(["one ", "two ", "three "]):
        a.insert(doc_id, word, 0, newGroup=True)
        b.insert(doc_id, word.upper(), len(anon.text(doc_id)), newGroup=True, actionName=f"B{i}")
    r = anon.post(f"/documents/{doc_id}/save")
    assert r.status_code == 201, describe(r)
    assert a.undo(doc_id).status_code == 200
    for _ in range(2):
        assert b.undo(doc_id).status_code == 200
    assert b.redo(doc_id).status_code == 200
    r = anon.post(f"/documents/{doc_id}/save")
    assert r.status_code == 201, describe(r)


def _restart(srv, how: str, *clients: Client) -> list[Client]:
    if how == "graceful":
        srv.restart()
    else:
        srv.kill()
        srv.start()
    return [Client(srv.base, token=c.token) for c in clients]


def _compare(before: dict, after: dict) -> None:
    changed = [f"{key}:\n  before {before[key]}\n  after  {after[key]}" for key in before if after[key] != before[key]]
    assert not changed, "changed across the restart:\n" + "\n".join(changed)


@pytest.mark.parametrize("how", ["graceful", "kill -9"])
def test_restart_keeps_versions_and_every_undo_and_redo_stack(servers, how):
    srv = servers(name=f"restart-{how.split()[0]}")
    anon = Client(srv.base)
    a, b = new_session(srv.base, "A"), new_session(srv.base, "B")
    doc_id = anon.create_doc("0123456789")["id"]
    _edit_save_undo(anon, a, b, doc_id)
    _open_group_with_change(a, doc_id)

    before = _state(anon, a, b, doc_id)
    assert before["history a"]["groupingLevel"] == 1
    assert before["history a"]["canRedo"] is False  # A's edit in the group cleared A's redo stack
    assert before["history b"]["canRedo"] and before["history b"]["redoActionName"] == "B2"
    assert len(_version_list(before["versions"])) >= 2
    anon, a, b = _restart(srv, how, anon, a, b)
    _compare(before, _state(anon, a, b, doc_id))

    # The restored state works: closing A's group and undoing removes the whole group;
    # B's redo stack still redoes what B undid before the restart.
    r = a.delete(f"/documents/{doc_id}/history/groups")
    assert r.status_code == 200, describe(r)
    text = anon.text(doc_id)
    r = a.undo(doc_id)
    assert r.status_code == 200, describe(r)
    assert anon.text(doc_id) == text.replace("[in group]", "", 1)
    r = b.redo(doc_id)
    assert r.status_code == 200, describe(r)
    assert inserted(r.json()["ops"]) == "THREE "


@pytest.mark.parametrize("how", ["graceful", "kill -9"])
def test_restart_keeps_a_renamed_action_and_an_open_group_without_changes(servers, how):
    srv = servers(name=f"meta-{how.split()[0]}")
    anon = Client(srv.base)
    a, b = new_session(srv.base, "A"), new_session(srv.base, "B")
    doc_id = anon.create_doc("0123456789")["id"]
    _edit_save_undo(anon, a, b, doc_id)
    _open_group_with_change(a, doc_id)
    _rename_and_open_group(a, b, doc_id)

    before = _state(anon, a, b, doc_id)
    assert before["history a"]["groupingLevel"] == 2
    assert before["history b"]["undoActionName"] == "Bold"
    anon, a, b = _restart(srv, how, anon, a, b)
    _compare(before, _state(anon, a, b, doc_id))


@pytest.mark.parametrize("how", ["graceful", "kill -9"])
def test_restart_after_a_save_and_an_ended_session_changes_nothing(servers, how):
    """The last things before the restart change no text: a save (its cleared change count)
    and a session's end (its groups removed). Both are stored at once, so the restarted
    document is still saved, autosave adds no version, and the ended session's groups stay gone."""
    srv = servers(name=f"saved-ended-{how.split()[0]}")
    anon = Client(srv.base)
    a, b = new_session(srv.base, "A"), new_session(srv.base, "B")
    doc_id = anon.create_doc("0123456789")["id"]
    _edit_save_undo(anon, a, b, doc_id)
    gone = new_session(srv.base, "Gone")
    gone.insert(doc_id, "[gone]", 0, newGroup=True)
    r = anon.post(f"/documents/{doc_id}/save")
    assert r.status_code == 201, describe(r)
    assert gone.delete("/sessions/me").status_code == 204

    before = _state(anon, a, b, doc_id)
    assert (before["document"]["changeCount"], before["document"]["hasUnsavedChanges"]) == (0, False)
    assert gone.id not in [e["session"] for e in before["history document"]["undoStack"]]
    anon, a, b = _restart(srv, how, anon, a, b)
    time.sleep(3)  # longer than autosave's quiet time: a wrongly unsaved document would save now
    _compare(before, _state(anon, a, b, doc_id))
