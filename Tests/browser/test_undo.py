"""Undo you can see: session undo from the keyboard, titles from the server, scroll and select."""
from selenium.webdriver.common.keys import Keys


def labels(w):
    return w.js("return [document.getElementById('undo-label').textContent,"
                " document.getElementById('redo-label').textContent,"
                " document.getElementById('undo-button').disabled,"
                " document.getElementById('redo-button').disabled]")


def put_caret(w, pos):
    w.js(f"const t = document.getElementById('editor-text'); t.focus(); t.setSelectionRange({pos}, {pos});")


def test_undo_removes_only_my_typing_and_titles_follow(server, windows):
    doc = server.create_document("Shared", "Title\n")
    a = windows().open(doc["id"])
    b = windows().open(doc["id"])
    assert labels(a) == ["Undo", "Redo", True, True]

    put_caret(a, 6)
    a.textarea.send_keys("from a. ")
    a.wait_synced()
    put_caret(b, 0)
    b.textarea.send_keys("B: ")
    b.wait_synced()
    a.wait(lambda: a.text() == b.text() == "B: Title\nfrom a. ")
    a.wait(lambda: labels(a) == ["Undo Typing", "Redo", False, True], 10, f"labels {labels(a)}")

    a.textarea.send_keys(Keys.CONTROL, "z")
    a.wait(lambda: a.text() == "B: Title\n", 10, f"a's undo: {a.text()!r}")
    b.wait(lambda: b.text() == "B: Title\n")
    a.wait(lambda: labels(a) == ["Undo", "Redo Typing", True, False], 10, f"labels {labels(a)}")
    # b's own typing is still b's to undo.
    b.wait(lambda: labels(b)[0] == "Undo Typing")

    # Redo with Shift+Ctrl+Z brings it back; then Ctrl+Y has nothing to redo.
    a.textarea.send_keys(Keys.CONTROL, Keys.SHIFT, "z")
    a.wait(lambda: a.text() == "B: Title\nfrom a. ", 10, f"redo: {a.text()!r}")
    a.wait(lambda: labels(a) == ["Undo Typing", "Redo", False, True], 10, f"labels {labels(a)}")
    b.wait(lambda: b.text() == a.text() == server.text(doc["id"]))
    assert a.severe_logs() == []


def test_undo_scope_everyone(server, windows):
    doc = server.create_document("Scopes", "x")
    a = windows().open(doc["id"])
    b = windows().open(doc["id"])
    put_caret(b, 1)
    b.textarea.send_keys(" by b")
    b.wait_synced()
    a.wait(lambda: a.text() == "x by b")
    assert labels(a)[2] is True  # a has nothing of its own to undo
    a.driver.find_element("css selector", "input[name=scope][value=document]").click()
    # It says whose change it takes back.
    # (Read each time: a guest whose name clashes takes another one meanwhile.)
    a.wait(lambda: labels(a)[0] == f"Undo {b.js('return window.tandem.api.session.name').removesuffix(' (guest)')}’s Typing",
           10, f"labels {labels(a)}")
    history = a.js("return document.getElementById('history-list').textContent")
    assert "Typing" in history
    a.button("undo-button").click()
    b.wait(lambda: b.text() == "x")


def test_undo_scrolls_to_and_selects_the_changed_range(server, windows):
    lines = "\n".join(f"Line {i} of a long document." for i in range(300))
    doc = server.create_document("Long", lines)
    a = windows().open(doc["id"])
    # Delete a word near the top.
    start = lines.index("Line 3 ")
    a.js(f"const t = document.getElementById('editor-text'); t.focus(); t.setSelectionRange({start}, {start + 7});")
    a.textarea.send_keys(Keys.DELETE)
    a.wait_synced()
    a.wait(lambda: labels(a)[0] != "Undo")
    # Scroll far away, then undo.
    a.js("const t = document.getElementById('editor-text'); t.setSelectionRange(t.value.length, t.value.length);"
         " t.scrollTop = t.scrollHeight;")
    assert a.js("return document.getElementById('editor-text').scrollTop") > 1000
    a.textarea.send_keys(Keys.CONTROL, "z")
    a.wait(lambda: a.text() == lines)
    a.wait(lambda: a.js("const t = document.getElementById('editor-text');"
                        " return [t.selectionStart, t.selectionEnd]") == [start, start + 7], 10,
           "undo did not select the restored text")
    top, height = a.js("const t = document.getElementById('editor-text'); return [t.scrollTop, t.clientHeight];")
    y = a.js(f"return window.tandem.view.editor.offsetOf({start});")
    assert top <= y <= top + height, (top, y, height)


def test_undo_keys_work_anywhere_but_in_other_text_fields(server, windows):
    doc = server.create_document("Shortcuts", "")
    a = windows().open(doc["id"])
    a.textarea.send_keys("typed")
    a.wait_synced()
    a.wait(lambda: labels(a)[0] == "Undo Typing")
    # Focus on a toolbar button, not the text: Ctrl+Z is still the server's undo.
    a.js("document.getElementById('save-button').focus()")
    a.driver.switch_to.active_element.send_keys(Keys.CONTROL, "z")
    a.wait(lambda: server.text(doc["id"]) == "", 10, "Ctrl+Z outside the text did nothing")
    a.wait(lambda: a.text() == "" and labels(a)[1] == "Redo Typing")
    # In the title field, Ctrl+Z belongs to the field: the document is left alone.
    title = a.driver.find_element("id", "doc-title")
    title.click()
    title.send_keys(Keys.CONTROL, Keys.SHIFT, "z")
    title.send_keys(Keys.CONTROL, "y")
    a.wait_synced()
    assert server.text(doc["id"]) == ""
    assert labels(a)[1] == "Redo Typing"
    # Back on the page itself, Ctrl+Shift+Z redoes.
    a.driver.find_element("tag name", "body").click()
    a.driver.switch_to.active_element.send_keys(Keys.CONTROL, Keys.SHIFT, "z")
    a.wait(lambda: server.text(doc["id"]) == "typed", 10, "redo from the page did nothing")
    a.wait(lambda: a.text() == "typed")
