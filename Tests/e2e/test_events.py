"""Server-Sent Events: every change exactly once and in order, resuming with Last-Event-ID,
the other event types; and long-polling of GET …/edits."""

import threading
import time

import pytest

from sse import SSEStream
from tandem_client import Client, assert_error, change_list, describe, new_session, unchanged
from utf16 import apply_ops


def _subscribe(client: Client, doc_id: str, last_event_id=None) -> SSEStream:
    headers = client.headers()
    if last_event_id is not None:
        headers["Last-Event-ID"] = str(last_event_id)
    s = SSEStream(client.base, f"/documents/{doc_id}/events", headers=headers)
    assert s.status == 200, f"events answered {s.status}"
    assert s.headers.get("content-type", "").startswith("text/event-stream")
    return s


def _synced(client: Client, stream: SSEStream, doc_id: str, drain: bool = True) -> int:
    """Makes one change and waits for its event, proving the subscription is live. With
    `drain`, also reads what follows it when it opened an automatic undo group (its
    checkpoint and the group's close), so the next history event is a later request's."""
    r = client.insert(doc_id, "~", 0)
    opened = False
    while True:
        ev = stream.next_event()
        if ev.type == "history" and ev.json()["notification"] == "didOpenUndoGroup":
            opened = True
        if ev.type == "change":
            break
    assert ev.json()["revision"] == r["revision"]
    while drain and opened:
        ev = stream.next_of("history")
        opened = ev.json()["notification"] != "didCloseUndoGroup"
    return r["revision"]


def test_change_event_shape(anon, alice):
    d = anon.create_doc("")
    with _subscribe(anon, d["id"]) as s:
        rev = _synced(alice, s, d["id"])
        alice.insert(d["id"], "x", 1, actionName="Type X", newGroup=True)
        ev = s.next_change()
        assert ev.id == str(rev + 1)
        data = ev.json()
        assert set(data) >= {"revision", "ops", "session", "kind", "actionName"}
        assert data["revision"] == rev + 1
        assert data["session"] == alice.id
        assert data["kind"] == "edit"
        assert data["actionName"] == "Type X"
        assert apply_ops("~", data["ops"]) == "~x"
        alice.undo(d["id"])
        ev = s.next_change()
        assert ev.json()["kind"] == "undo" and ev.id == str(rev + 2)
        alice.redo(d["id"])
        assert s.next_change().json()["kind"] == "redo"


def test_every_change_exactly_once_in_order(base, anon):
    d = anon.create_doc("")
    writers = [new_session(base, f"w{i}") for i in range(4)]
    with _subscribe(anon, d["id"]) as s:
        first = _synced(anon, s, d["id"])
        errors = []

        def write(n, client):
            try:
                for e in range(50):
                    client.edit(d["id"], {"insert": f"<{n}.{e}>", "at": 0, "newGroup": True})
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=write, args=(n, c)) for n, c in enumerate(writers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert not errors, errors[0]
        final = anon.doc(d["id"])
        assert final["revision"] == first + 200
        seen, text = [], "~"
        while len(seen) < 200:
            ev = s.next_change(timeout=15)
            data = ev.json()
            assert ev.id == str(data["revision"])
            seen.append(data["revision"])
            text = apply_ops(text, data["ops"])
        assert seen == list(range(first + 1, first + 201))
        assert text == final["text"]
        # Nothing more arrives: no duplicates trail behind.
        anon.insert(d["id"], "!", 0)
        assert s.next_change().json()["revision"] == first + 201


def test_a_burst_ends_with_each_sessions_latest_history(base, anon):
    """History notifications may be coalesced (several due to a subscriber at once say no
    more than the last), but each session's latest one always arrives, after its change, and
    every change still arrives once."""
    d = anon.create_doc("")
    writers = [new_session(base, f"h{i}") for i in range(4)]
    with _subscribe(anon, d["id"]) as s:
        first = _synced(anon, s, d["id"])
        last_of: dict[str, int] = {}
        lock = threading.Lock()
        errors = []

        def write(client):
            try:
                for _ in range(40):
                    r = client.edit(d["id"], {"insert": "x", "at": 0})
                    with lock:
                        last_of[client.id] = max(last_of.get(client.id, 0), r["revision"])
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=write, args=(c,)) for c in writers]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert not errors, errors[0]
        changes, history, newest = [], {}, first
        # Up to the last change and every writer's latest checkpoint.
        while len(changes) < 160 or any(history.get(w.id, 0) < last_of[w.id] for w in writers):
            ev = s.next_event(timeout=15)
            if ev.type == "change":
                newest = ev.json()["revision"]
                changes.append(newest)
            elif ev.type == "history":
                h = ev.json()
                # Each insert at 0 opens an automatic group of its own (the caret moved on):
                # its open and close bracket it and are never coalesced; checkpoints are.
                if h["notification"] in ("didOpenUndoGroup", "willCloseUndoGroup", "didCloseUndoGroup"):
                    continue
                assert h["notification"] == "checkpoint"
                assert h["revision"] <= newest, "a history notification came before its change"
                assert ev.id == str(h["revision"])
                assert h["revision"] > history.get(h["session"], 0), "a session's notifications went back"
                history[h["session"]] = h["revision"]
        assert changes == list(range(first + 1, first + 161))
        assert {w.id: history[w.id] for w in writers} == last_of


def test_resume_with_last_event_id(anon, alice):
    d = anon.create_doc("")
    s = _subscribe(anon, d["id"])
    try:
        _synced(alice, s, d["id"])
        for i in range(4):
            alice.insert(d["id"], str(i), 1 + i)
        got = [s.next_change().json()["revision"] for _ in range(4)]
        assert got == [2, 3, 4, 5]
        last_id = s.last_id
        assert last_id == "5"
    finally:
        s.close()  # dropped mid-stream
    for i in range(5):
        alice.insert(d["id"], "abcde"[i], 0)
    with _subscribe(anon, d["id"], last_event_id=last_id) as s2:
        missed = [s2.next_change().json()["revision"] for _ in range(5)]
        assert missed == [6, 7, 8, 9, 10]
        alice.insert(d["id"], "!", 0)
        assert s2.next_change().json()["revision"] == 11  # then live, with no duplicate in between


def test_last_event_id_zero_replays_everything(anon):
    d = anon.create_doc("start")
    for i in range(3):
        anon.insert(d["id"], str(i), 0)
    with _subscribe(anon, d["id"], last_event_id=0) as s:
        assert [s.next_change().json()["revision"] for _ in range(3)] == [1, 2, 3]


def test_history_saved_and_state_events(anon, alice):
    d = anon.create_doc("")
    with _subscribe(alice, d["id"]) as s:
        synced = _synced(alice, s, d["id"], drain=False)
        # The edit's own checkpoint comes first, then its automatic group's close: skip
        # exactly those, so the undo's events below cannot be stood in for by them.
        for notification in ("checkpoint", "willCloseUndoGroup", "didCloseUndoGroup"):
            ev = s.next_of("history").json()
            assert ev == {"notification": notification, "session": alice.id, "revision": synced}
        assert alice.undo(d["id"]).status_code == 200
        will = s.next_of("history")
        assert will.json() == {"notification": "willUndo", "session": alice.id, "revision": synced}
        ev = s.next_of("history")
        assert ev.json() == {"notification": "didUndo", "session": alice.id, "revision": synced + 1}
        assert ev.id == str(synced + 1)
        r = anon.post(f"/documents/{d['id']}/save")
        assert r.status_code == 201, describe(r)
        saved = s.next_of("saved").json()
        assert saved["number"] == r.json()["number"] and saved["revision"] == synced + 1
        anon.patch(f"/documents/{d['id']}", {"editingDisabled": True})
        assert s.next_of("state").json() == {"state": "editingDisabled"}


def test_a_new_title_is_an_event_and_an_unchanged_one_is_not(anon, alice):
    d = anon.create_doc("", title="Old")
    with _subscribe(alice, d["id"]) as s:
        synced = _synced(alice, s, d["id"])
        r = anon.patch(f"/documents/{d['id']}", {"title": "New"})
        assert r.status_code == 200, describe(r)
        ev = s.next_of("title")
        assert ev.json() == {"title": "New"}
        assert ev.id == str(synced)
        # The same title again, or only another field: no title event; the next one is "Newer".
        assert anon.patch(f"/documents/{d['id']}", {"title": "New"}).status_code == 200
        assert anon.patch(f"/documents/{d['id']}", {"secure": True}).status_code == 200
        assert anon.patch(f"/documents/{d['id']}", {"title": "Newer"}).status_code == 200
        assert s.next_of("title").json() == {"title": "Newer"}


def test_resume_replays_history_and_state(anon, alice):
    """A client that was away gets each missed change with its history notification, then
    the current state: its undo menu and lock are as current as a connected client's."""
    d = anon.create_doc("")
    with _subscribe(anon, d["id"]) as s:
        first = _synced(alice, s, d["id"])
    alice.insert(d["id"], "x", 1, newGroup=True)
    assert alice.undo(d["id"]).status_code == 200
    anon.patch(f"/documents/{d['id']}", {"editingDisabled": True})
    with _subscribe(anon, d["id"], last_event_id=first) as s2:
        got = []
        while len(got) < 9:
            ev = s2.next_event()
            if ev.type in ("change", "history", "state"):
                got.append((ev.type, ev.id, ev.json()))
        # The edit opened an automatic group: replayed with its open and close, as sent live.
        assert [(t, i) for t, i, _ in got] == [("history", str(first)), ("change", str(first + 1)),
                                                ("history", str(first + 1)), ("history", str(first + 1)),
                                                ("history", str(first + 1)), ("history", str(first + 1)),
                                                ("change", str(first + 2)), ("history", str(first + 2)),
                                                ("state", str(first + 2))]
        assert [h.get("notification") for _, _, h in got] == [
            "didOpenUndoGroup", None, "checkpoint", "willCloseUndoGroup", "didCloseUndoGroup", "willUndo", None, "didUndo", None]
        assert got[2][2] == {"notification": "checkpoint", "session": alice.id, "revision": first + 1}
        assert got[5][2] == {"notification": "willUndo", "session": alice.id, "revision": first + 1}
        assert got[7][2] == {"notification": "didUndo", "session": alice.id, "revision": first + 2}
        assert got[8][2] == {"state": "editingDisabled"}


def test_keep_alive_comments_arrive(servers):
    srv = servers(extra_args=("--keep-alive-interval", "0.3"), name="keep-alive")
    anon = Client(srv.base)
    d = anon.create_doc("")
    with _subscribe(anon, d["id"]) as s:
        deadline = time.monotonic() + 5
        while ": keep-alive" not in s.comments:
            try:
                s.next_event(timeout=max(0.01, deadline - time.monotonic()))
            except TimeoutError:
                break
        assert ": keep-alive" in s.comments, "no keep-alive comment within 5 s at a 0.3 s interval"
        # Comments are not events: the stream goes on delivering changes.
        _synced(anon, s, d["id"])


def test_resume_from_a_trimmed_revision_gets_a_reset(servers):
    """With --log-kept 2 only the last two changes can be replayed: a client resuming from
    before them is told to reload, then goes on live."""
    srv = servers(extra_args=("--log-kept", "2", "--archive-bytes", "0"), name="sse-reset")
    anon = Client(srv.base)
    d = anon.create_doc("abc")
    for i in range(5):
        anon.insert(d["id"], str(i), 0)
    deadline = time.monotonic() + 10
    while anon.get(f"/documents/{d['id']}/edits", params={"since": 0}).status_code != 410:
        assert time.monotonic() < deadline, "the log was not trimmed to --log-kept"
        time.sleep(0.2)
    with _subscribe(anon, d["id"], last_event_id=1) as s:
        ev = s.next_event()
        assert ev.type == "reset", ev
        assert ev.json() == {"reason": "revision_trimmed"}
        assert ev.id == "5"
        anon.insert(d["id"], "!", 0)
        assert s.next_change().json()["revision"] == 6
    # Resuming from the oldest kept base is still a replay, not a reset.
    with _subscribe(anon, d["id"], last_event_id=4) as s:
        assert [s.next_change().json()["revision"] for _ in range(2)] == [5, 6]


@pytest.mark.one_node("Tandem's own cut-off of a slow reader's socket: behind nginx, the proxy's socket buffers (megabytes on loopback) hold the backlog instead")
def test_a_slow_subscriber_is_cut_off_and_catches_up(base, anon):
    """A subscriber that stops reading while large changes pile up is cut off once the
    server holds more than 1 MiB for it; the editors and a reading subscriber never wait
    for it, and it resumes with Last-Event-ID and gets every change."""
    d = anon.create_doc("")
    writer = new_session(base, "big-writer")
    slow = SSEStream(base, f"/documents/{d['id']}/events", receive_buffer=4096)
    fast = _subscribe(anon, d["id"])
    try:
        first = _synced(writer, fast, d["id"])
        assert slow.next_change().json()["revision"] == first
        chunk = "y" * 60_000
        total = 120  # about 7 MB of change events: beyond any socket buffers plus 1 MiB
        fast_seen, fast_errors = [], []

        def read_fast():
            try:
                while len(fast_seen) < total:
                    fast_seen.append(fast.next_change(timeout=30).json()["revision"])
            except BaseException as e:
                fast_errors.append(e)

        reader = threading.Thread(target=read_fast)
        reader.start()
        for i in range(total):
            r = writer.post(f"/documents/{d['id']}/edits", {"insert": chunk, "at": 0, "newGroup": True})
            assert r.status_code == 200, describe(r)
        final = anon.doc(d["id"])["revision"]
        assert final == first + total
        reader.join(timeout=60)
        assert not fast_errors, fast_errors[0]
        assert fast_seen == list(range(first + 1, final + 1))
        # The slow one now reads what it had been sent, then finds its stream ended.
        got = []
        try:
            while True:
                got.append(int(slow.next_change(timeout=15).json()["revision"]))
        except ConnectionError:
            pass
        assert len(got) < total, "the slow subscriber was never cut off"
        assert got == list(range(first + 1, first + 1 + len(got)))
        last = got[-1] if got else first
    finally:
        slow.close()
        fast.close()
    with _subscribe(anon, d["id"], last_event_id=last) as again:
        rest = [again.next_change(timeout=30).json()["revision"] for _ in range(final - last)]
        assert rest == list(range(last + 1, final + 1))


def test_pasteboard_events_on_document_streams(base, anon):
    """A copy to `general` is heard on the copier's document streams only (a general is its
    person's own); a named pasteboard's events reach only its owner's streams until it is
    shared with everyone."""
    d = anon.create_doc("hello world")
    ada, bea = new_session(base, "Ada"), new_session(base, "Bea")
    name = "own-" + d["id"]
    assert ada.post("/pasteboards", {"name": name}).status_code == 201
    with _subscribe(ada, d["id"]) as sa, _subscribe(bea, d["id"]) as sb:
        _synced(anon, sa, d["id"])
        sb.next_change()
        r = bea.post(f"/documents/{d['id']}/copy", {"from": 0, "to": 5})
        assert r.status_code == 200, describe(r)
        ev = sb.next_of("pasteboard").json()
        assert ev["kind"] == "changed" and ev["name"] == "general"
        assert ev["changeCount"] == r.json()["changeCount"]
        r = ada.post(f"/documents/{d['id']}/copy", {"from": 6, "to": 11, "pasteboard": name})
        assert r.status_code == 200, describe(r)
        # Ada's first pasteboard event is her own pasteboard's: Bea's general never came.
        ev = sa.next_of("pasteboard").json()
        assert ev["kind"] == "changed" and ev["name"] == name and ev["changeCount"] == r.json()["changeCount"]
        # Bea hears nothing of it until it is shared with everyone, and then of it as it is.
        shared = ada.patch(f"/pasteboards/{name}", {"shared": "everyone"})
        assert shared.status_code == 200, describe(shared)
        ev = sb.next_of("pasteboard").json()
        assert (ev["kind"], ev["name"], ev["changeCount"]) == ("changed", name, shared.json()["changeCount"])
        r = ada.post(f"/documents/{d['id']}/copy", {"from": 0, "to": 1, "pasteboard": name})
        assert r.status_code == 200, describe(r)
        ev = sb.next_of("pasteboard").json()
        assert ev["name"] == name and ev["changeCount"] == r.json()["changeCount"]


def test_events_of_unknown_document_is_404(anon):
    r = anon.get("/documents/never-made/events", timeout=5)
    assert r.status_code == 404, describe(r)


def test_long_poll_wakes_on_a_change(anon):
    d = anon.create_doc("")
    anon.insert(d["id"], "a", 0)

    def later():
        time.sleep(0.5)
        Client(anon.base).insert(d["id"], "b", 1)

    t = threading.Thread(target=later)
    started = time.monotonic()
    t.start()
    r = anon.get(f"/documents/{d['id']}/edits", params={"since": 1, "wait": 5})
    elapsed = time.monotonic() - started
    t.join()
    assert r.status_code == 200, describe(r)
    changes = change_list(r.json())
    assert [c["revision"] for c in changes] == [2]
    assert elapsed < 4, f"the long poll answered after {elapsed:.1f}s, not when the change came"


def test_long_poll_answers_at_once_when_changes_exist(anon):
    d = anon.create_doc("")
    anon.insert(d["id"], "a", 0)
    started = time.monotonic()
    r = anon.get(f"/documents/{d['id']}/edits", params={"since": 0, "wait": 5})
    assert [c["revision"] for c in change_list(r.json())] == [1]
    assert time.monotonic() - started < 4


def test_long_poll_times_out_empty(anon):
    d = anon.create_doc("")
    started = time.monotonic()
    r = anon.get(f"/documents/{d['id']}/edits", params={"since": 0, "wait": 1})
    elapsed = time.monotonic() - started
    assert r.status_code == 200, describe(r)
    assert change_list(r.json()) == []
    assert elapsed >= 0.9, f"answered after {elapsed:.2f}s instead of waiting"


def test_resume_while_edits_keep_coming(base, anon):
    """Drops the stream mid-burst and resumes while a writer goes on: the replay and the
    live stream meet with no gap and no duplicate."""
    d = anon.create_doc("")
    writer = new_session(base, "writer")
    total = 150
    done = threading.Event()
    errors = []

    def write():
        try:
            for i in range(total):
                writer.edit(d["id"], {"insert": "x", "at": 0, "newGroup": True})
        except BaseException as e:
            errors.append(e)
        finally:
            done.set()

    s = _subscribe(anon, d["id"])
    t = threading.Thread(target=write)
    t.start()
    seen = []
    try:
        while len(seen) < 40:
            seen.append(s.next_change(timeout=15).json()["revision"])
        last = s.last_id
    finally:
        s.close()
    with _subscribe(anon, d["id"], last_event_id=last) as s2:
        while len(seen) < total:
            seen.append(s2.next_change(timeout=15).json()["revision"])
    t.join(timeout=60)
    assert not errors, errors[0]
    assert seen == list(range(1, total + 1))


def test_a_newcomer_hears_the_presence_once(anon, alice):
    for client in (alice, anon):
        d = anon.create_doc("hello")
        with _subscribe(client, d["id"]) as s:
            # Everything up to the first change: the stream keeps order, so a second
            # presence sent at the connection would come before it.
            alice.insert(d["id"], "~", 0)
            kinds, presence = [], []
            while True:
                ev = s.next_event(timeout=10)
                kinds.append(ev.type)
                if ev.type == "presence":
                    presence.append(ev.data)
                if ev.type == "change":
                    break
            assert kinds.count("presence") == 1, kinds
            assert (alice.id in presence[0]) == (client is alice), presence


def test_presence_event_on_selection(anon, alice, bob):
    d = anon.create_doc("hello world")
    with _subscribe(bob, d["id"]) as s:
        r = alice.put(f"/documents/{d['id']}/selection", {"anchor": 2, "head": 5})
        assert r.status_code == 200, describe(r)
        # Bob's own arrival may come first; Alice's selection must follow.
        deadline = time.monotonic() + 10
        while True:
            ev = s.next_of("presence", timeout=max(0.01, deadline - time.monotonic()))
            if alice.id in ev.data:
                break
        assert '"anchor":2' in ev.data.replace(" ", "") and '"head":5' in ev.data.replace(" ", "")


def test_history_events_name_the_undo_notifications(anon, alice):
    d = anon.create_doc("")
    with _subscribe(alice, d["id"]) as s:
        _synced(alice, s, d["id"])
        r = alice.post(f"/documents/{d['id']}/history/groups")
        assert r.status_code == 200, describe(r)
        alice.insert(d["id"], "x", 1)
        alice.delete(f"/documents/{d['id']}/history/groups")
        alice.undo(d["id"])
        alice.redo(d["id"])
        # NSUndoManager's order, will before did, each exactly once.
        wanted = ["didOpenUndoGroup", "willCloseUndoGroup", "didCloseUndoGroup", "willUndo", "didUndo", "willRedo", "didRedo"]
        assert _notifications(s, wanted) == wanted


def _notifications(s: SSEStream, wanted: list[str]) -> list[str]:
    """The stream's next history notifications among `wanted`, as many as `wanted` holds."""
    found = []
    deadline = time.monotonic() + 10
    while len(found) < len(wanted):
        ev = s.next_of("history", timeout=max(0.01, deadline - time.monotonic()))
        if ev.json()["notification"] in wanted:
            found.append(ev.json()["notification"])
    return found


def test_an_undo_that_closes_an_open_group_announces_the_close_first(anon, alice):
    d = anon.create_doc("")
    with _subscribe(alice, d["id"]) as s:
        _synced(alice, s, d["id"])
        assert alice.post(f"/documents/{d['id']}/history/groups").status_code == 200
        alice.insert(d["id"], "x", 1)
        assert alice.undo(d["id"]).status_code == 200
        wanted = ["willCloseUndoGroup", "didCloseUndoGroup", "willUndo", "didUndo"]
        assert _notifications(s, wanted) == wanted


def test_an_undo_body_takes_no_fields(alice):
    d = alice.create_doc("")
    alice.insert(d["id"], "x", 0)
    with unchanged(alice, d["id"]):
        assert_error(alice.post(f"/documents/{d['id']}/undo", {"group": 1}), 400, "invalid_field")
        assert_error(alice.post(f"/documents/{d['id']}/redo", {"scope": "document"}), 400, "invalid_field")
    assert alice.post(f"/documents/{d['id']}/undo", {}).status_code == 200


def test_actions_name_the_paste_menu_item(alice):
    d = alice.create_doc("abc")
    a = alice.get(f"/documents/{d['id']}/actions").json()
    assert a["pasteMenuItemTitle"] == "Paste"
    alice.post("/pasteboards", {"name": "mine"})
    a = alice.get(f"/documents/{d['id']}/actions", params={"pasteboard": "mine"}).json()
    assert a["pasteMenuItemTitle"] == "Paste from mine"


def test_many_subscribers_each_see_every_change(base, anon):
    d = anon.create_doc("")
    streams = [_subscribe(anon, d["id"]) for _ in range(10)]
    try:
        first = _synced(anon, streams[0], d["id"])
        for s in streams[1:]:
            assert s.next_change().json()["revision"] == first
        writer = new_session(base, "fan-out")
        for i in range(40):
            writer.edit(d["id"], {"insert": "x", "at": 0, "newGroup": True})
        for s in streams:
            assert [s.next_change().json()["revision"] for _ in range(40)] == list(range(first + 1, first + 41))
    finally:
        for s in streams:
            s.close()


def test_selection_is_kept_in_place_through_others_changes(anon, alice, bob):
    d = anon.create_doc("hello world")
    r = alice.put(f"/documents/{d['id']}/selection", {"anchor": 6, "head": 11})
    assert r.status_code == 200, describe(r)
    bob.insert(d["id"], ">> ", 0)
    r = anon.get(f"/documents/{d['id']}/presence")
    assert r.status_code == 200, describe(r)
    body = r.json()
    people = body if isinstance(body, list) else body.get("sessions", [])
    mine = [p for p in people if p.get("id") == alice.id]
    assert mine, body
    assert mine[0]["selection"] == {"anchor": 9, "head": 14}


def test_selection_made_at_an_older_base_is_mapped_to_now(anon, alice, bob):
    d = anon.create_doc("hello world")
    base = anon.doc(d["id"])["revision"]
    bob.insert(d["id"], ">> ", 0)  # lands before Alice's caret report
    r = alice.put(f"/documents/{d['id']}/selection", {"anchor": 6, "head": 11, "base": base})
    assert r.status_code == 200, describe(r)
    assert r.json() == {"anchor": 9, "head": 14}
    # Positions count on the text at the base (11 long there, 14 now), and a base in the future.
    r = alice.put(f"/documents/{d['id']}/selection", {"anchor": 12, "head": 12, "base": base})
    assert_error(r, 422, "position_out_of_range")
    r = alice.put(f"/documents/{d['id']}/selection", {"anchor": 0, "head": 0, "base": 10_000})
    assert_error(r, 422, "revision_in_future")


def _subscribe_gzip(client: Client, doc_id: str, last_event_id=None, accept="gzip, deflate, br, zstd") -> SSEStream:
    """As a browser's EventSource subscribes: it says it takes gzip."""
    headers = client.headers() | {"Accept-Encoding": accept}
    if last_event_id is not None:
        headers["Last-Event-ID"] = str(last_event_id)
    s = SSEStream(client.base, f"/documents/{doc_id}/events", headers=headers)
    assert s.status == 200, f"events answered {s.status}"
    return s


def test_gzipped_stream_brings_each_change_as_it_happens(anon, alice):
    d = anon.create_doc("")
    with _subscribe_gzip(anon, d["id"]) as s:
        assert s.headers.get("content-encoding") == "gzip"
        assert "accept-encoding" in s.headers.get("vary", "").lower()
        rev = _synced(alice, s, d["id"])
        # One change at a time, each read before the next is made: none waits in a
        # compressor for more to come.
        for i in range(5):
            r = alice.insert(d["id"], str(i), 1 + i)
            ev = s.next_change(timeout=5)
            assert ev.json()["revision"] == r["revision"] == rev + 1 + i
            assert ev.id == str(r["revision"])
        h = s.next_of("history", timeout=5)
        assert h.json()["session"] == alice.id


def test_gzipped_stream_every_change_exactly_once_in_order(base, anon):
    d = anon.create_doc("")
    writers = [new_session(base, f"g{i}") for i in range(4)]
    with _subscribe_gzip(anon, d["id"]) as s, _subscribe(anon, d["id"]) as plain:
        first = _synced(anon, s, d["id"])
        assert plain.next_change().json()["revision"] == first
        threads = [threading.Thread(target=lambda c=c: [c.insert(d["id"], "x", 0) for _ in range(25)]) for c in writers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        revisions = [s.next_change().json()["revision"] for _ in range(100)]
        assert revisions == list(range(first + 1, first + 101))
        # The same events as a subscriber that did not ask for gzip.
        assert [plain.next_change().json()["revision"] for _ in range(100)] == revisions


def test_gzipped_stream_resumes_with_last_event_id(anon, alice):
    d = anon.create_doc("")
    with _subscribe_gzip(anon, d["id"]) as s:
        _synced(alice, s, d["id"])
        last_id = s.last_id
    for i in range(3):
        alice.insert(d["id"], "abc"[i], 0)
    with _subscribe_gzip(anon, d["id"], last_event_id=last_id) as s2:
        assert [s2.next_change().json()["revision"] for _ in range(3)] == [2, 3, 4]
        alice.insert(d["id"], "!", 0)
        assert s2.next_change().json()["revision"] == 5


def test_gzipped_stream_ends_with_a_valid_trailer(anon):
    d = anon.create_doc("")
    with _subscribe_gzip(anon, d["id"]) as s:
        _synced(anon, s, d["id"])
        assert anon.delete(f"/documents/{d['id']}").status_code == 204
        try:
            while True:
                s.next_event(timeout=5)
        except ConnectionError:
            pass  # the stream ended
        assert s.gzip_complete  # zlib checked the trailer's CRC-32 and length


def test_no_gzip_unless_asked(anon):
    d = anon.create_doc("")
    for accept in (None, "identity", "gzip;q=0"):
        headers = anon.headers() | ({"Accept-Encoding": accept} if accept else {})
        with SSEStream(anon.base, f"/documents/{d['id']}/events", headers=headers) as s:
            assert s.status == 200
            assert "content-encoding" not in s.headers
            assert "accept-encoding" in s.headers.get("vary", "").lower()
            _synced(anon, s, d["id"])
