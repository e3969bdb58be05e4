"""Two Tandem nodes on one PostgreSQL with `--cluster sequenced` (issue 30): any node serves any
request for any document, one order of changes per document across the nodes, live events on
every node, and faults (kill -9 of a node, PostgreSQL stopped and started) that lose nothing
acknowledged. (`test_cluster_leases.py` runs the same faults with leases.)"""

from __future__ import annotations

import contextlib
import os
import random
import subprocess
import threading
import time
import uuid

import pytest
import requests

from sse import SSEStream
from postgres_env import DATABASE, needs_postgres
from tandem_client import Client, assert_error, describe, new_session, unique

pytestmark = needs_postgres()


@pytest.fixture
def nodes(servers):
    """Two nodes on one fresh schema, stopped after the test (each holds a few database
    connections, and the test cluster's are counted)."""
    schema = "cluster_" + uuid.uuid4().hex[:12]
    args = ("--database", DATABASE, "--database-schema", schema, "--cluster", "sequenced")
    pair = servers(name=schema + "-1", extra_args=args, one_node=True), servers(name=schema + "-2", extra_args=args, one_node=True)  # each one node: the test addresses and kills each itself
    yield pair
    for node in pair:
        node.stop()


def new_doc(node, prefix: str, text: str = "", name: str = "Ada", access: str | None = None) -> tuple[Client, str]:
    """A session on `node` and a document it created there."""
    ada = new_session(node.base, name)
    doc = unique(prefix)
    r = ada.post("/documents", {"id": doc, "text": text} | ({"access": access} if access else {}))
    assert r.status_code == 201, describe(r)
    return ada, doc


def on(node, client: Client) -> Client:
    """The same caller talking to another node."""
    return Client(node.base, token=client.token, session=client.session)


def test_an_edit_on_one_node_is_undone_on_the_other(nodes):
    one, two = nodes
    ada, doc = new_doc(one, "x", "Hello")
    ada.insert(doc, " world", 5)
    ada2 = on(two, ada)
    assert ada2.text(doc) == "Hello world"
    assert ada2.history(doc)["undoActionName"] == "Typing"
    r = ada2.undo(doc)
    assert r.status_code == 200, describe(r)
    assert ada.text(doc) == "Hello"
    r = ada.redo(doc)
    assert r.status_code == 200, describe(r)
    assert ada2.text(doc) == "Hello world"
    assert [c["revision"] for c in ada2.changes(doc)] == [1, 2, 3]


def test_a_group_opened_on_one_node_closes_on_the_other(nodes):
    one, two = nodes
    ada, doc = new_doc(one, "g")
    ada2 = on(two, ada)
    assert ada.post(f"/documents/{doc}/history/groups").status_code == 200
    ada2.insert(doc, "one ", 0)
    ada.insert(doc, "two", 4)
    assert ada2.history(doc)["groupingLevel"] == 1
    r = ada2.delete(f"/documents/{doc}/history/groups")
    assert r.status_code == 200, describe(r)
    assert ada.history(doc)["groupingLevel"] == 0
    # One group: a single undo on node 1 takes both edits made across the nodes.
    assert ada.undo(doc).status_code == 200
    assert ada2.text(doc) == ""
    assert_error(ada2.undo(doc), 409, "nothing_to_undo")


def test_a_subscriber_on_one_node_sees_every_change_made_on_the_other_once_in_order(nodes):
    one, two = nodes
    ada, doc = new_doc(one, "sse")
    with SSEStream(two.base, f"/documents/{doc}/events?since=0") as stream:
        for i in range(40):
            ada.insert(doc, str(i % 10), i)
        seen = [int(stream.next_change(timeout=10).id) for _ in range(40)]
        assert seen == list(range(1, 41))
        # Nothing more: each change came once.
        ada2 = on(two, ada)
        ada2.insert(doc, "!", 40)
        assert int(stream.next_change(timeout=10).id) == 41


def test_a_stream_resumes_on_the_other_node(nodes):
    one, two = nodes
    ada, doc = new_doc(one, "resume")
    with SSEStream(one.base, f"/documents/{doc}/events?since=0") as stream:
        for i in range(5):
            ada.insert(doc, "a", i)
        last = [int(stream.next_change().id) for _ in range(5)][-1]
    assert last == 5
    for i in range(5):
        ada.insert(doc, "b", 5 + i)
    with SSEStream(two.base, f"/documents/{doc}/events", headers={"Last-Event-ID": str(last)}) as stream:
        assert [int(stream.next_change().id) for _ in range(5)] == [6, 7, 8, 9, 10]


def test_a_long_poll_on_one_node_wakes_for_a_change_on_the_other(nodes):
    one, two = nodes
    ada, doc = new_doc(one, "poll")
    answer: dict = {}

    def poll():
        answer["r"] = requests.get(f"{two.base}/documents/{doc}/edits?since=0&wait=20", timeout=30)

    t = threading.Thread(target=poll)
    started = time.monotonic()
    t.start()
    time.sleep(0.3)
    ada.insert(doc, "hi", 0)
    t.join(timeout=25)
    assert time.monotonic() - started < 10
    r = answer["r"]
    assert r.status_code == 200, describe(r)
    assert [c["revision"] for c in r.json()] == [1]


def test_sessions_pasteboards_and_documents_made_on_one_node_are_known_on_the_other(nodes):
    one, two = nodes
    ada = new_session(one.base, "Ada")
    ada2 = on(two, ada)
    assert ada2.get("/sessions/me").json()["name"] == "Ada"
    assert ada.patch("/sessions/me", {"name": "Ada L."}).status_code == 200
    assert ada2.get("/sessions/me").json()["name"] == "Ada L."
    r = ada.post("/pasteboards", {"name": unique("pb"), "persistent": False})
    assert r.status_code == 201, describe(r)
    name = r.json()["name"]
    r = ada.request("PUT", f"/pasteboards/{name}/items", data=b"clip", headers={"Content-Type": "text/plain"})
    assert r.status_code == 200, describe(r)
    assert ada2.get(f"/pasteboards/{name}").json()["items"] == [[{"type": "public.utf8-plain-text", "string": "clip"}]]
    doc = unique("life")
    assert ada.post("/documents", {"id": doc, "title": "T", "text": "abc"}).status_code == 201
    assert ada2.patch(f"/documents/{doc}", {"title": "New"}).status_code == 200
    assert ada.doc(doc)["title"] == "New"
    assert ada.delete(f"/documents/{doc}").status_code == 204
    assert_error(ada2.get(f"/documents/{doc}"), 404)
    assert ada.delete("/sessions/me").status_code == 204
    assert_error(ada2.get("/sessions/me"), 401)


def _typist(node, doc: str, name: str, count: int, acked: list, errors: list, stop: threading.Event | None = None):
    """Types `count` characters with stale bases, as a real client that keeps its own copy."""
    me = new_session(node.base, name)
    base = me.doc(doc)["revision"]
    for i in range(count):
        if stop is not None and stop.is_set():
            break
        r = me.post(f"/documents/{doc}/edits", {"base": base, "insert": name[0], "at": 0})
        if r.status_code == 200:
            acked.append((me, r.json()["revision"]))
            base = r.json()["revision"] if random.random() < 0.5 else base
        else:
            errors.append(r.status_code)
    return me


def test_two_nodes_hammering_one_document_converge_and_each_undo_all_leaves_the_others_text(nodes):
    one, two = nodes
    owner, doc = new_doc(one, "hammer", name="Owner", access="open")
    acked: list = []
    errors: list = []
    writers: dict[str, Client] = {}

    def run(node, name):
        writers[name] = _typist(node, doc, name, 60, acked, errors)

    threads = [threading.Thread(target=run, args=(n, name)) for n, name in
               ((one, "A1"), (two, "B2"), (one, "C3"), (two, "D4"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert errors == []
    assert len(acked) == 240
    a, b = Client(one.base).get(f"/documents/{doc}").json(), Client(two.base).get(f"/documents/{doc}").json()
    assert a["revision"] == b["revision"] == 240
    assert a["text"] == b["text"]
    assert sorted(a["text"]) == sorted("A" * 60 + "B" * 60 + "C" * 60 + "D" * 60)
    # The log is gapless and the same on both nodes.
    assert [c["revision"] for c in Client(two.base).changes(doc)] == list(range(1, 241))
    assert Client(one.base).changes(doc) == Client(two.base).changes(doc)
    # Each session undoes all it did, alternating nodes; the others' text stays.
    remaining = a["text"]
    for i, (name, me) in enumerate(sorted(writers.items())):
        there = on(one if i % 2 else two, me)
        while True:
            r = there.undo(doc, scope="session")
            if r.status_code == 409:
                break
            assert r.status_code == 200, describe(r)
        remaining = remaining.replace(name[0], "")
        assert there.text(doc) == remaining
    assert Client(one.base).text(doc) == Client(two.base).text(doc) == ""


@pytest.mark.timeout(180)
def test_kill_9_of_a_node_during_concurrent_edits_loses_nothing_acknowledged(nodes):
    one, two = nodes
    owner, doc = new_doc(one, "kill", name="Owner", access="open")
    for cycle in range(3):
        victim, survivor = (one, two) if cycle % 2 == 0 else (two, one)
        acked: list = []
        stop = threading.Event()

        def type_on(node, name):
            me = new_session(survivor.base, name)
            me = on(node, me)
            while not stop.is_set():
                try:
                    r = me.post(f"/documents/{doc}/edits", {"insert": name, "at": 0}, timeout=5)
                except requests.RequestException:
                    return  # the node died under this request: not acknowledged
                if r.status_code == 200:
                    acked.append((name, r.json()["revision"]))

        threads = [threading.Thread(target=type_on, args=(n, f"{c}{cycle}{i}")) for i, (n, c) in
                   enumerate(((victim, "v"), (victim, "w"), (survivor, "s"), (survivor, "t")))]
        for t in threads:
            t.start()
        time.sleep(1.0)
        victim.kill()
        time.sleep(0.5)
        stop.set()
        for t in threads:
            t.join(timeout=30)
        victim.start()
        text = Client(victim.base).text(doc)
        changes = Client(survivor.base).changes(doc)
        revisions = [c["revision"] for c in changes]
        assert revisions == list(range(1, len(revisions) + 1)), "revisions are gapless"
        assert Client(victim.base).changes(doc) == changes
        acked_revisions = [rev for _, rev in acked]
        assert len(set(acked_revisions)) == len(acked_revisions)
        assert max(acked_revisions) <= revisions[-1]
        # Every acknowledged insert is in the text.
        for name in {n for n, _ in acked}:
            assert text.count(name) >= sum(1 for n, _ in acked if n == name)
        assert text == Client(survivor.base).text(doc)


def _pg_ctl(action: str) -> None:
    pg_dir, options = os.environ["TANDEM_TEST_PG_DIR"], os.environ["TANDEM_TEST_PG_OPTIONS"]
    bin_dir = sorted(p for p in os.listdir("/usr/lib/postgresql"))[-1]
    cmd = [f"/usr/lib/postgresql/{bin_dir}/bin/pg_ctl", "-D", f"{pg_dir}/data", "-w", "-t", "60", "-l", f"{pg_dir}/server.log"]
    cmd += ["-m", "fast", "stop"] if action == "stop" else ["-o", options, "start"]
    if os.geteuid() == 0:
        cmd = ["runuser", "-u", "postgres", "--"] + cmd
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=90)


@pytest.mark.timeout(180)
@pytest.mark.skipif(not os.environ.get("TANDEM_TEST_PG_DIR"), reason="needs the test PostgreSQL's folder (scripts/test-postgres.sh)")
def test_postgres_stopped_and_started_during_load_loses_nothing_and_doubles_nothing(nodes):
    one, two = nodes
    owner, doc = new_doc(one, "pgdown", name="Owner", access="open")
    acked: list = []
    statuses: list = []
    stop = threading.Event()

    def type_on(node, name):
        me = on(node, new_session(one.base, name))
        n = 0
        while not stop.is_set():
            token = f"{name}{n};"
            try:
                r = me.post(f"/documents/{doc}/edits", {"insert": token, "at": 0}, timeout=10)
            except requests.RequestException:
                continue
            statuses.append(r.status_code)
            if r.status_code == 200:
                acked.append(token)
                n += 1
            else:
                assert r.status_code == 503, describe(r)
                time.sleep(0.05)

    threads = [threading.Thread(target=type_on, args=(n, name)) for n, name in ((one, "a"), (two, "b"))]
    for t in threads:
        t.start()
    time.sleep(1.0)
    _pg_ctl("stop")
    time.sleep(1.5)
    down = requests.get(one.base + "/healthz", timeout=10)
    _pg_ctl("start")
    time.sleep(2.0)
    stop.set()
    for t in threads:
        t.join(timeout=30)
    assert down.status_code == 503
    assert 503 in statuses, "changes were refused while the database was down"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and requests.get(two.base + "/healthz", timeout=10).status_code != 200:
        time.sleep(0.2)
    text = Client(one.base).text(doc)
    assert text == Client(two.base).text(doc)
    for token in acked:
        assert text.count(token) == 1, token
    revisions = [c["revision"] for c in Client(two.base).changes(doc)]
    assert revisions == list(range(1, len(revisions) + 1))
    # The nodes take changes again.
    r = on(two, owner).post(f"/documents/{doc}/edits", {"insert": "after", "at": 0})
    assert r.status_code == 200, describe(r)
    assert Client(one.base).text(doc).startswith("after")


def test_a_selection_set_on_one_node_is_what_a_cut_on_the_other_takes(nodes):
    one, two = nodes
    ada, doc = new_doc(one, "sel", "Hello world")
    ada2 = on(two, ada)
    r = ada.put(f"/documents/{doc}/selection", {"anchor": 6, "head": 11})
    assert r.status_code == 200, describe(r)
    r = ada2.post(f"/documents/{doc}/cut", {})
    assert r.status_code == 200, describe(r)
    assert ada.text(doc) == "Hello "
    assert ada.get("/pasteboards/general").json()["items"] == [[{"type": "public.utf8-plain-text", "string": "world"}]]
    assert ada.post(f"/documents/{doc}/selectAll", {}).status_code == 200
    r = ada2.post(f"/documents/{doc}/delete", {})
    assert r.status_code == 200, describe(r)
    assert ada.text(doc) == ""


def test_a_revision_read_on_one_node_can_be_followed_with_edits_since_on_the_other(nodes):
    """A node's own commit is in the feed a moment before the node shows it: a request there
    waits for it, so what one node showed the other never contradicts."""
    one, two = nodes
    ada, doc = new_doc(one, "r")
    stop = threading.Event()
    errors: list[str] = []

    def write(node):
        c = on(node, ada)
        while not stop.is_set():
            r = c.post(f"/documents/{doc}/edits", {"insert": "z", "at": 0})
            if r.status_code != 200:
                errors.append(describe(r))

    writers = [threading.Thread(target=write, args=(node,), daemon=True) for node in (one, two, one, two)]
    for t in writers:
        t.start()
    readers = on(one, ada), on(two, ada)
    try:
        checked = 0
        deadline = time.monotonic() + 6
        while time.monotonic() < deadline:
            first, second = readers if checked % 2 else readers[::-1]
            revision = first.doc(doc)["revision"]
            r = second.get(f"/documents/{doc}/edits", params={"since": revision})
            assert r.status_code == 200, describe(r)
            checked += 1
    finally:
        stop.set()
        for t in writers:
            t.join()
    assert not errors, errors[:3]
    assert checked > 50


@contextlib.contextmanager
def _typing_meanwhile(node, doc: str):
    """Bob types on `node` with stale bases for as long as the block runs; then he has typed
    something and nothing of his was refused."""
    stop = threading.Event()
    acked: list = []
    errors: list = []
    bob = threading.Thread(target=_typist, args=(node, doc, "Bob", 100_000, acked, errors, stop))
    bob.start()
    try:
        yield
    finally:
        stop.set()
        bob.join(timeout=30)
    assert errors == []
    assert acked


def _sessions_in_stack(node, doc: str) -> set:
    history = Client(node.base).history(doc, scope="document")
    return {g["session"] for g in history["undoStack"] + history["redoStack"]}


def test_sessions_ended_on_one_node_while_the_other_edits_leave_no_group_on_either_even_after_a_restart(nodes):
    one, two = nodes
    owner, doc = new_doc(one, "end", name="Owner", access="open")
    ended = [new_session(one.base, f"Ada{k}") for k in range(6)]
    for k, ada in enumerate(ended):
        for i in range(3):
            ada.insert(doc, "a", 0)
            ada.patch(f"/documents/{doc}/history", {"actionName": f"Ada{k} {i}"}, params={"scope": "session"})
        r = ada.put(f"/documents/{doc}/selection", {"anchor": 1, "head": 2})
        assert r.status_code == 200, describe(r)
    assert {ada.id for ada in ended} <= _sessions_in_stack(two, doc)
    with _typing_meanwhile(two, doc):
        for ada in ended:
            time.sleep(0.05)
            r = ada.delete("/sessions/me")
            assert r.status_code == 204, describe(r)
        time.sleep(0.2)
    gone = {ada.id for ada in ended}
    for node in (one, two):
        assert not gone & _sessions_in_stack(node, doc)
        presence = Client(node.base).get(f"/documents/{doc}/presence").json()
        assert not gone & {p["id"] for p in presence}, presence
    # What the store holds says the same: a restarted node rebuilds it from the journal.
    two.restart()
    assert not gone & _sessions_in_stack(two, doc)
    assert Client(two.base).history(doc, scope="document") == Client(one.base).history(doc, scope="document")


def test_levels_of_undo_set_on_one_node_while_the_other_edits_hold_on_both(nodes):
    one, two = nodes
    owner, doc = new_doc(one, "levels", name="Owner", access="open")
    for i in range(12):
        owner.insert(doc, "o", 0)
        owner.patch(f"/documents/{doc}/history", {"actionName": f"Owner {i}"}, params={"scope": "session"})
    with _typing_meanwhile(two, doc):
        for levels in (11, 10, 9, 8, 7, 6, 5, 4, 3):
            time.sleep(0.05)
            r = owner.patch(f"/documents/{doc}", {"levelsOfUndo": levels})
            assert r.status_code == 200, describe(r)
        time.sleep(0.2)
    for node in (one, two):
        history = Client(node.base).history(doc, scope="document")
        assert history["levelsOfUndo"] == 3
        # Each undo context keeps at most that many groups.
        for session in {g["session"] for g in history["undoStack"]}:
            assert sum(1 for g in history["undoStack"] if g["session"] == session) <= 3, history["undoStack"]
    assert Client(two.base).history(doc, scope="document") == Client(one.base).history(doc, scope="document")
    two.restart()
    assert Client(two.base).history(doc, scope="document") == Client(one.base).history(doc, scope="document")


def test_a_since_ahead_of_a_node_waits_for_it_and_one_no_node_has_is_422(nodes):
    """A node behind another (its own change in flight defers taking in the other's) answers
    `…/edits?since=` with the other's revision once it gets there; a revision no node has is
    still `422 revision_in_future`, after that short wait."""
    one, two = nodes
    ada, doc = new_doc(one, "ahead")
    revision = on(one, ada).insert(doc, "x", 0)["revision"]
    r = on(two, ada).get(f"/documents/{doc}/edits", params={"since": revision})
    assert r.status_code == 200 and r.json() == [], describe(r)
    assert_error(on(two, ada).get(f"/documents/{doc}/edits", params={"since": revision + 5}), 422, "revision_in_future")


def _next_saved(stream: SSEStream, seconds: float = 20) -> dict:
    deadline = time.monotonic() + seconds
    while True:
        event = stream.next_event(timeout=max(0.1, deadline - time.monotonic()))
        if event.type == "saved":
            return event.json()


def test_a_checkpoint_made_on_one_node_takes_the_place_of_one_made_on_the_other(nodes):
    """Autosave's checkpoints collapse across nodes as on one: the node that made the newest
    change writes the checkpoint, numbered after the newest stored, in place of an automatic one;
    the other node's stream says which it replaced. A named save from either node stays."""
    one, two = nodes
    ada, doc = new_doc(one, "ckpt", "")
    ada2 = on(two, ada)
    stream = SSEStream(one.base, f"/documents/{doc}/events", headers={"Authorization": f"Bearer {ada.token}"})
    try:
        ada.insert(doc, "a", 0)
        first = _next_saved(stream)
        assert (first["automatic"], first["replaced"]) == (True, None)
        ada2.insert(doc, "b", 1)
        second = _next_saved(stream)
        assert (second["number"], second["automatic"], second["since"], second["replaced"]) == (
            first["number"] + 1, True, first["since"], first["number"])
        for client in (ada, ada2):
            assert [v["number"] for v in client.get(f"/documents/{doc}/versions").json()] == [second["number"]]
        r = ada2.post(f"/documents/{doc}/save", {"name": "Kept"})
        assert r.status_code == 201, describe(r)
        named = r.json()
        assert _next_saved(stream)["number"] == named["number"]
        ada.insert(doc, "c", 2)
        third = _next_saved(stream)
        assert (third["number"], third["replaced"], third["since"]) == (named["number"] + 1, None, third["time"])
    finally:
        stream.close()
    listed = ada2.get(f"/documents/{doc}/versions").json()
    assert [(v["number"], v["automatic"], v["name"]) for v in listed] == [
        (second["number"], True, None), (named["number"], False, "Kept"), (third["number"], True, None)]
