"""The OT client under the awkward cases: edits the server turns into nothing, server-side
actions racing typing, lost answers, cut streams, ended sessions and reloads."""
import json
import time

from selenium.webdriver.common.keys import Keys


def put_caret(w, start, end=None):
    end = start if end is None else end
    w.js(f"const t = document.getElementById('editor-text'); t.focus(); t.setSelectionRange({start}, {end});")


def put_caret_at_end(w):
    w.js("const t = document.getElementById('editor-text'); t.focus(); t.setSelectionRange(t.value.length, t.value.length);")


def converged(a, b, server, doc_id):
    a.wait_synced(20)
    b.wait_synced(20)
    a.wait(lambda: a.text() == b.text() == server.text(doc_id), 10,
           f"diverged: {a.text()!r} / {b.text()!r} / {server.text(doc_id)!r}")
    return a.text()


def test_both_deleting_the_same_text_keeps_syncing(server, windows):
    doc = server.create_document("Same delete", "keep DELETE ME keep")
    a = windows().open(doc["id"])
    b = windows().open(doc["id"])
    # b hears nothing until it has sent its own delete: both delete from the same revision,
    # so the server applies b's as no change (ops: []) and sends no event for it.
    b.js("window.tandem.collab.hold()")
    for w in (a, b):
        put_caret(w, 5, 15)
    a.textarea.send_keys(Keys.DELETE)
    a.wait_synced()
    b.textarea.send_keys(Keys.DELETE)
    b.wait(lambda: b.js("return window.tandem.collab.inflight && window.tandem.collab.inflight.ackRevision") is not None,
           10, "b's delete was not answered")
    b.js("window.tandem.collab.release()")
    b.wait_synced(10)
    # Both keep typing and converge; nothing stays buffered.
    a.textarea.send_keys("A")
    b.textarea.send_keys("B")
    text = converged(a, b, server, doc["id"])
    assert text in ("keep ABkeep", "keep BAkeep"), text
    # Undo still works for b (it waits for b's edits to be acknowledged first).
    b.textarea.send_keys(Keys.CONTROL, "z")
    b.wait(lambda: "B" not in server.text(doc["id"]), 10, "b's undo never went")
    converged(a, b, server, doc["id"])


def test_typing_while_pasting_repeatedly(server, windows):
    doc = server.create_document("Paste race", "[P]")
    a = windows().open(doc["id"], faults=True)
    b = windows().open(doc["id"])
    put_caret(a, 0, 3)
    a.wait(lambda: a.button("copy-button").is_enabled(), 10, "Copy did not enable")
    a.button("copy-button").click()
    # The stream is slow and answers to edits slower, so a paste's change arrives while
    # the next edit is unanswered: it must not be taken for that edit's acknowledgement.
    a.faults("f.delayEventsMs = 150; f.delayEditAnswersMs = 400;")
    put_caret_at_end(a)
    rounds = 4
    for i in range(rounds):
        a.wait(lambda: a.button("paste-button").is_enabled(), 10, "Paste did not enable")
        a.button("paste-button").click()
        a.textarea.send_keys(f"{i}x")
    a.faults("f.delayEventsMs = 0; f.delayEditAnswersMs = 0;")
    text = converged(a, b, server, doc["id"])
    assert text.count("[P]") == rounds + 1, text
    for i in range(rounds):
        assert text.count(f"{i}") == 1, text
    assert text.count("x") == rounds, text


def test_lost_answers_and_a_cut_stream_lose_and_double_nothing(server, windows):
    doc = server.create_document("Flaky network", "start\n")
    a = windows().open(doc["id"], faults=True)
    b = windows().open(doc["id"])
    # The network cuts the stream; the first reconnection fails too; the first edit's
    # answer is lost after the server applied it.
    a.faults("f.refuseEvents = 1; f.loseEditAnswers = 1; f.cutStreams();")
    a.wait(lambda: a.js("return window.tandem.collab.stream.status") != "open")
    connects = a.faults("return f.eventConnects;")
    put_caret_at_end(a)
    put_caret(b, 0)
    a.textarea.send_keys("one two ")
    b.textarea.send_keys(">> ")
    a.textarea.send_keys("three")
    text = converged(a, b, server, doc["id"])
    assert text == ">> start\none two three"
    # It reconnected by itself (after a refused attempt) and resent the lost edit.
    assert a.faults("return f.eventConnects;") >= connects + 1
    assert a.faults("return f.lost;") == 1
    assert a.js("return window.tandem.collab.stream.status") == "open"


def test_a_session_ending_while_an_answer_is_lost_does_not_double_the_edit(server, windows):
    doc = server.create_document("Expired", "text")
    a = windows().open(doc["id"], faults=True)
    b = windows().open(doc["id"])
    # The stream is cut (so it cannot acknowledge), the edit lands, its answer is lost,
    # and the session ends before the resend: the resend meets 401. The client must find
    # its edit in the log, not send it again under a new session.
    a.faults("""
      f.refuseEvents = 1;
      f.cutStreams();
      f.loseEditAnswers = 1;
      f.beforeLoss = async () => {
        const token = JSON.parse(sessionStorage.getItem('tandem.session')).token;
        await f.real('/sessions/me', { method: 'DELETE', headers: { Authorization: `Bearer ${token}` } });
      };
    """)
    a.allow_console("401")
    put_caret_at_end(a)
    a.textarea.send_keys("!")
    a.wait(lambda: a.faults("return f.lost;") == 1)
    a.textarea.send_keys("?")
    text = converged(a, b, server, doc["id"])
    assert text == "text!?"
    # The tab carries on under a new session, and its typing is its own to undo.
    a.wait(lambda: a.js("return document.getElementById('undo-label').textContent") == "Undo Typing", 10)


def test_catch_up_retries_network_errors_instead_of_reloading(server, windows):
    doc = server.create_document("Catch up", "abc")
    a = windows().open(doc["id"], faults=True)
    b = windows().open(doc["id"])
    put_caret_at_end(a)
    a.textarea.send_keys("1")
    a.wait_synced()
    a.js("window.__before = window.tandem.collab;")
    # A reset makes the client read the log; the first two reads fail on the network.
    a.faults("f.failLogGets = 2; window.tandem.collab.onStreamEvent({type: 'reset', data: '{}', id: null});")
    a.textarea.send_keys("23")
    put_caret(b, 0)
    b.textarea.send_keys("B")
    text = converged(a, b, server, doc["id"])
    assert text == "Babc123"
    assert a.faults("return f.failLogGets;") == 0
    # The same client carried on: nothing was reloaded.
    assert a.js("return window.tandem.collab === window.__before")


def test_a_reload_keeps_unsent_typing_and_the_editor(server, windows):
    doc = server.create_document("Reload", "Hello world")
    a = windows().open(doc["id"], faults=True)
    b = windows().open(doc["id"])
    # a is offline for a while: its typing is answered but never acknowledged, and more
    # waits in the buffer.
    a.faults("f.refuseEvents = 1000; f.cutStreams();")
    a.wait(lambda: a.js("return window.tandem.collab.stream.status") != "open")
    put_caret_at_end(a)
    a.textarea.send_keys(" one")
    assert a.js("return window.tandem.collab.pendingCount") >= 1
    put_caret(b, 0)
    b.textarea.send_keys("B ")
    b.wait_synced()
    # Back online, the log does not reach back (410): a reloads; the first document fetch
    # fails on the network; a keeps typing meanwhile.
    old = a.js("window.__oldCollab = window.tandem.collab; return true;")
    assert old
    a.faults("f.refuseEvents = 0; f.goneLogGets = 1; f.failDocumentGets = 1;"
             " window.tandem.collab.onStreamEvent({type: 'reset', data: '{}', id: null});")
    a.textarea.send_keys(" two")
    a.wait(lambda: a.js("return window.tandem.collab !== window.__oldCollab"), 15, "no reload")
    assert a.js("return !document.getElementById('doc-view').hidden")
    a.textarea.send_keys(" three")
    text = converged(a, b, server, doc["id"])
    assert text == "B Hello world one two three"
    assert a.faults("return f.failDocumentGets + f.goneLogGets;") == 0


def test_an_expected_console_error_is_the_only_one(server, windows):
    """The console check itself: an error the test did not expect fails it."""
    doc = server.create_document("Console", "x")
    w = windows().open(doc["id"])
    w.js("console.error('deliberate')")
    time.sleep(0.2)
    errors = w.severe_logs()
    assert any("deliberate" in e["message"] for e in errors), json.dumps(errors)
    # The second read sees it too (ChromeDriver gives each entry out only once).
    assert any("deliberate" in e["message"] for e in w.severe_logs())
    w.allow_console("deliberate")
    assert w.severe_logs() == []
