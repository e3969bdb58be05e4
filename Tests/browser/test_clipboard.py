"""Copy in one window, paste in another, through the server's pasteboards."""
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select


def test_copy_in_one_window_enables_paste_in_the_other(server, windows):
    doc = server.create_document("Clip", "Copy this phrase. Paste here: ")
    a = windows().open(doc["id"])
    b = windows().open(doc["id"])
    a.wait(lambda: a.js("return !document.getElementById('clipboard-panel').hidden"))
    a.js("const t = document.getElementById('editor-text'); t.focus(); t.setSelectionRange(0, 16);")
    a.wait(lambda: a.button("copy-button").is_enabled(), 10, "Copy did not enable on a selection")
    before = b.js("return document.getElementById('pasteboard-count').title")
    a.button("copy-button").click()
    # b hears of the pasteboard change and may now paste.
    b.wait(lambda: b.js("return document.getElementById('pasteboard-count').title") != before, 10)
    b.wait(lambda: "Copy this phrase" in b.js("return document.getElementById('pasteboard-items').textContent"))
    end = len("Copy this phrase. Paste here: ")
    b.js(f"const t = document.getElementById('editor-text'); t.focus(); t.setSelectionRange({end}, {end});")
    b.wait(lambda: b.button("paste-button").is_enabled(), 10, "Paste did not enable")
    b.button("paste-button").click()
    b.wait(lambda: b.text() == "Copy this phrase. Paste here: Copy this phrase")
    a.wait(lambda: a.text() == b.text() == server.text(doc["id"]))
    b.wait(lambda: b.js("return document.getElementById('undo-label').textContent") == "Undo Paste")
    assert a.severe_logs() == [] and b.severe_logs() == []


def test_select_all_follows_the_servers_actions(server, windows):
    doc = server.create_document("Select", "")
    w = windows().open(doc["id"])
    # An empty document has nothing to select (…/actions says selectAll: false).
    w.wait(lambda: w.js("return window.tandem.view.clipboard.actions !== null"))
    assert not w.button("select-all-button").is_enabled()
    w.textarea.send_keys("some text")
    w.wait(lambda: w.button("select-all-button").is_enabled(), 10, "Select All did not enable")
    w.button("select-all-button").click()
    w.wait(lambda: w.js("const t = document.getElementById('editor-text'); return [t.selectionStart, t.selectionEnd]") == [0, 9])
    w.wait(lambda: w.button("cut-button").is_enabled())


def test_removing_the_chosen_pasteboard_falls_back_to_general(server, windows):
    doc = server.create_document("Boards", "text to copy")
    w = windows().open(doc["id"])
    w.wait(lambda: not w.js("return document.getElementById('clipboard-panel').hidden"))
    w.button("new-pasteboard-button").click()
    w.driver.find_element(By.ID, "pasteboard-new-name").send_keys("scratch")
    w.driver.find_element(By.CSS_SELECTOR, "#pasteboard-form button[value=ok]").click()
    w.wait(lambda: w.js("return document.getElementById('pasteboard-name').dataset.name") == "scratch")
    assert Select(w.button("pasteboard-select")).first_selected_option.text == "scratch"
    # Its owner (this tab's session) removes it elsewhere; the stream says kind: "removed".
    token = w.js("return window.tandem.api.session.token")
    status, body = server.request("DELETE", "/pasteboards/scratch", token=token)
    assert status == 204, (status, body)
    w.wait(lambda: w.js("return document.getElementById('pasteboard-name').dataset.name") == "general", 10,
           "still showing the removed pasteboard")
    w.wait(lambda: Select(w.button("pasteboard-select")).first_selected_option.text == "general")
    assert "scratch" not in [o.text for o in Select(w.button("pasteboard-select")).options]
    # The clipboard keeps working on general.
    w.js("const t = document.getElementById('editor-text'); t.focus(); t.setSelectionRange(0, 4);")
    w.wait(lambda: w.button("copy-button").is_enabled(), 10)
    w.button("copy-button").click()
    w.wait(lambda: "text" in w.js("return document.getElementById('pasteboard-items').textContent"))
    assert not w.js("return document.getElementById('clipboard-panel').hidden")


def pasteboard_text(w):
    return w.js("return document.getElementById('pasteboard-items').textContent")


def test_keyboard_and_buttons_use_one_clipboard(server, windows):
    from selenium.webdriver.common.keys import Keys
    doc = server.create_document("One clipboard", "alpha beta gamma\n")
    a = windows().open(doc["id"])
    b = windows().open(doc["id"])
    a.wait(lambda: not a.js("return document.getElementById('clipboard-panel').hidden"))
    # Ctrl+C in a: the shared pasteboard has it, so b's Paste button pastes it.
    a.js("const t = document.getElementById('editor-text'); t.focus(); t.setSelectionRange(0, 5);")
    a.textarea.send_keys(Keys.CONTROL, "c")
    b.wait(lambda: "alpha" in pasteboard_text(b), 10, "Ctrl+C did not reach the shared clipboard")
    end = len("alpha beta gamma\n")
    b.js(f"const t = document.getElementById('editor-text'); t.focus(); t.setSelectionRange({end}, {end});")
    b.wait(lambda: b.button("paste-button").is_enabled(), 10)
    b.button("paste-button").click()
    b.wait(lambda: server.text(doc["id"]) == "alpha beta gamma\nalpha", 10, server.text(doc["id"]))
    b.wait_synced()
    # The Copy button in b, then Ctrl+V in a: a pastes what b copied.
    b.js("const t = document.getElementById('editor-text'); t.focus(); t.setSelectionRange(6, 10);")
    b.wait(lambda: b.button("copy-button").is_enabled(), 10)
    b.button("copy-button").click()
    a.wait(lambda: "beta" in pasteboard_text(a) and "alpha" not in pasteboard_text(a), 10)
    a.wait_synced()
    a.js("const t = document.getElementById('editor-text'); t.focus(); t.setSelectionRange(0, 0);")
    a.textarea.send_keys(Keys.CONTROL, "v")
    a.wait(lambda: server.text(doc["id"]) == "betaalpha beta gamma\nalpha", 10, server.text(doc["id"]))
    a.wait(lambda: a.js("return document.getElementById('undo-label').textContent") == "Undo Paste")
    # Ctrl+X in a is the server's Cut: one undoable change, and the pasteboard has the text.
    a.wait_synced()
    a.js("const t = document.getElementById('editor-text'); t.focus(); t.setSelectionRange(9, 14);")
    a.textarea.send_keys(Keys.CONTROL, "x")
    a.wait(lambda: server.text(doc["id"]) == "betaalpha gamma\nalpha", 10, server.text(doc["id"]))
    b.wait(lambda: b.js("return document.querySelector('#pasteboard-items .item-preview').textContent") == " beta", 10)
    a.wait(lambda: a.js("return document.getElementById('undo-label').textContent") == "Undo Cut")
    converged_text = server.text(doc["id"])
    a.wait(lambda: a.text() == b.text() == converged_text)


def test_the_panel_says_whose_clipboard_it_is_and_names_types(server, windows):
    w = windows().open(server.create_document("Types", "x")["id"])
    status, _ = server.request("PUT", "/pasteboards/general/items", [[
        {"type": "public.utf8-plain-text", "string": "words"},
        {"type": "public.html", "string": "<b>words</b>"},
    ], [{"type": "image/png", "base64": "iVBORw0KGgo="}]])
    assert status == 200
    w.wait(lambda: w.js("return [...document.querySelectorAll('#pasteboard-items .item-types')].map((e) => e.textContent)")
           == ["Plain text, HTML", "Image (PNG)"], 10)
    assert "shared by everyone" in w.js("return document.getElementById('pasteboard-about').textContent").lower()
    assert w.js("return document.getElementById('pasteboard-count').textContent") == "2 items"
