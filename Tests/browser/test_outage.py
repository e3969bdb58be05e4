"""An outage: every window says the same, and what was typed during it is one undo group."""
import time

from test_sync import converged, put_caret_at_end


def texts(w, *ids):
    return [w.js(f"return document.getElementById('{i}').textContent") for i in ids]


def test_typing_through_an_outage_is_one_undo_group_and_every_window_says_offline(server, windows):
    doc = server.create_document("Outage", "Before.")
    a = windows().open(doc["id"], faults=True)
    b = windows().open(doc["id"], faults=True)
    for w in (a, b):
        w.faults("f.down = true; f.cutStreams();")
    for w in (a, b):
        w.wait(lambda: texts(w, "sync-status") == ["Offline"], 10, texts(w, "sync-status"))
    put_caret_at_end(a)
    a.textarea.send_keys(" D")
    time.sleep(0.4)
    a.textarea.send_keys("uring")
    # The same words in both windows; only a has typing waiting, and says so.
    a.wait(lambda: texts(a, "save-status") == ["Not saved yet"], 5, texts(a, "save-status"))
    time.sleep(2)  # an outage of a few seconds: the clients back off
    assert texts(a, "sync-status") == texts(b, "sync-status") == ["Offline"]
    assert texts(b, "save-status") == ["Saved"]
    # The server is back for requests, while the event streams stay away past the server's
    # typing pause (1 s), as a reconnecting stream's backoff does.
    for w in (a, b):
        w.faults("f.refuseEvents = 1000; f.down = false;")
    a.wait(lambda: server.text(doc["id"]) == "Before. During", 15, server.text(doc["id"]))
    time.sleep(1.5)
    for w in (a, b):
        w.faults("f.refuseEvents = 0;")
    converged(a, b, server, doc["id"])
    # One run of typing, one undo group: a single Undo takes all of it back.
    a.wait(lambda: texts(a, "undo-label") == ["Undo Typing"], 10)
    token = a.js("return window.tandem.api.session.token")
    status, history = server.request("GET", f"/documents/{doc['id']}/history?scope=session", token=token)
    assert status == 200
    assert len(history["undoStack"]) == 1, history["undoStack"]
    a.button("undo-button").click()
    a.wait(lambda: server.text(doc["id"]) == "Before.", 10, server.text(doc["id"]))
