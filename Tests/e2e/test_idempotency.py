"""Idempotency-Key: a resent change answers the first answer and changes nothing more."""

import threading

import requests

from tandem_client import Client, assert_error, describe, unchanged, unique


def _post(client, path, body, key):
    return client.post(path, body, headers={"Idempotency-Key": key})


def test_resent_edit_answers_the_same_and_applies_once(anon, alice):
    d = anon.create_doc("abc")
    key = unique("key")
    first = _post(alice, f"/documents/{d['id']}/edits", {"insert": "X", "at": 1}, key)
    assert first.status_code == 200, describe(first)
    anon.insert(d["id"], "!", 4)  # something else happens in between
    again = _post(alice, f"/documents/{d['id']}/edits", {"insert": "X", "at": 1}, key)
    assert again.status_code == 200, describe(again)
    assert again.json() == first.json()
    assert anon.text(d["id"]) == "aXbc!"
    assert anon.doc(d["id"])["revision"] == 2


def test_anonymous_keys_are_scoped_to_the_document(anon):
    d1, d2 = anon.create_doc("one"), anon.create_doc("two")
    key = unique("key")
    r1 = _post(anon, f"/documents/{d1['id']}/edits", {"insert": "+", "at": 0}, key)
    r1b = _post(anon, f"/documents/{d1['id']}/edits", {"insert": "+", "at": 0}, key)
    assert r1.json() == r1b.json()
    r2 = _post(anon, f"/documents/{d2['id']}/edits", {"insert": "+", "at": 0}, key)
    assert r2.status_code == 200
    assert anon.text(d1["id"]) == "+one"
    assert anon.text(d2["id"]) == "+two"


def test_keys_are_scoped_to_the_session(anon, alice, bob):
    d = anon.create_doc("")
    key = unique("key")
    assert _post(alice, f"/documents/{d['id']}/edits", {"insert": "a", "at": 0}, key).status_code == 200
    assert _post(bob, f"/documents/{d['id']}/edits", {"insert": "b", "at": 0, "newGroup": True}, key).status_code == 200
    assert sorted(anon.text(d["id"])) == ["a", "b"]


def test_simultaneous_resends_apply_once(base, anon, alice):
    d = anon.create_doc("")
    key = unique("key")
    bodies, errors = [], []

    def send():
        try:
            c = Client(base, token=alice.token, session=alice.session)
            r = _post(c, f"/documents/{d['id']}/edits", {"insert": "once", "at": 0}, key)
            assert r.status_code == 200, describe(r)
            bodies.append(r.json())
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=send) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not errors, errors[0]
    assert len(bodies) == 6 and all(b == bodies[0] for b in bodies)
    assert anon.text(d["id"]) == "once"
    assert anon.doc(d["id"])["revision"] == 1


def test_resent_undo_undoes_once(anon, alice):
    d = anon.create_doc("")
    alice.insert(d["id"], "a", 0)
    alice.insert(d["id"], "b", 1, newGroup=True)
    key = unique("key")
    r1 = _post(alice, f"/documents/{d['id']}/undo", None, key)
    r2 = _post(alice, f"/documents/{d['id']}/undo", None, key)
    assert r1.status_code == r2.status_code == 200
    assert r1.json() == r2.json()
    assert anon.text(d["id"]) == "a"


def test_resent_document_creation(alice):
    key = unique("key")
    r1 = _post(alice, "/documents", {"text": "made once"}, key)
    r2 = _post(alice, "/documents", {"text": "made once"}, key)
    assert r1.status_code == r2.status_code == 201
    assert r1.json()["id"] == r2.json()["id"]


def test_key_limit_is_128_bytes(anon):
    d = anon.create_doc("x")
    with unchanged(anon, d["id"]):
        r = _post(anon, f"/documents/{d['id']}/edits", {"insert": "y", "at": 0}, "k" * 129)
        assert_error(r, 400)
    r = _post(anon, f"/documents/{d['id']}/edits", {"insert": "y", "at": 0}, "k" * 128)
    assert r.status_code == 200, describe(r)


def test_bad_request_does_not_burn_the_key(anon):
    d = anon.create_doc("x")
    key = unique("key")
    assert_error(_post(anon, f"/documents/{d['id']}/edits", {"insert": "y", "at": 9}, key), 422)
    r = _post(anon, f"/documents/{d['id']}/edits", {"insert": "y", "at": 1}, key)
    assert r.status_code == 200, describe(r)
    assert anon.text(d["id"]) == "xy"


def test_resent_put_text_does_not_overwrite_later_edits(anon, alice):
    d = anon.create_doc("old")
    key = unique("key")
    headers = {"Content-Type": "text/plain", "Idempotency-Key": key}
    r1 = alice.request("PUT", f"/documents/{d['id']}/text", data=b"new", headers=headers)
    assert r1.status_code == 200, describe(r1)
    anon.insert(d["id"], "er", 3)
    r2 = alice.request("PUT", f"/documents/{d['id']}/text", data=b"new", headers=headers)
    assert r2.status_code == r1.status_code
    assert r2.content == r1.content
    assert anon.text(d["id"]) == "newer"
    assert anon.doc(d["id"])["revision"] == 2


def test_forged_token_with_a_known_key_is_401_not_a_replay(base, anon, alice):
    """The id half of a token names a session but proves nothing: a resend under someone
    else's id with a made-up secret must be refused before any cached answer is looked up."""
    d = anon.create_doc("abc")
    key = unique("key")
    first = _post(alice, f"/documents/{d['id']}/edits", {"insert": "X", "at": 1}, key)
    assert first.status_code == 200, describe(first)
    with unchanged(anon, d["id"]):
        for forged in (alice.id + ".garbage", alice.id + "." + "A" * 43):
            r = _post(Client(base, token=forged), f"/documents/{d['id']}/edits", {"insert": "X", "at": 1}, key)
            assert_error(r, 401, "unauthorized")
            assert "Idempotent-Replayed" not in r.headers
    # The owner still gets the replay.
    again = _post(alice, f"/documents/{d['id']}/edits", {"insert": "X", "at": 1}, key)
    assert again.status_code == 200 and again.headers.get("Idempotent-Replayed") == "true"
    assert again.json() == first.json()


def test_new_sessions_are_never_replayed(base):
    """A session's answer carries its token: two clients (or one client twice) sending the
    same key each get a session of their own, and no token is ever handed out twice."""
    key = unique("key")
    answers = []
    for name in ("one", "two", "two"):
        r = requests.post(base + "/sessions", json={"name": name}, headers={"Idempotency-Key": key}, timeout=10)
        assert r.status_code == 201, describe(r)
        assert "Idempotent-Replayed" not in r.headers
        answers.append(r.json())
    assert len({a["token"] for a in answers}) == 3
    assert len({a["id"] for a in answers}) == 3
    assert [a["name"] for a in answers] == ["one", "two", "two"]
    for a in answers:
        assert Client(base, token=a["token"]).get("/sessions/me").json()["id"] == a["id"]


def test_a_key_reused_with_a_different_request_is_422(anon, alice):
    d = anon.create_doc("abc")
    key = unique("key")
    assert _post(alice, f"/documents/{d['id']}/edits", {"insert": "X", "at": 1}, key).status_code == 200
    with unchanged(anon, d["id"]):
        assert_error(_post(alice, f"/documents/{d['id']}/edits", {"insert": "Y", "at": 1}, key), 422, "idempotency_key_reused")
        assert_error(_post(alice, f"/documents/{d['id']}/undo", None, key), 422, "idempotency_key_reused")
    # The first request is still answered from the cache.
    r = _post(alice, f"/documents/{d['id']}/edits", {"insert": "X", "at": 1}, key)
    assert r.status_code == 200 and r.headers.get("Idempotent-Replayed") == "true"


def test_the_query_string_is_part_of_the_request(anon, alice):
    """`?scope=session` and `?scope=document` are different undos: one key cannot stand
    for both."""
    d = anon.create_doc("")
    anon.insert(d["id"], "a", 0)
    alice.insert(d["id"], "b", 1, newGroup=True)
    key = unique("key")
    r1 = alice.post(f"/documents/{d['id']}/undo", params={"scope": "session"}, headers={"Idempotency-Key": key})
    assert r1.status_code == 200, describe(r1)
    assert anon.text(d["id"]) == "a"
    with unchanged(anon, d["id"]):
        r2 = alice.post(f"/documents/{d['id']}/undo", params={"scope": "document"}, headers={"Idempotency-Key": key})
        assert_error(r2, 422, "idempotency_key_reused")
    r3 = alice.post(f"/documents/{d['id']}/undo", params={"scope": "session"}, headers={"Idempotency-Key": key})
    assert r3.headers.get("Idempotent-Replayed") == "true" and r3.json() == r1.json()
