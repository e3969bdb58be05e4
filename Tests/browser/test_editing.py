"""Several people editing one document: convergence, reconnection, the OT unit tests."""
import base64

from selenium.webdriver.common.keys import Keys

from conftest import SCREENSHOTS


def stitch(window, left_png, right_png, path):
    """Puts two screenshots side by side using the browser itself (no imaging library)."""
    a = base64.b64encode(left_png).decode()
    b = base64.b64encode(right_png).decode()
    window.driver.set_window_size(1600, 560)
    window.js(
        "document.documentElement.innerHTML = arguments[0];",
        "<body style='margin:0;overflow:hidden;background:#cfd5dd;display:flex;gap:12px;padding:12px'>"
        f"<img style='width:782px;border-radius:8px' src='data:image/png;base64,{a}'>"
        f"<img style='width:782px;border-radius:8px' src='data:image/png;base64,{b}'></body>")
    window.wait(lambda: window.js("return [...document.images].every(i => i.complete)"))
    path.parent.mkdir(parents=True, exist_ok=True)
    window.driver.save_screenshot(str(path))


def test_two_windows_typing_at_once_converge(server, windows):
    doc = server.create_document("Meeting notes", "Agenda\n\nNotes:\n")
    a = windows().open(doc["id"])
    b = windows().open(doc["id"])
    # a types at the end, b at the start, interleaved without waiting for the server.
    a.js("const t = document.getElementById('editor-text'); t.focus(); t.setSelectionRange(t.value.length, t.value.length);")
    b.js("const t = document.getElementById('editor-text'); t.focus(); t.setSelectionRange(0, 0);")
    a_words = ["apples ", "and ", "pears "]
    b_words = ["Budget ", "first. "]
    for i in range(3):
        a.textarea.send_keys(a_words[i])
        if i < len(b_words):
            b.textarea.send_keys(b_words[i])
    # Both see each other's caret mid-edit, with the other's name and colour.
    for me, other in ((a, b), (b, a)):
        session = other.js("return window.tandem.api.session")
        me.wait(lambda: me.js("return [...document.querySelectorAll('.remote-caret')].map(c =>"
                              " [c.textContent, c.style.getPropertyValue('--who')])") == [[session["name"], session["color"]]],
                10, f"no caret named {session['name']!r} in {session['color']}")
        shown = me.js("const c = document.querySelector('.remote-caret');"
                      " return [getComputedStyle(c).borderLeftColor, getComputedStyle(c.firstChild).backgroundColor];")
        probe = me.js("const p = document.createElement('span'); p.style.color = arguments[0]; document.body.append(p);"
                      " const c = getComputedStyle(p).color; p.remove(); return c;", session["color"])
        assert probe in shown, (shown, probe)
    stitch(windows(), a.driver.get_screenshot_as_png(), b.driver.get_screenshot_as_png(),
           SCREENSHOTS / "two-windows.png")

    a.wait_synced()
    b.wait_synced()
    a.wait(lambda: a.text() == b.text(), 10, "windows did not converge")
    final = server.text(doc["id"])
    assert a.text() == final
    assert final == "Budget first. Agenda\n\nNotes:\napples and pears "
    for w in (a, b):
        assert w.severe_logs() == []


def test_concurrent_edits_in_the_same_place(server, windows):
    doc = server.create_document("Race", "0123456789")
    a = windows().open(doc["id"])
    b = windows().open(doc["id"])
    # Both edit around position 5 at once, b deleting what a types next to.
    a.js("const t = document.getElementById('editor-text'); t.focus(); t.setSelectionRange(5, 5);")
    b.js("const t = document.getElementById('editor-text'); t.focus(); t.setSelectionRange(3, 7);")
    a.textarea.send_keys("AAA")
    b.textarea.send_keys("B")
    a.textarea.send_keys("C")
    b.textarea.send_keys(Keys.BACKSPACE + "DD")
    a.wait_synced()
    b.wait_synced()
    a.wait(lambda: a.text() == b.text() == server.text(doc["id"]), 10,
           f"diverged: {a.text()!r} vs {b.text()!r}")
    text = a.text()
    # b's replacement may or may not have seen a's "AAA" (timing); everything typed after
    # it survives, and b's own backspace removed only b's "B".
    assert text.startswith("012") and text.endswith("789"), text
    assert "C" in text and "DD" in text and "B" not in text, text


def test_a_dropped_event_stream_loses_nothing(server, windows):
    doc = server.create_document("Flaky network", "start\n")
    a = windows().open(doc["id"])
    b = windows().open(doc["id"])
    a.js("window.tandem.dropEvents()")
    a.wait(lambda: a.js("return window.tandem.collab.stream.status") == "closed")
    a.js("const t = document.getElementById('editor-text'); t.focus(); t.setSelectionRange(t.value.length, t.value.length);")
    b.js("const t = document.getElementById('editor-text'); t.focus(); t.setSelectionRange(0, 0);")
    a.textarea.send_keys("one two ")
    b.textarea.send_keys(">> ")
    a.textarea.send_keys("three")
    b.wait_synced()
    # Without the stream, a's typing still reaches the server in order: the change log
    # acknowledges it (and brings b's change along).
    a.wait(lambda: server.text(doc["id"]) == ">> start\none two three", 10, server.text(doc["id"]))
    a.js("window.tandem.resumeEvents()")
    a.wait_synced()
    a.wait(lambda: a.text() == b.text() == server.text(doc["id"]), 10,
           f"diverged: {a.text()!r} / {b.text()!r} / {server.text(doc['id'])!r}")
    assert a.text() == ">> start\none two three"


def test_document_list_create_rename_open(server, windows):
    w = windows()
    w.driver.get(server.base + "/")
    w.wait(lambda: w.js("return !document.getElementById('list-view').hidden"))
    w.driver.find_element("id", "create-title").send_keys("Quarterly plan" + Keys.ENTER)
    w.wait(lambda: "#/doc/" in w.driver.current_url)
    w.wait_synced()
    doc_id = w.driver.current_url.split("#/doc/")[1]
    # The new document's owner link is shown this once (test_share.py); Done goes on writing.
    w.wait(lambda: w.js("return document.getElementById('owner-link-dialog').open"))
    w.driver.find_element("css selector", "#owner-link-dialog button[value=ok]").click()
    title = w.driver.find_element("id", "doc-title")
    assert title.get_attribute("value") == "Quarterly plan"
    title.clear()
    title.send_keys("Q3 plan" + Keys.ENTER)
    w.wait(lambda: server.request("GET", f"/documents/{doc_id}")[1]["title"] == "Q3 plan")
    # The shared link opens the same document in another window.
    other = windows().open(doc_id)
    assert other.driver.find_element("id", "doc-title").get_attribute("value") == "Q3 plan"
    other.driver.get(server.base + "/")
    other.wait(lambda: "Q3 plan" in other.driver.find_element("id", "doc-list").text)
