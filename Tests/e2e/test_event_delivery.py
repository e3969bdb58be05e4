"""Live events under the write policy of issue 31: a change goes out at once to subscribers
with nothing in flight and is coalesced only while earlier writes are pending. Whatever the
policy batches, every subscriber gets every change exactly once, in order: identity and gzip
streams alike, and one that joins in the middle of a burst from many sessions."""

from __future__ import annotations

import threading

from tandem_client import new_session
from test_events import _subscribe, _subscribe_gzip, _synced
from utf16 import apply_ops


def _read_changes(stream, count: int, out: list, errors: list, text: list | None = None):
    try:
        while len(out) < count:
            ev = stream.next_change(timeout=30)
            data = ev.json()
            assert ev.id == str(data["revision"])
            out.append(data["revision"])
            if text is not None:
                text[0] = apply_ops(text[0], data["ops"])
    except BaseException as e:  # reported by the test
        errors.append(e)


def test_a_burst_from_many_sessions_reaches_identity_gzip_and_late_subscribers_once_in_order(base, anon):
    d = anon.create_doc("")
    doc = d["id"]
    writers = [new_session(base, f"burst{i}") for i in range(8)]
    per_writer = 40
    total = len(writers) * per_writer
    identity = _subscribe(anon, doc)
    gzipped = _subscribe_gzip(anon, doc)
    try:
        first = _synced(anon, identity, doc)
        assert gzipped.next_change().json()["revision"] == first
        seen = {"identity": [], "gzip": [], "late": []}
        texts = {"identity": [anon.text(doc)], "gzip": [anon.text(doc)]}
        errors: list = []
        readers = [
            threading.Thread(target=_read_changes, args=(identity, total, seen["identity"], errors, texts["identity"])),
            threading.Thread(target=_read_changes, args=(gzipped, total, seen["gzip"], errors, texts["gzip"])),
        ]
        for r in readers:
            r.start()
        halfway = threading.Event()
        late_from: list = []

        def write(n, client):
            try:
                for e in range(per_writer):
                    client.edit(doc, {"insert": f"<{n}.{e}>", "at": 0, "newGroup": e % 3 == 0})
                    if n == 0 and e == per_writer // 2:
                        halfway.set()
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=write, args=(n, c)) for n, c in enumerate(writers)]
        for t in threads:
            t.start()
        # A subscriber joins in the middle of the burst, resuming from the revision it last saw.
        halfway.wait(timeout=60)
        joined_at = anon.doc(doc)["revision"]
        late = _subscribe_gzip(anon, doc, last_event_id=joined_at)
        late_from.append(joined_at)
        for t in threads:
            t.join(timeout=120)
        final = anon.doc(doc)
        assert final["revision"] == first + total
        late_reader = threading.Thread(target=_read_changes, args=(late, final["revision"] - joined_at, seen["late"], errors))
        late_reader.start()
        for r in readers + [late_reader]:
            r.join(timeout=60)
        assert not errors, errors[0]
        assert seen["identity"] == list(range(first + 1, first + total + 1))
        assert seen["gzip"] == seen["identity"]
        assert seen["late"] == list(range(joined_at + 1, final["revision"] + 1))
        assert texts["identity"][0] == texts["gzip"][0] == final["text"]
        # Nothing trails behind: the next change is the next event on every stream.
        anon.insert(doc, "!", 0)
        for s in (identity, gzipped, late):
            assert s.next_change().json()["revision"] == final["revision"] + 1
        late.close()
    finally:
        identity.close()
        gzipped.close()


def test_single_changes_with_pauses_each_arrive_on_their_own(anon, alice):
    """At one change at a time nothing is held back for company: each event arrives before
    the next change is made."""
    d = anon.create_doc("")
    with _subscribe(anon, d["id"]) as s, _subscribe_gzip(anon, d["id"]) as g:
        first = _synced(alice, s, d["id"])
        assert g.next_change().json()["revision"] == first
        for i in range(20):
            r = alice.insert(d["id"], "k", 0)
            assert s.next_change(timeout=10).json()["revision"] == r["revision"] == first + 1 + i
            assert g.next_change(timeout=10).json()["revision"] == r["revision"]
