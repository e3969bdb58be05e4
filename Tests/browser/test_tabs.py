"""Concurrent typing converges, whether from two people or from two tabs of one person (a
duplicated tab shares its session: Chrome's Duplicate Tab copies sessionStorage)."""
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
