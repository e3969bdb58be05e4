"""Many sessions editing one document through stale bases, and converging."""

import random
import re
import threading

import pytest

from tandem_client import Client, new_session
from utf16 import apply_ops, boundaries, length

START = "😀 start · ........ · end 😀"
TOKEN = re.compile(r"<c\d+e\d+>")


def _safe_positions(text: str) -> list[int]:
    """Offsets that split neither a surrogate pair nor another client's token."""
    inside = set()
    for m in TOKEN.finditer(text):
        a, b = length(text[:m.start()]), length(text[:m.end()])
        inside.update(range(a + 1, b))
    return [p for p in boundaries(text) if p not in inside]


def _dots(text: str) -> list[int]:
    """UTF-16 offsets of the filler dots, which clients delete now and then."""
    return [length(text[:i]) for i, ch in enumerate(text) if ch == "."]


def _run_clients(base: str, doc_id: str, clients: list[Client], edits_each: int, seed: int,
                 deletes: bool = True) -> list[str]:
    """Runs the clients at once; returns every token they inserted."""
    errors: list[BaseException] = []
    inserted: list[str] = []
    barrier = threading.Barrier(len(clients))

    def work(n: int, client: Client):
        rng = random.Random(seed * 1000 + n)
        try:
            barrier.wait(timeout=30)
            known = client.doc(doc_id)
            for e in range(edits_each):
                # Refresh the view only now and then, so most edits go out against a stale base.
                if e % 4 == 3:
                    known = client.doc(doc_id)
                text, rev = known["text"], known["revision"]
                n16 = length(text)
                dots = _dots(text)
                if deletes and dots and rng.random() < 0.2:
                    p = rng.choice(dots)
                    ops = [x for x in (p, -1, n16 - p - 1) if x != 0]
                else:
                    p = rng.choice(_safe_positions(text))
                    token = f"<c{n}e{e}>"
                    ops = [x for x in (p, token, n16 - p) if x != 0]
                client.edit(doc_id, {"base": rev, "ops": ops})
                if isinstance(ops[0], str) or (len(ops) > 1 and isinstance(ops[1], str)):
                    inserted.append(ops[0] if isinstance(ops[0], str) else ops[1])
        except BaseException as exc:  # surfaced in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n, c)) for n, c in enumerate(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a client thread hung"
    if errors:
        raise errors[0]
    return inserted


@pytest.mark.parametrize("sessions,edits_each", [(2, 25), (10, 10)])
def test_concurrent_sessions_converge(base, sessions, edits_each):
    anon = Client(base)
    doc = anon.create_doc(START)
    clients = [new_session(base, f"writer {i}") for i in range(sessions)]
    inserted = _run_clients(base, doc["id"], clients, edits_each, seed=sessions)
    assert len(inserted) > edits_each * sessions // 2

    final = anon.doc(doc["id"])
    text = final["text"]
    for token in inserted:
        assert text.count(token) == 1, f"insert {token} is not present exactly once"
    assert sorted(TOKEN.findall(text)) == sorted(inserted)
    # Nothing but the tokens, the filler and the fixed words is left.
    rest = TOKEN.sub("", text)
    assert rest.replace(".", "") == START.replace(".", "")
    assert final["length"] == length(text)

    changes = anon.changes(doc["id"], since=0)
    assert [c["revision"] for c in changes] == list(range(1, final["revision"] + 1))
    replayed = START
    for c in changes:
        replayed = apply_ops(replayed, c["ops"])
    assert replayed == text
    assert anon.get(f"/documents/{doc['id']}/text").content.decode() == text
    by_session = {c["session"] for c in changes}
    assert by_session == {c.id for c in clients}


def test_concurrent_session_undo_keeps_everyone_elses_text(base):
    anon = Client(base)
    doc = anon.create_doc("")
    clients = [new_session(base, f"undoer {i}") for i in range(4)]
    inserted = _run_clients(base, doc["id"], clients, 6, seed=99, deletes=False)
    assert len(inserted) == 24
    # Client 0 undoes everything it did while the others' text stays put.
    c0 = clients[0]
    statuses = [c0.undo(doc["id"]).status_code for _ in range(7)]
    assert statuses == [200] * 6 + [409]
    text = anon.text(doc["id"])
    for e in range(6):
        assert f"<c0e{e}>" not in text
    for n in range(1, 4):
        for e in range(6):
            assert text.count(f"<c{n}e{e}>") == 1


def test_undo_while_others_type(base):
    """One session edits and undoes again and again while three others insert: every
    insert of the others survives exactly once, and the undoer leaves nothing behind."""
    anon = Client(base)
    doc = anon.create_doc("")
    undoer = new_session(base, "undoer")
    writers = [new_session(base, f"typist {i}") for i in range(3)]
    errors: list[BaseException] = []
    stop = threading.Event()

    def churn():
        try:
            i = 0
            while not stop.is_set() and i < 40:
                known = undoer.doc(doc["id"])
                text, n16 = known["text"], length(known["text"])
                p = random.Random(i).choice(_safe_positions(text))
                # Against the base it was chosen in, so the server's transform (not luck)
                # keeps it out of the tokens typed meanwhile.
                ops = [x for x in (p, f"(u{i})", n16 - p) if x != 0]
                undoer.edit(doc["id"], {"base": known["revision"], "ops": ops, "newGroup": True})
                r = undoer.undo(doc["id"])
                assert r.status_code == 200, r.text
                i += 1
        except BaseException as e:
            errors.append(e)

    t = threading.Thread(target=churn)
    t.start()
    try:
        inserted = _run_clients(base, doc["id"], writers, 15, seed=7, deletes=False)
    finally:
        stop.set()
        t.join(timeout=60)
    assert not errors, errors[0]
    text = anon.text(doc["id"])
    assert "(u" not in text
    assert sorted(TOKEN.findall(text)) == sorted(inserted)
    assert len(inserted) == 45
