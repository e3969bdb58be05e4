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
