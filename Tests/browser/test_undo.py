"""Undo you can see: session undo from the keyboard, titles from the server, scroll and select."""
from selenium.webdriver.common.by import By
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

    a.type_at(6, "from a. ")
    b.type_at(0, "B: ")
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
    # The title is the server's for everyone's scope.
    a.wait(lambda: labels(a)[:3] == ["Undo Typing", "Redo", False], 10, f"labels {labels(a)}")
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


def toast(w):
    return w.js("const t = document.getElementById('toast'); return t.hidden ? '' : t.textContent;")


def session_of(w):
    return w.js("return window.tandem.api.session")


def changes(server, doc_id):
    status, log = server.request("GET", f"/documents/{doc_id}/edits?since=0")
    assert status == 200, (status, log)
    return log if isinstance(log, list) else log["changes"]


def undo_only_buttons(w):
    """The "Undo this" buttons of the history list, by accessible name, top of the list first."""
    return w.js("return [...document.querySelectorAll('#history-list button')]"
                ".map(b => [b.textContent, b.getAttribute('aria-label')])")


def test_an_undo_others_partly_overwrote_says_what_it_left(server, windows):
    doc = server.create_document("Partial", "")
    a = windows().open(doc["id"])
    b = windows().open(doc["id"])
    a.type_at(0, "hello world")
    b.wait(lambda: b.text() == "hello world")
    # One group ("Typing", one burst), named as an app names its action.
    me = session_of(a)
    status, _ = server.request("PATCH", f"/documents/{doc['id']}/history?scope=session",
                               {"actionName": "Greet"}, token=me["token"])
    assert status == 200
    b.js("const t = document.getElementById('editor-text'); t.focus(); t.setSelectionRange(5, 11);")
    b.textarea.send_keys(Keys.DELETE)
    b.wait_synced()
    a.wait(lambda: a.text() == "hello")

    a.textarea.send_keys(Keys.CONTROL, "z")
    a.wait(lambda: a.text() == "", 10, f"a's undo: {a.text()!r}")
    a.wait(lambda: toast(a) == "Undid Greet, except text others changed", 10, f"toast {toast(a)!r}")
    b.wait(lambda: b.text() == "" == server.text(doc["id"]))
    # The server's record of it: a's undo of a's group, 6 units (" world") not reverted.
    last = changes(server, doc["id"])[-1]
    assert (last["kind"], last["session"], last["reverts"]["session"], last["partial"], last["notReverted"]) == \
        ("undo", me["id"], me["id"], True, 6), last
    # b, whose change it was not, is told nothing about it.
    assert toast(b) == ""
    a.wait(lambda: labels(a) == ["Undo", "Redo Greet", True, False], 10, f"labels {labels(a)}")


def two_typing_groups(server, windows):
    """A window whose session typed two groups into "X": "first " at 0, then " last" at the end."""
    doc = server.create_document("Two groups", "X")
    a = windows().open(doc["id"])
    a.type_at(0, "first ")
    # A jump (not where the last typing ended) starts another group.
    a.type_at(7, " last")
    assert a.text() == "first X last"
    return doc, a


def test_undo_this_undoes_an_older_group_alone_and_redo_brings_it_back(server, windows):
    doc, a = two_typing_groups(server, windows)
    # Only the older group has "Undo this": the top one is what Undo does anyway.
    a.wait(lambda: undo_only_buttons(a) == [["Undo this", "Undo Typing only"]], 10, f"buttons {undo_only_buttons(a)}")
    a.click("#history-list button[aria-label='Undo Typing only']")
    a.wait(lambda: a.text() == "X last", 10, f"selective undo: {a.text()!r}")
    a.wait(lambda: toast(a) == "Undid Typing", 10, f"toast {toast(a)!r}")
    assert server.text(doc["id"]) == "X last"
    # The later group stays on the undo stack; the undone one is on the redo stack.
    a.wait(lambda: labels(a) == ["Undo Typing", "Redo Typing", False, False], 10, f"labels {labels(a)}")
    a.wait(lambda: undo_only_buttons(a) == [], 10, f"buttons {undo_only_buttons(a)}")

    a.textarea.send_keys(Keys.CONTROL, Keys.SHIFT, "z")
    a.wait(lambda: a.text() == "first X last", 10, f"redo: {a.text()!r}")
    a.wait(lambda: toast(a) == "Redid Typing", 10, f"toast {toast(a)!r}")
    assert server.text(doc["id"]) == "first X last"
    a.wait(lambda: labels(a) == ["Undo Typing", "Redo", False, True], 10, f"labels {labels(a)}")
    # Undo now undoes the redone group, the latest; the one typed last is next.
    a.textarea.send_keys(Keys.CONTROL, "z")
    a.wait(lambda: a.text() == "X last", 10, f"undo after redo: {a.text()!r}")


def test_undo_this_is_only_for_my_own_stack(server, windows):
    doc, a = two_typing_groups(server, windows)
    a.wait(lambda: len(undo_only_buttons(a)) == 1)
    a.driver.find_element(By.CSS_SELECTOR, "input[name=scope][value=document]").click()
    a.wait(lambda: a.js("return document.querySelectorAll('#history-list li').length") == 2)
    a.wait(lambda: undo_only_buttons(a) == [], 10, f"buttons {undo_only_buttons(a)}")


def test_undo_this_refused_shows_the_servers_message(server, windows):
    doc = server.create_document("Refused", "X")
    a = windows().open(doc["id"])
    a.allow_console("404")  # the refused request, as Chromium logs it
    a.type_at(1, "typed")
    status, body = server.request("POST", f"/documents/{doc['id']}/undo?group=999999", {},
                                  token=session_of(a)["token"])
    assert (status, body["error"]["code"]) == (404, "group_not_found"), (status, body)
    a.js("window.tandem.view.history.perform('undo', {group: 999999})")
    a.wait(lambda: toast(a) == body["error"]["message"], 10, f"toast {toast(a)!r}")
    assert a.js("return document.getElementById('toast').dataset.kind") == "error"
    assert a.text() == server.text(doc["id"]) == "Xtyped"
