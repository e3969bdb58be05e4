"""Issue 37: the Undo and Redo buttons say what the server says the next undo and redo do,
for the scope shown, and the status says whether the text differs from the last saved
version."""
from selenium.webdriver.common.by import By

from test_sync import put_caret


def session_of(w):
    return w.js("return window.tandem.api.session")


def undo_button(w):
    return w.js("const b = document.getElementById('undo-button');"
                " return [document.getElementById('undo-label').textContent, b.disabled]")


def test_everyones_undo_is_titled_with_the_group_it_reverts_not_an_open_one(server, windows):
    doc = server.create_document("Groups", "x\n")
    ada = windows().open(doc["id"])
    grace = windows().open(doc["id"])
    # Grace's "Line", then Ada's group "Outer", still open: everyone's undo leaves an open
    # group to its owner, so the next one reverts Grace's Line.
    grace.type_at(2, "grace")
    status, _ = server.request("PATCH", f"/documents/{doc['id']}/history?scope=session", {"actionName": "Line"},
                               token=session_of(grace)["token"])
    assert status == 200
    ada_token = session_of(ada)["token"]
    status, _ = server.request("POST", f"/documents/{doc['id']}/history/groups", {}, token=ada_token)
    assert status == 200
    ada.type_at(0, "ada ")
    status, _ = server.request("PATCH", f"/documents/{doc['id']}/history?scope=session", {"actionName": "Outer"},
                               token=ada_token)
    assert status == 200
    grace.wait(lambda: grace.text() == "ada x\ngrace")

    grace.driver.find_element(By.CSS_SELECTOR, "input[name=scope][value=document]").click()
    grace.wait(lambda: undo_button(grace) == ["Undo Line", False], 10, f"undo button {undo_button(grace)}")
    status, history = server.request("GET", f"/documents/{doc['id']}/history?scope=document",
                                      token=session_of(grace)["token"])
    assert (status, history["undoMenuItemTitle"]) == (200, "Undo Line")

    grace.button("undo-button").click()
    grace.wait(lambda: server.text(doc["id"]) == "ada x\n", 10, server.text(doc["id"]))
    status, log = server.request("GET", f"/documents/{doc['id']}/edits?since=0")
    last = log[-1]
    assert (last["kind"], last["actionName"], last["reverts"]["session"]) == ("undo", "Line", session_of(grace)["id"]), last


def test_a_long_undo_title_is_whole_in_the_tooltip_and_the_buttons_name(server, windows):
    doc = server.create_document("Long names", "")
    a = windows().open(doc["id"])
    a.type_at(0, "words")
    name = "Transpose the Two Paragraphs Above the Fold"
    status, _ = server.request("PATCH", f"/documents/{doc['id']}/history?scope=session", {"actionName": name},
                               token=session_of(a)["token"])
    assert status == 200
    # The rename comes with no change: its history event brings the title.
    a.wait(lambda: undo_button(a) == [f"Undo {name}", False], 10, f"undo button {undo_button(a)}")
    button = a.button("undo-button")
    # Cut short on screen, so the tooltip and the name are where it is whole.
    assert a.js("const l = document.getElementById('undo-label'); return l.scrollWidth > l.clientWidth")
    assert button.get_attribute("title") == f"Undo {name} (Ctrl+Z)"
    assert button.accessible_name == f"Undo {name}"


def status_trace(w):
    """Every word the save status has shown since this was installed, in order."""
    w.js("""
      const s = document.getElementById('save-status');
      window.__statuses = [s.textContent];
      new MutationObserver(() => {
        const t = s.textContent;
        if (window.__statuses[window.__statuses.length - 1] !== t) window.__statuses.push(t);
      }).observe(s, {childList: true, characterData: true, subtree: true});
    """)
    return lambda: w.js("return window.__statuses")


def test_the_status_says_unsaved_changes_until_the_text_is_a_saved_version(server, windows):
    doc = server.create_document("Saving", "Hello")
    a = windows().open(doc["id"])
    b = windows().open(doc["id"])
    seen = status_trace(b)
    assert seen() == ["Saved"]
    put_caret(a, 5)
    a.textarea.send_keys(" world")
    a.wait_synced()
    # Autosave makes it a version after a pause; the other window says so in words.
    b.wait(lambda: seen() == ["Saved", "Unsaved changes", "Saved"], 15, f"statuses {seen()}")
    status, current = server.request("GET", f"/documents/{doc['id']}")
    assert (status, current["hasUnsavedChanges"], current["text"]) == (200, False, "Hello world")
