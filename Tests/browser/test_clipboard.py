"""Copy in one window, paste in another, through the server's general pasteboard."""
import pytest


def test_copy_in_one_window_enables_paste_in_the_other(server, windows):
    status, _ = server.request("GET", "/pasteboards")
    if status == 404:
        pytest.skip("the server answers 404 for /pasteboards: no server clipboard yet")
    doc = server.create_document("Clip", "Copy this phrase. Paste here: ")
    a = windows().open(doc["id"])
    b = windows().open(doc["id"])
    a.wait(lambda: a.js("return !document.getElementById('clipboard-panel').hidden"))
    a.js("const t = document.getElementById('editor-text'); t.focus(); t.setSelectionRange(0, 16);")
    a.wait(lambda: a.button("copy-button").is_enabled(), 10, "Copy did not enable on a selection")
    before = b.js("return document.getElementById('pasteboard-count').textContent")
    a.button("copy-button").click()
    # b hears of the pasteboard change and may now paste.
    b.wait(lambda: b.js("return document.getElementById('pasteboard-count').textContent") != before, 10)
    b.wait(lambda: "Copy this phrase" in b.js("return document.getElementById('pasteboard-items').textContent"))
    end = len("Copy this phrase. Paste here: ")
    b.js(f"const t = document.getElementById('editor-text'); t.focus(); t.setSelectionRange({end}, {end});")
    b.wait(lambda: b.button("paste-button").is_enabled(), 10, "Paste did not enable")
    b.button("paste-button").click()
    b.wait(lambda: b.text() == "Copy this phrase. Paste here: Copy this phrase")
    a.wait(lambda: a.text() == b.text() == server.text(doc["id"]))
    b.wait(lambda: b.js("return document.getElementById('undo-label').textContent") == "Undo Paste")
    assert a.severe_logs() == [] and b.severe_logs() == []
