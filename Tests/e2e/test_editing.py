"""Editing: the four body forms, transformation of stale bases, UTF-16 positions, no-ops."""

import time

from tandem_client import Client, assert_error, describe, new_session, unchanged
from utf16 import apply_ops


def _edited(client, doc_id, body):
    before = client.doc(doc_id)
    r = client.edit(doc_id, body)
    assert set(r) >= {"revision", "ops", "selection"}
    if client.token or r["selection"] is not None:
        # A session's selection is answered; an anonymous caller has none to keep.
        assert set(r["selection"]) >= {"anchor", "head"}, r
    after = client.doc(doc_id)
    assert r["revision"] == before["revision"] + 1 == after["revision"]
    # The ops answered are the change as applied: they turn the old text into the new.
    assert apply_ops(before["text"], r["ops"]) == after["text"]
    return r, after


def test_insert(anon, alice):
    d = anon.create_doc("hello world")
    r, after = _edited(alice, d["id"], {"insert": ",", "at": 5})
    assert after["text"] == "hello, world"
    assert after["length"] == 12
    assert r["selection"]["head"] == 6  # the caret ends after the inserted text
    assert r["selection"]["anchor"] in (5, 6)


def test_delete(anon, alice):
    d = anon.create_doc("hello cruel world")
    r, after = _edited(alice, d["id"], {"delete": {"from": 5, "to": 11}})
    assert after["text"] == "hello world"
    assert (r["selection"]["anchor"], r["selection"]["head"]) == (5, 5)


def test_replace(anon, alice):
    d = anon.create_doc("hello world")
    r, after = _edited(alice, d["id"], {"replace": {"from": 6, "to": 11}, "with": "there"})
    assert after["text"] == "hello there"
    assert r["selection"]["head"] == 11


def test_ops_at_current_base(anon):
    d = anon.create_doc("abcdefghijklmnopqrst")  # 20
    r, after = _edited(anon, d["id"], {"base": 0, "ops": [5, "hello", -3, 12]})
    assert after["text"] == "abcdehelloijklmnopqrst"


def test_ops_with_stale_base_are_transformed(anon, alice, bob):
    d = anon.create_doc("abc")
    alice.edit(d["id"], {"base": 0, "ops": ["X", 3]})          # rev 1: Xabc
    r = bob.edit(d["id"], {"base": 0, "ops": [3, "Y"]})          # written against "abc"
    assert r["revision"] == 2
    assert r["ops"] == [4, "Y"]                                  # as applied after Alice's X
    r = bob.edit(d["id"], {"base": 0, "ops": [1, -1, 1]})        # delete "b" of the old "abc"
    assert anon.text(d["id"]) == "XacY"
    assert apply_ops("XabcY", r["ops"]) == "XacY"


def test_concurrent_deletes_of_the_same_text_delete_it_once(anon, alice, bob):
    d = anon.create_doc("0123456789")
    alice.edit(d["id"], {"base": 0, "ops": [2, -4, 4]})
    bob.edit(d["id"], {"base": 0, "ops": [4, -4, 2]})
    assert anon.text(d["id"]) == "0189"


def test_utf16_positions(anon):
    d = anon.create_doc("a😀b")
    assert d["length"] == 4
    r, after = _edited(anon, d["id"], {"insert": "x", "at": 3})
    assert after["text"] == "a😀xb"
    r, after = _edited(anon, d["id"], {"delete": {"from": 1, "to": 3}})
    assert after["text"] == "axb"
    r, after = _edited(anon, d["id"], {"base": after["revision"], "ops": [1, "🎉🎉", 2]})
    assert after["text"] == "a🎉🎉xb" and after["length"] == 7


def test_edits_that_split_a_surrogate_pair_are_422(anon):
    d = anon.create_doc("a😀b")
    with unchanged(anon, d["id"]):
        for body in ({"insert": "x", "at": 2},
                     {"delete": {"from": 1, "to": 2}},
                     {"delete": {"from": 2, "to": 4}},
                     {"replace": {"from": 2, "to": 3}, "with": "y"},
                     {"base": 0, "ops": [2, "x", 2]},
                     {"base": 0, "ops": [1, -1, 2]}):
            assert_error(anon.post(f"/documents/{d['id']}/edits", body), 422, "splits_surrogate_pair")


def test_length_mismatch_is_422(anon):
    d = anon.create_doc("hello")
    with unchanged(anon, d["id"]):
        for ops in ([3], [6], [2, -4], ["x"], [5, "x", 1], [-6]):
            r = anon.post(f"/documents/{d['id']}/edits", {"base": 0, "ops": ops})
            assert_error(r, 422, "length_mismatch")


def test_positions_out_of_range_are_422(anon):
    d = anon.create_doc("hello")
    with unchanged(anon, d["id"]):
        for body in ({"insert": "x", "at": 6}, {"insert": "x", "at": 1000000},
                     {"delete": {"from": 3, "to": 9}}, {"replace": {"from": 6, "to": 7}, "with": "y"}):
            assert_error(anon.post(f"/documents/{d['id']}/edits", body), 422, "position_out_of_range")
        # Well-formed numbers that name no place in the text: 422, like positions past the end.
        for body in ({"insert": "x", "at": -1}, {"delete": {"from": 4, "to": 2}},
                     {"delete": {"from": -1, "to": 2}}):
            assert_error(anon.post(f"/documents/{d['id']}/edits", body), 422, "position_out_of_range")


def test_malformed_bodies_are_400(anon):
    d = anon.create_doc("hello")
    path = f"/documents/{d['id']}/edits"
    with unchanged(anon, d["id"]):
        r = anon.request("POST", path, data=b"", headers={"Content-Type": "application/json"})
        assert_error(r, 400)
        for raw in (b"{", b'{"insert": "x", "at": 1', b"nul\x00l", b'{"insert": "\xff", "at": 0}',
                    b'{"insert": "x", "at": 0} trailing'):
            r = anon.request("POST", path, data=raw, headers={"Content-Type": "application/json"})
            assert_error(r, 400, "invalid_json")
        # Not a JSON object at all: the body is not what the endpoint reads.
        for body in ([1, 2], "insert", 5, None):
            r = anon.request("POST", path, data=_dumps(body), headers={"Content-Type": "application/json"})
            assert_error(r, 400, "invalid_json")
        # No edit form, or two of them.
        for body in ({}, {"base": 0}, {"insert": "x", "at": 0, "ops": [5]}):
            r = anon.request("POST", path, data=_dumps(body), headers={"Content-Type": "application/json"})
            assert_error(r, 400, "invalid_edit")
        # A field of the wrong type, missing its partner, or an operation that is not compact.
        for body in ({"insert": 5, "at": 0}, {"insert": "x"},
                     {"insert": "x", "at": "0"}, {"insert": "x", "at": 1.5}, {"delete": {"from": 1}},
                     {"delete": [1, 2]}, {"replace": {"from": 0, "to": 1}},
                     {"base": "0", "ops": [5]}, {"base": 0, "ops": 5}, {"base": -1, "ops": [5]},
                     {"base": 0, "ops": [0, 5]}, {"base": 0, "ops": [5, None]}, {"base": 0, "ops": [2.5, 2.5]},
                     {"base": 0, "ops": [5, [1]]}, {"base": 0, "ops": [5, True]},
                     {"insert": "x", "at": 0, "undoable": "no"}, {"insert": "x", "at": 0, "actionName": 7}):
            r = anon.request("POST", path, data=_dumps(body), headers={"Content-Type": "application/json"})
            assert_error(r, 400, "invalid_field")


def test_base_in_the_future_is_rejected(anon):
    d = anon.create_doc("hello")
    with unchanged(anon, d["id"]):
        for base in (1, 99):
            assert_error(anon.post(f"/documents/{d['id']}/edits", {"base": base, "ops": [5]}), 422, "revision_in_future")


def test_wrong_content_type_is_415(anon):
    d = anon.create_doc("hello")
    with unchanged(anon, d["id"]):
        r = anon.request("POST", f"/documents/{d['id']}/edits", data=b'{"insert":"x","at":0}',
                         headers={"Content-Type": "image/png"})
        assert_error(r, 415, "unsupported_media_type")


def test_noop_edits_do_not_make_revisions_or_undo_groups(anon, alice):
    d = anon.create_doc("hello")
    for body in ({"insert": "", "at": 2}, {"delete": {"from": 3, "to": 3}},
                 {"replace": {"from": 1, "to": 1}, "with": ""}, {"base": 0, "ops": [5]}):
        r = alice.edit(d["id"], body)
        assert r["revision"] == 0, r
    assert anon.doc(d["id"])["revision"] == 0
    assert anon.doc(d["id"])["changeCount"] == 0
    assert alice.history(d["id"])["canUndo"] is False
    assert anon.changes(d["id"]) == []


def test_replace_with_same_text_changes_nothing(anon):
    d = anon.create_doc("hello")
    r = anon.edit(d["id"], {"replace": {"from": 0, "to": 5}, "with": "hello"})
    # Either a no-op or a change: if the server counts it, it must be a real revision.
    assert anon.text(d["id"]) == "hello"
    assert anon.doc(d["id"])["revision"] == r["revision"]


def test_edits_log_lists_changes_in_order(anon, alice):
    d = anon.create_doc("")
    alice.insert(d["id"], "ab", 0, actionName="Paste Words")
    anon.insert(d["id"], "c", 2)
    assert alice.undo(d["id"]).status_code == 200
    assert alice.redo(d["id"]).status_code == 200
    changes = anon.changes(d["id"], since=0)
    assert [c["revision"] for c in changes] == [1, 2, 3, 4]
    for c in changes:
        assert set(c) >= {"revision", "ops", "session", "kind", "actionName"}
    assert [c["kind"] for c in changes] == ["edit", "edit", "undo", "redo"]
    assert changes[0]["session"] == alice.id
    assert changes[1]["session"] is None  # anonymous
    assert changes[0]["actionName"] == "Paste Words"
    assert changes[2]["actionName"] == "Paste Words"
    text = ""
    for c in changes:
        text = apply_ops(text, c["ops"])
    assert text == anon.text(d["id"]) == "abc"
    assert [c["revision"] for c in anon.changes(d["id"], since=2)] == [3, 4]
    assert anon.changes(d["id"], since=4) == []


def test_edits_since_rejects_bad_numbers(anon):
    d = anon.create_doc("")
    for q in ("since=abc", "since=-1", "since=1.5", "since=0&wait=abc", "since=0&wait=-1"):
        assert_error(anon.get(f"/documents/{d['id']}/edits?{q}"), 400, "invalid_field")


def _dumps(body):
    import json
    return json.dumps(body).encode()


def test_base_older_than_the_kept_log_is_410(servers):
    """With --log-kept 2 the server keeps only the last two changes in memory: a base
    before them cannot be transformed any more and is refused, changing nothing. With no
    archive (--archive-bytes 0) their changes cannot be listed either."""
    srv = servers(extra_args=("--log-kept", "2", "--archive-bytes", "0"), name="trimmed-log")
    anon = Client(srv.base)
    d = anon.create_doc("abc")
    for i in range(5):
        anon.insert(d["id"], str(i), 0)
    _wait_trimmed(anon, d["id"])
    with unchanged(anon, d["id"]):
        for body in ({"base": 2, "insert": "x", "at": 0}, {"base": 0, "ops": [3, "x"]}, {"base": 1, "ops": [4, "x"]}):
            assert_error(anon.post(f"/documents/{d['id']}/edits", body), 410, "revision_trimmed")
        assert_error(anon.get(f"/documents/{d['id']}/edits", params={"since": 2}), 410, "revision_trimmed")
    # The oldest base still kept is transformed as usual.
    r = anon.post(f"/documents/{d['id']}/edits", {"base": 3, "insert": "!", "at": 6})
    assert r.status_code == 200, describe(r)
    assert anon.text(d["id"]) == "43210abc!"
    assert [c["revision"] for c in anon.changes(d["id"], since=3)] == [4, 5, 6]


def _wait_trimmed(client, doc_id, deadline_s=10):
    """The trim happens in the server's once-a-second housekeeping."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if client.get(f"/documents/{doc_id}/edits", params={"since": 0}).status_code == 410:
            return
        time.sleep(0.2)
    raise AssertionError("the log was not trimmed to --log-kept")


def _pages(client, doc_id, since, max_bytes):
    """Every change after `since`, following `Link: rel="next"` page by page."""
    out, path = [], f"/documents/{doc_id}/edits?since={since}&maxBytes={max_bytes}"
    while path:
        r = client.get(path)
        assert r.status_code == 200, describe(r)
        out.extend(r.json())
        link = r.headers.get("Link")
        path = link[1:link.index(">")] if link else None
    return out


def _wait_left_memory(client, doc_id, base, deadline_s=15):
    """Until a selection on `base` is 410 on four requests in a row (on two nodes, each
    has cut its own copy of the log): the changes after it left memory."""
    deadline = time.monotonic() + deadline_s
    while not all(client.put(f"/documents/{doc_id}/selection", {"anchor": 0, "head": 0, "base": base}).status_code == 410
                  for _ in range(4)):
        assert time.monotonic() < deadline, "the log was not trimmed to --log-kept"
        time.sleep(0.2)


def test_changes_that_left_memory_are_still_listed_from_the_store_in_pages_and_after_a_restart(servers):
    """With --log-kept 2 only the last two changes stay in memory; the others are archived
    in the store, and `GET …/edits` pages through them exactly as it listed them before."""
    srv = servers(extra_args=("--log-kept", "2"), name="archived-log")
    ada = new_session(srv.base, "Ada")
    d = ada.create_doc("abc")
    for i in range(30):
        ada.insert(d["id"], f"<{i}>" * 20, 0)
    assert ada.undo(d["id"]).status_code == 200
    listed = ada.changes(d["id"], since=0)
    assert [c["revision"] for c in listed] == list(range(1, 32)), listed
    _wait_left_memory(ada, d["id"], 1)
    # Small pages: the archive's answer is cut like the log's, and continues into memory.
    assert _pages(ada, d["id"], 0, 1024) == listed
    assert _pages(ada, d["id"], 17, 1024) == listed[17:]
    assert ada.changes(d["id"], since=5) == listed[5:]
    # Stale bases are still refused: the archive lists changes, it does not transform edits.
    with unchanged(ada, d["id"]):
        assert_error(ada.post(f"/documents/{d['id']}/edits", {"base": 1, "insert": "x", "at": 0}), 410, "revision_trimmed")
    srv.restart()
    ada = Client(srv.base, token=ada.token, session=ada.session)  # the port is new
    assert _pages(ada, d["id"], 0, 1024) == listed
    srv.kill()
    srv.start()
    ada = Client(srv.base, token=ada.token, session=ada.session)
    assert ada.changes(d["id"], since=0) == listed
    # A deleted document's archive goes with it.
    assert ada.delete(f"/documents/{d['id']}").status_code == 204
    assert_error(ada.get(f"/documents/{d['id']}/edits", params={"since": 0}), 404, "not_found")
