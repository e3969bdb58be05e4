"""Sessions: create, whoami, end, tokens, idle timeout."""

import time

import requests

from sse import SSEStream
from tandem_client import Client, assert_error, new_session, unchanged


def test_create_session_with_name(base):
    r = requests.post(base + "/sessions", json={"name": "Ada"}, timeout=10)
    assert r.status_code == 201
    assert r.headers["Content-Type"].startswith("application/json")
    body = r.json()
    assert set(body) >= {"id", "token", "name", "color"}
    assert body["name"] == "Ada"
    assert isinstance(body["id"], str) and body["id"]
    assert isinstance(body["token"], str) and len(body["token"]) >= 16
    assert isinstance(body["color"], str) and body["color"]


def test_create_session_without_name_gets_one(base):
    for kwargs in ({"json": {}}, {"data": b""}):
        r = requests.post(base + "/sessions", timeout=10, **kwargs)
        assert r.status_code == 201, r.text
        body = r.json()
        assert isinstance(body["name"], str) and body["name"]


def test_sessions_are_distinct(base):
    a, b = new_session(base, "A"), new_session(base, "B")
    assert a.id != b.id
    assert a.token != b.token


def test_sessions_me(alice):
    r = alice.get("/sessions/me")
    assert r.status_code == 200, r.text
    me = r.json()
    assert me["id"] == alice.id
    assert me["name"] == "Alice"
    assert me["color"] == alice.session["color"]


def test_sessions_me_without_token_is_401(anon):
    assert_error(anon.get("/sessions/me"), 401)


def test_wrong_tokens_are_401_never_anonymous(base, alice, anon):
    doc = anon.create_doc("safe")
    id_part = alice.token.split(".")[0]
    for bad in ("garbage", alice.token + "x", alice.token[:-4] + "AAAA", id_part + ".",
                "s_unknownid." + "A" * 43):
        c = Client(base, token=bad)
        assert_error(c.get("/sessions/me"), 401, "unauthorized")
        # Reads and writes alike: a bad token must never fall back to anonymous.
        assert_error(c.get(f"/documents/{doc['id']}"), 401, "unauthorized")
        with unchanged(anon, doc["id"]):
            assert_error(c.post(f"/documents/{doc['id']}/edits", {"insert": "x", "at": 0}), 401, "unauthorized")
            assert_error(c.undo(doc["id"]), 401, "unauthorized")


def test_non_bearer_authorization_is_401(base, anon):
    r = requests.get(base + "/sessions/me", headers={"Authorization": "Basic YWxhZGRpbjpvcGVuc2VzYW1l"}, timeout=10)
    assert_error(r, 401, "unauthorized")


def test_delete_session_ends_it_and_clears_its_undo(base, anon):
    doc = anon.create_doc("")
    ada = new_session(base, "Ada")
    ada.insert(doc["id"], "mine", 0)
    assert anon.history(doc["id"], scope="document")["canUndo"] is True
    r = ada.delete("/sessions/me")
    assert r.status_code == 204, r.text
    assert_error(ada.get("/sessions/me"), 401, "unauthorized")
    assert_error(ada.post(f"/documents/{doc['id']}/edits", {"insert": "x", "at": 0}), 401, "unauthorized")
    # removeAllActions with the session as target: nothing of Ada's is left to undo.
    with unchanged(anon, doc["id"]):
        assert_error(anon.undo(doc["id"], scope="document"), 409, "nothing_to_undo")
    assert anon.text(doc["id"]) == "mine"


def test_idle_session_times_out(servers):
    srv = servers(session_timeout=1, name="timeout")
    anon = Client(srv.base)
    ada = new_session(srv.base, "Ada")
    doc = anon.create_doc("")
    ada.insert(doc["id"], "idle", 0)
    assert ada.get("/sessions/me").status_code == 200
    # Each probe touches the session, so probes are spaced wider than the timeout.
    deadline = time.monotonic() + 20
    status = 200
    while time.monotonic() < deadline:
        time.sleep(1.6)
        status = ada.get("/sessions/me").status_code
        if status == 401:
            break
    assert status == 401, "an idle session was still alive long after --session-timeout 1"
    assert_error(ada.get("/sessions/me"), 401, "unauthorized")
    # It ended "the same way" as DELETE /sessions/me: its undo actions are gone, its text stays.
    assert_error(anon.undo(doc["id"], scope="document"), 409, "nothing_to_undo")
    assert anon.text(doc["id"]) == "idle"


def _every_operation(base):
    spec = requests.get(base + "/openapi.json", timeout=10).json()
    for path, ops in spec["paths"].items():
        for method in ops:
            yield method.upper(), path


def test_a_wrong_token_is_401_on_every_route(base, anon, alice):
    """Every operation the OpenAPI document lists, reads, writes and service endpoints
    alike, refuses a wrong token before doing anything."""
    doc = anon.create_doc("safe")
    pb = alice.post("/pasteboards", {"name": "pb-" + doc["id"]})
    assert pb.status_code == 201, pb.text
    values = {"id": doc["id"], "name": "pb-" + doc["id"], "n": "1", "index": "0", "session": alice.id,
              "link": "no-such-link", "linkId": "no-such-link"}
    forged = Client(base, token=alice.id + "." + "A" * 43)
    checked = []
    with unchanged(anon, doc["id"]):
        for method, path in _every_operation(base):
            concrete = path
            for k, v in values.items():
                concrete = concrete.replace("{" + k + "}", v)
            assert "{" not in concrete, f"no value for a parameter of {path}"
            r = forged.request(method, concrete, json_body={}, timeout=5)
            assert_error(r, 401, "unauthorized")
            assert r.headers.get("WWW-Authenticate", "").startswith("Bearer"), f"{method} {path}"
            checked.append((method, path))
    assert ("GET", "/documents") in checked and ("GET", "/healthz") in checked
    assert len(checked) >= 40
    # The wrong token changed nothing: the session it names is still alive, the pasteboard still there.
    assert alice.get("/sessions/me").status_code == 200
    assert alice.get("/pasteboards/pb-" + doc["id"]).status_code == 200


def test_renaming_a_session_keeps_its_token_and_undo_and_tells_the_document(base, anon):
    doc = anon.create_doc("")
    ada = new_session(base, "Ada")
    ada.insert(doc["id"], "mine", 0)
    with SSEStream(base, f"/documents/{doc['id']}/events", headers=anon.headers()) as watcher, \
            SSEStream(base, f"/documents/{doc['id']}/events", headers=ada.headers()) as s:
        assert s.status == 200 and watcher.status == 200
        r = ada.patch("/sessions/me", {"name": "Ada Lovelace"})
        assert r.status_code == 200, r.text
        assert r.json() == {"id": ada.id, "name": "Ada Lovelace", "color": ada.session["color"]}
        # Everyone in the document hears the new name.
        deadline = time.monotonic() + 10
        while True:
            people = watcher.next_of("presence").json()
            if any(p["id"] == ada.id and p["name"] == "Ada Lovelace" for p in people):
                break
            assert time.monotonic() < deadline, people
    assert ada.get("/sessions/me").json()["name"] == "Ada Lovelace"
    # The same session: its undo history is still there.
    h = ada.history(doc["id"], scope="session")
    assert h["canUndo"] is True and h["undoMenuItemTitle"] == "Undo Typing", h
    assert ada.undo(doc["id"], scope="session").status_code == 200
    assert anon.text(doc["id"]) == ""


def test_renaming_checks_the_name_like_creating_does(base, anon, alice):
    for body in ({}, {"name": ""}, {"name": "x" * 101}, {"name": 3}, {"name": "Al", "color": "#fff"}):
        assert_error(alice.patch("/sessions/me", body), 400)
    assert alice.get("/sessions/me").json()["name"] == "Alice"
    assert_error(anon.patch("/sessions/me", {"name": "Nobody"}), 401, "session_required")
    r = alice.patch("/sessions/me", {"name": "x" * 100})
    assert r.status_code == 200 and r.json()["name"] == "x" * 100, r.text


def test_a_new_name_survives_a_restart(servers):
    srv = servers(name="session-rename-restart")
    ada = new_session(srv.base, "Ada")
    assert ada.patch("/sessions/me", {"name": "Grace"}).status_code == 200
    srv.restart()
    ada = Client(srv.base, token=ada.token)
    r = ada.get("/sessions/me")
    assert r.status_code == 200 and r.json()["name"] == "Grace", r.text


def test_activity_survives_a_restart_and_idleness_does_not(servers):
    """lastSeen is written back, not kept only in memory: a session created longer than the
    timeout ago but active until the restart is still alive after it, while one idle for
    longer than the timeout stays ended. (The coarse batching while running is covered by
    SessionRegistryTests.)"""
    srv = servers(session_timeout=8, name="session-restart")
    active, idle = new_session(srv.base, "active"), new_session(srv.base, "idle")
    started = time.monotonic()
    while time.monotonic() - started < 9.5:  # longer than the timeout since creation
        assert active.get("/sessions/me").status_code == 200
        time.sleep(0.5)
    srv.restart()  # on a new port
    active, idle = Client(srv.base, token=active.token), Client(srv.base, token=idle.token)
    time.sleep(1.5)  # a session sweep has run since the start
    assert active.get("/sessions/me").status_code == 200, "an active session ended at the restart"
    assert_error(idle.get("/sessions/me"), 401, "unauthorized")


def test_an_open_event_stream_keeps_its_session_alive(servers):
    srv = servers(session_timeout=2, name="stream-activity")
    anon = Client(srv.base)
    doc = anon.create_doc("")
    quiet, listening = new_session(srv.base, "quiet"), new_session(srv.base, "listening")
    with SSEStream(srv.base, f"/documents/{doc['id']}/events", headers=listening.headers()) as s:
        assert s.status == 200
        time.sleep(5)
        assert listening.get("/sessions/me").status_code == 200, "a session with an open stream expired"
        assert_error(quiet.get("/sessions/me"), 401, "unauthorized")
