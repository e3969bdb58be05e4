"""Concurrent typing converges, whether from two people or from two browsers given one
session; a duplicated tab (Duplicate Tab copies sessionStorage, the session with it) takes
a session of its own, since a session is one tab's undo context."""
import time

import pytest

from test_sync import converged, put_caret, put_caret_at_end

# Answers to edits come late, so each window's change reaches the other window's stream
# while that window's own change is still unanswered: the moment a client must tell its
# own change from another's.
SLOW_ANSWERS = "f.delayEditAnswersMs = 250;"


@pytest.mark.parametrize("who", ["two people", "two tabs of one person"])
def test_typing_at_once_converges(server, windows, who):
    doc = server.create_document("Together", "[start]\n[end]")
    a = windows().open(doc["id"], faults=True)
    b = windows()
    if who == "two tabs of one person":
        b.share_session_of(a)
    b.open(doc["id"], faults=True)
    same = a.js("return window.tandem.api.session.id") == b.js("return window.tandem.api.session.id")
    assert same == (who == "two tabs of one person")
    for w in (a, b):
        w.faults(SLOW_ANSWERS)
    put_caret(a, len("[start]"))
    put_caret_at_end(b)
    a_words = ["alpha ", "beta ", "gamma ", "delta "]
    b_words = [" one", " two", " three", " four"]
    for x, y in zip(a_words, b_words):
        a.textarea.send_keys(x)
        b.textarea.send_keys(y)
    for w in (a, b):
        w.faults("f.delayEditAnswersMs = 0;")
    text = converged(a, b, server, doc["id"])
    assert text == "[start]" + "".join(a_words) + "\n[end]" + "".join(b_words), text
    # Both say so honestly: nothing waiting, and once autosave has kept the text, "Saved".
    for w in (a, b):
        w.wait(lambda: w.js("return document.getElementById('save-status').textContent") == "Saved", 10,
               w.js("return document.getElementById('save-status').textContent"))


def test_a_duplicated_tab_sees_no_flag_of_its_own(server, windows):
    doc = server.create_document("Mine", "some text")
    a = windows().open(doc["id"])
    b = windows().share_session_of(a).open(doc["id"])
    put_caret(b, 4)
    b.textarea.send_keys("!")
    b.wait_synced()
    a.wait(lambda: a.text() == "some! text")
    # One person, one caret: the other tab of the same session draws none for it.
    assert a.js("return document.querySelectorAll('.remote-caret').length") == 0


def test_a_duplicated_tab_takes_its_own_session_so_its_typing_is_one_undo_group(server, windows):
    doc = server.create_document("Duplicated", "Start.\n")
    a = windows().open(doc["id"])
    first = a.driver.current_window_handle
    original = a.js("return window.tandem.api.session.id")
    # window.open copies sessionStorage, as Duplicate Tab does: the session with it.
    a.js("sessionStorage.setItem('tandem.probe', 'copied'); window.open(location.href);")
    a.wait(lambda: len(a.driver.window_handles) == 2)
    a.driver.switch_to.window([h for h in a.driver.window_handles if h != first][0])
    a.wait_synced()
    assert a.js("return sessionStorage.getItem('tandem.probe')") == "copied"
    mine = a.js("return window.tandem.api.session")
    assert mine["id"] != original
    # Typing at a person's pace, with the first tab open on the same document.
    put_caret_at_end(a)
    for word in ["Forty ", "chara", "cters ", "typed ", "in one", " run ", "here."]:
        a.textarea.send_keys(word)
        time.sleep(0.25)
    a.wait_synced()
    status, history = server.request("GET", f"/documents/{doc['id']}/history?scope=session", token=mine["token"])
    assert status == 200
    assert [e["actionName"] for e in history["undoStack"]] == ["Typing"], history["undoStack"]
