"""Documents: create, list, read (JSON and text, ETags), replace, delete, save, versions, metadata."""


from tandem_client import assert_error, describe, unchanged, unique

DOC_FIELDS = {"id", "title", "revision", "length", "text", "changeCount", "hasUnsavedChanges",
              "state", "created", "modified"}


def test_create_document_with_everything(anon):
    doc_id = unique("full")
    r = anon.post("/documents", {"id": doc_id, "title": "Notes", "text": "hello 😀"})
    assert r.status_code == 201, describe(r)
    d = r.json()
    assert set(d) >= DOC_FIELDS
    assert d["id"] == doc_id
    assert d["title"] == "Notes"
    assert d["text"] == "hello 😀"
    assert d["length"] == 8  # UTF-16 code units: the emoji counts 2
    assert d["revision"] == 0  # the starting text is not a change
    assert d["changeCount"] == 0
    assert d["hasUnsavedChanges"] is False
    assert d["state"] == "normal"


def test_create_document_with_nothing(anon):
    r = anon.post("/documents", {})
    assert r.status_code == 201, describe(r)
    d = r.json()
    assert isinstance(d["id"], str) and d["id"]
    assert d["text"] == "" and d["length"] == 0 and d["revision"] == 0
    assert anon.doc(d["id"])["text"] == ""


def test_created_text_is_not_undoable(anon):
    d = anon.create_doc("start")
    with unchanged(anon, d["id"]):
        assert_error(anon.undo(d["id"], scope="document"), 409, "nothing_to_undo")
    assert anon.history(d["id"], scope="document")["canUndo"] is False


def test_create_with_taken_id_is_409(anon):
    d = anon.create_doc("first")
    r = anon.post("/documents", {"id": d["id"], "text": "second"})
    assert_error(r, 409)
    assert anon.text(d["id"]) == "first"


def test_racing_creations_of_one_id(base, anon):
    import threading

    from tandem_client import Client
    doc_id = unique("race")
    statuses = []

    def create(n):
        r = Client(base).post("/documents", {"id": doc_id, "text": f"by {n}"})
        statuses.append(r.status_code)

    threads = [threading.Thread(target=create, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert sorted(statuses) == [201] + [409] * 7
    assert anon.text(doc_id).startswith("by ")


def test_create_with_bad_slug_is_rejected(anon):
    for bad in ("has space", "slash/y", "é", "", "x" * 129, "semi;colon"):
        r = anon.post("/documents", {"id": bad})
        assert_error(r, 400, "invalid_field")
    ok = "A-z_0.9-" + "y" * 120
    assert anon.post("/documents", {"id": ok}).status_code == 201


def test_create_with_wrong_types_is_rejected(anon):
    for body in ({"text": 5}, {"title": ["x"]}, {"id": 7}):
        assert_error(anon.post("/documents", body), 400, "invalid_field")
    for body in ([1, 2], "text"):  # not an object
        assert_error(anon.post("/documents", body), 400, "invalid_json")


def test_list_documents(alice):
    d = alice.create_doc("abc", title="Listed")
    r = alice.get("/documents")
    assert r.status_code == 200, describe(r)
    body = r.json()
    items = body if isinstance(body, list) else body.get("documents")
    assert isinstance(items, list), body
    mine = [x for x in items if x.get("id") == d["id"]]
    assert len(mine) == 1
    assert set(mine[0]) == {"id", "title", "revision", "length", "modified", "role", "opened"}
    assert mine[0]["role"] == "owner" and mine[0]["opened"] is None
    assert mine[0]["title"] == "Listed" and mine[0]["length"] == 3 and mine[0]["revision"] == 0


def test_get_unknown_document_is_404(anon):
    for path in ("/documents/no-such-doc", "/documents/no-such-doc/text", "/documents/no-such-doc/history",
                 "/documents/no-such-doc/edits?since=0"):
        assert_error(anon.get(path), 404, "not_found")
    assert_error(anon.post("/documents/no-such-doc/edits", {"insert": "x", "at": 0}), 404, "not_found")
    assert_error(anon.post("/documents/no-such-doc/undo"), 404, "not_found")
    assert_error(anon.delete("/documents/no-such-doc"), 404, "not_found")


def test_etag_and_if_none_match(anon):
    d = anon.create_doc("abc")
    r = anon.get(f"/documents/{d['id']}")
    assert r.headers["ETag"] == '"0"'
    r304 = anon.get(f"/documents/{d['id']}", headers={"If-None-Match": '"0"'})
    assert r304.status_code == 304
    assert r304.content == b""
    anon.insert(d["id"], "x", 0)
    r = anon.get(f"/documents/{d['id']}", headers={"If-None-Match": '"0"'})
    assert r.status_code == 200 and r.json()["text"] == "xabc"
    assert r.headers["ETag"] == '"1"'
    assert anon.get(f"/documents/{d['id']}", headers={"If-None-Match": '"1"'}).status_code == 304
    assert anon.get(f"/documents/{d['id']}", headers={"If-None-Match": "*"}).status_code == 304


def test_text_as_plain_text(anon):
    d = anon.create_doc("héllo 😀\nline two")
    r = anon.get(f"/documents/{d['id']}/text")
    assert r.status_code == 200
    assert r.headers["Content-Type"].startswith("text/plain")
    assert r.content == "héllo 😀\nline two".encode()
    assert r.headers["ETag"] == '"0"'
    r304 = anon.get(f"/documents/{d['id']}/text", headers={"If-None-Match": '"0"'})
    assert r304.status_code == 304 and r304.content == b""


def test_put_text_replaces_raw_bytes_and_is_one_undoable_replace(anon, alice):
    d = anon.create_doc("old text")
    raw = "new 😀 text\r\nwith\ttabs and ünïcödé\n".encode()
    for _ in range(2):
        r = alice.request("PUT", f"/documents/{d['id']}/text", data=raw,
                          headers={"Content-Type": "text/plain; charset=utf-8"})
        assert r.status_code == 200, describe(r)
        assert anon.get(f"/documents/{d['id']}/text").content == raw
    assert anon.doc(d["id"])["revision"] == 1  # the second PUT changed nothing
    h = alice.history(d["id"])
    assert h["undoActionName"] == "Replace"
    assert h["undoMenuItemTitle"] == "Undo Replace"
    r = alice.undo(d["id"])
    assert r.status_code == 200, describe(r)
    assert r.json()["actionName"] == "Replace"
    assert anon.text(d["id"]) == "old text"


def test_put_text_takes_what_curl_data_binary_sends(anon):
    """`curl -X PUT --data-binary @file URL` sends Content-Type application/x-www-form-urlencoded
    unless told otherwise; the contract says that must work."""
    d = anon.create_doc("old")
    for ctype in ("application/x-www-form-urlencoded", None):
        headers = {"Content-Type": ctype} if ctype else {}
        r = anon.request("PUT", f"/documents/{d['id']}/text", data=f"sent as {ctype}".encode(), headers=headers)
        assert r.status_code == 200, describe(r)
        assert anon.text(d["id"]) == f"sent as {ctype}"


def test_put_text_if_match(anon):
    d = anon.create_doc("v0")
    anon.insert(d["id"], "!", 2)
    with unchanged(anon, d["id"]):
        r = anon.request("PUT", f"/documents/{d['id']}/text", data=b"lost", headers={
            "Content-Type": "text/plain", "If-Match": '"0"'})
        assert_error(r, 412, "precondition_failed")
    r = anon.request("PUT", f"/documents/{d['id']}/text", data=b"won", headers={
        "Content-Type": "text/plain", "If-Match": '"1"'})
    assert r.status_code == 200, describe(r)
    assert anon.text(d["id"]) == "won"


def test_put_text_if_match_compares_strongly(anon):
    """RFC 9110 §13.1.1: If-Match uses the strong comparison, so a weak tag never matches;
    a list matches when one of its tags does, and `*` matches an existing document."""
    d = anon.create_doc("v0")
    path = f"/documents/{d['id']}/text"
    with unchanged(anon, d["id"]):
        for tag in ('W/"0"', '"7", W/"0"', "0", '"00"'):
            r = anon.request("PUT", path, data=b"lost", headers={"Content-Type": "text/plain", "If-Match": tag})
            assert_error(r, 412, "precondition_failed")
    for n, tag in enumerate(('"7", "0"', "*")):
        r = anon.request("PUT", path, data=f"won {n}".encode(), headers={"Content-Type": "text/plain", "If-Match": tag})
        assert r.status_code == 200, describe(r)
    assert anon.text(d["id"]) == "won 1"


def test_put_text_rejects_invalid_utf8(anon):
    d = anon.create_doc("keep")
    with unchanged(anon, d["id"]):
        r = anon.request("PUT", f"/documents/{d['id']}/text", data=b"bad \xff\xfe bytes",
                         headers={"Content-Type": "text/plain"})
        assert_error(r, 400, "invalid_text")


def test_delete_document(anon):
    d = anon.create_doc("bye")
    r = anon.delete(f"/documents/{d['id']}")
    assert r.status_code == 204, describe(r)
    assert_error(anon.get(f"/documents/{d['id']}"), 404, "not_found")
    assert_error(anon.delete(f"/documents/{d['id']}"), 404, "not_found")
    assert all(x.get("id") != d["id"] for x in _items(anon.get("/documents").json()))


def test_recreated_document_starts_fresh(anon, alice):
    d = anon.create_doc("first life")
    alice.insert(d["id"], "!", 10)
    assert anon.delete(f"/documents/{d['id']}").status_code == 204
    again = anon.create_doc("second life", doc_id=d["id"])
    assert again["revision"] == 0 and again["text"] == "second life"
    assert anon.changes(d["id"]) == []
    assert alice.history(d["id"])["canUndo"] is False
    assert_error(alice.undo(d["id"]), 409, "nothing_to_undo")
    assert anon.text(d["id"]) == "second life"


def test_each_save_is_a_version(anon):
    d = anon.create_doc("")
    for word in ("one", " two"):
        anon.insert(d["id"], word, len(anon.text(d["id"])))
        assert anon.post(f"/documents/{d['id']}/save").status_code == 201
    versions = _items(anon.get(f"/documents/{d['id']}/versions").json(), "versions")
    numbers = [_version_number(v) for v in versions]
    assert len(numbers) == 2 and len(set(numbers)) == 2
    texts = [anon.get(f"/documents/{d['id']}/versions/{n}/text").content.decode() for n in sorted(numbers)]
    assert texts == ["one", "one two"]


def test_save_resets_change_count_and_makes_a_version(anon):
    d = anon.create_doc("a")
    anon.insert(d["id"], "b", 1)
    anon.insert(d["id"], "c", 2)
    doc = anon.doc(d["id"])
    # Adjacent typing is one "Typing" group, and UIDocument counts groups, not keystrokes.
    assert doc["changeCount"] == 1 and doc["hasUnsavedChanges"] is True
    anon.insert(d["id"], "!", 0, newGroup=True)
    assert anon.doc(d["id"])["changeCount"] == 2
    r = anon.undo(d["id"])
    assert r.status_code == 200, describe(r)
    assert anon.doc(d["id"])["changeCount"] == 1
    r = anon.post(f"/documents/{d['id']}/save")
    assert r.status_code == 201, describe(r)
    doc = anon.doc(d["id"])
    assert doc["changeCount"] == 0 and doc["hasUnsavedChanges"] is False
    anon.insert(d["id"], "d", 3)

    r = anon.get(f"/documents/{d['id']}/versions")
    assert r.status_code == 200, describe(r)
    versions = _items(r.json(), "versions")
    assert versions, "a save must leave a version"
    texts = []
    for v in versions:
        n = _version_number(v)
        t = anon.get(f"/documents/{d['id']}/versions/{n}/text")
        assert t.status_code == 200, describe(t)
        assert t.headers["Content-Type"].startswith("text/plain")
        texts.append(t.content.decode())
    assert "abc" in texts
    assert "abcd" not in texts  # saved before the last edit
    assert_error(anon.get(f"/documents/{d['id']}/versions/987654/text"), 404, "not_found")


def test_patch_title(anon):
    d = anon.create_doc("", title="Old")
    r = anon.patch(f"/documents/{d['id']}", {"title": "New"})
    assert r.status_code == 200, describe(r)
    assert anon.doc(d["id"])["title"] == "New"


def test_editing_disabled_forbids_every_change(anon, alice):
    d = anon.create_doc("locked")
    alice.insert(d["id"], "!", 6)
    r = anon.patch(f"/documents/{d['id']}", {"editingDisabled": True})
    assert r.status_code == 200, describe(r)
    assert anon.doc(d["id"])["state"] == "editingDisabled"
    with unchanged(anon, d["id"]):
        assert_error(alice.post(f"/documents/{d['id']}/edits", {"insert": "x", "at": 0}), 403, "editing_disabled")
        assert_error(anon.post(f"/documents/{d['id']}/edits", {"insert": "x", "at": 0}), 403, "editing_disabled")
        assert_error(alice.undo(d["id"]), 403, "editing_disabled")
        r = anon.request("PUT", f"/documents/{d['id']}/text", data=b"x", headers={"Content-Type": "text/plain"})
        assert_error(r, 403, "editing_disabled")
    r = anon.patch(f"/documents/{d['id']}", {"editingDisabled": False})
    assert r.status_code == 200, describe(r)
    assert anon.doc(d["id"])["state"] == "normal"
    assert alice.undo(d["id"]).status_code == 200
    assert anon.text(d["id"]) == "locked"


def test_patch_rejects_bad_metadata(anon):
    d = anon.create_doc("x", title="T")
    for body in ({"levelsOfUndo": -1}, {"editingDisabled": "yes"}, {"title": 3}):
        assert_error(anon.patch(f"/documents/{d['id']}", body), 400, "invalid_field")
    r = anon.request("PATCH", f"/documents/{d['id']}", data=b'{"title": ', headers={"Content-Type": "application/json"})
    assert_error(r, 400, "invalid_json")
    doc = anon.doc(d["id"])
    assert doc["title"] == "T" and doc["state"] == "normal"
    assert_error(anon.patch("/documents/nope-nope", {"title": "x"}), 404, "not_found")


def _items(body, key="documents"):
    if isinstance(body, list):
        return body
    assert isinstance(body, dict) and isinstance(body.get(key), list), body
    return body[key]


def _version_number(v):
    for key in ("version", "number", "n", "id"):
        if isinstance(v.get(key), int):
            return v[key]
    raise AssertionError(f"a version entry without a number: {v}")


def test_awkward_characters_round_trip(anon, base):
    from tandem_client import new_session
    awkward = 'quote " backslash \\ nul \x00 unit-sep \x1f del \x7f ls \u2028 emoji 😀 é\r\n\ttab'
    d = anon.create_doc(awkward, title=awkward)
    got = anon.doc(d["id"])
    assert got["text"] == awkward and got["title"] == awkward
    assert anon.get(f"/documents/{d['id']}/text").content == awkward.encode()
    anon.insert(d["id"], awkward, 0)
    assert anon.text(d["id"]) == awkward + awkward
    s = new_session(base, awkward)
    assert s.get("/sessions/me").json()["name"] == awkward


def test_large_document(anon):
    big = ("line of text with ünïcode 😀\n" * 40000)  # about 1.2 MB
    d = anon.create_doc("")
    r = anon.request("PUT", f"/documents/{d['id']}/text", data=big.encode(), headers={"Content-Type": "text/plain"})
    assert r.status_code == 200, describe(r)
    doc = anon.doc(d["id"])
    assert doc["length"] == len(big.encode("utf-16-le")) // 2
    line = "line of text with ünïcode 😀\n"
    k = 20000  # insert at the start of line k: 29 UTF-16 units per line, 28 characters
    anon.insert(d["id"], "MIDDLE", k * 29)
    text = anon.get(f"/documents/{d['id']}/text").content.decode()
    assert text == big[: k * len(line)] + "MIDDLE" + big[k * len(line):]
