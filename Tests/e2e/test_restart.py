"""The change log is the truth: text, revisions and undo history survive a restart."""

from tandem_client import Client, describe, new_session


def test_restart_keeps_text_history_and_undo(servers):
    srv = servers(name="restart")
    anon = Client(srv.base)
    d = anon.create_doc("start")
    anon.insert(d["id"], " one", 5)
    anon.insert(d["id"], " two", 9, newGroup=True)
    anon.post(f"/documents/{d['id']}/save")
    anon.insert(d["id"], " three", 13, newGroup=True)
    before = anon.doc(d["id"])
    srv.restart()
    anon = Client(srv.base)
    after = anon.doc(d["id"])
    assert after["text"] == before["text"] == "start one two three"
    assert after["revision"] == before["revision"] == 3
    assert len(anon.changes(d["id"])) == 3
    r = anon.undo(d["id"])
    assert r.status_code == 200, describe(r)
    assert anon.text(d["id"]) == "start one two"
    r = anon.undo(d["id"])
    assert r.status_code == 200, describe(r)
    assert anon.text(d["id"]) == "start one"
    # A new session works on the restarted server.
    ada = new_session(srv.base, "Ada")
    ada.insert(d["id"], "!", 9)
    assert anon.text(d["id"]) == "start one!"


def test_kill_9_loses_no_acknowledged_change(servers):
    import threading

    import requests

    srv = servers(name="kill9")
    anon = Client(srv.base)
    d = anon.create_doc("")
    writer = new_session(srv.base, "writer")
    acknowledged: list[str] = []
    stop = threading.Event()

    def write():
        i = 0
        while not stop.is_set() and i < 2000:
            token = f"<{i}>"
            try:
                r = writer.post(f"/documents/{d['id']}/edits", {"insert": token, "at": 0, "newGroup": True}, timeout=5)
            except requests.RequestException:
                return  # the server is gone: this one was never acknowledged
            if r.status_code == 200:
                acknowledged.append(token)
            i += 1

    t = threading.Thread(target=write)
    t.start()
    while len(acknowledged) < 30 and t.is_alive():
        threading.Event().wait(0.01)
    srv.kill()
    stop.set()
    t.join(timeout=30)
    assert len(acknowledged) >= 30
    srv.start()
    text = Client(srv.base).text(d["id"])
    missing = [tok for tok in acknowledged if tok not in text]
    assert not missing, f"{len(missing)} acknowledged edits lost after kill -9, e.g. {missing[:5]}"


def test_events_resume_across_a_restart(servers):
    from sse import SSEStream

    srv = servers(name="resume-restart")
    anon = Client(srv.base)
    d = anon.create_doc("")
    for ch in "abc":
        anon.insert(d["id"], ch, 0, newGroup=True)
    srv.restart()
    anon = Client(srv.base)
    with SSEStream(srv.base, f"/documents/{d['id']}/events", headers={"Last-Event-ID": "1"}) as s:
        assert s.status == 200
        assert [s.next_change().json()["revision"] for _ in range(2)] == [2, 3]
        anon.insert(d["id"], "d", 0)
        assert s.next_change().json()["revision"] == 4
