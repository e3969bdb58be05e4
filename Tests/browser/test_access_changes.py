"""Issue 43: rights lost while typing are said and the typing kept to copy, mode changes are
announced, actions are offered only to those allowed, owners can delete (and take it back
for a few seconds), and a new document has the focus in its text."""
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_share import close_owner_dialog, create_in_browser, dialog_open, js_text, open_share
from test_sync import put_caret_at_end


def owner_token(w, doc_id):
    return w.js(f"return JSON.parse(localStorage.getItem('tandem.links'))['{doc_id}'].token")


def lock(server, w, doc_id):
    status, _ = server.request("PATCH", f"/documents/{doc_id}", {"access": "locked"},
                               headers={"Tandem-Link": owner_token(w, doc_id)})
    assert status == 200


def test_typing_when_editing_is_taken_away_is_kept_to_copy_and_said(server, windows):
    owner = windows()
    doc_id, _ = create_in_browser(owner, "Minutes")
    close_owner_dialog(owner)
    owner.type_at(0, "Agreed.")
    b = windows().open(doc_id, faults=True)
    b.allow_console("403")  # the refused edit
    # b types while cut off; meanwhile the owner locks the document: b's typing can no
    # longer be saved when b is back.
    b.faults("f.down = true; f.cutStreams();")
    b.wait(lambda: js_text(b, "sync-status") == "Offline")
    put_caret_at_end(b)
    b.textarea.send_keys(" Unsent words")
    lock(server, owner, doc_id)
    b.faults("f.down = false;")
    b.wait(lambda: not b.js("return document.getElementById('notice').hidden"), 20, "b was not told")
    assert js_text(b, "notice-text") == ("You can no longer edit this document: it is locked and you may only read it now."
                                         " What you typed since was not saved; it is below.")
    assert b.js("const t = document.getElementById('notice-unsent-text'); return [t.value, t.readOnly]") == [" Unsent words", True]
    assert b.js("return document.getElementById('notice-text').getAttribute('role')") == "alert"
    # The text is as the server has it, and read-only; the kept words stay until dismissed.
    b.wait(lambda: b.text() == "Agreed." == server.text(doc_id))
    assert b.textarea.get_attribute("readonly")
    b.button("notice-dismiss").click()
    assert b.js("return document.getElementById('notice').hidden")


def test_a_mode_change_is_announced_in_words(server, windows):
    owner = windows()
    doc_id, _ = create_in_browser(owner, "Announced")
    close_owner_dialog(owner)
    b = windows().open(doc_id)
    lock(server, owner, doc_id)
    b.wait(lambda: js_text(b, "toast") == "This document is now locked: Anyone can read it; only its owner and editors can edit it.",
           10, js_text(b, "toast"))
    assert b.js("return document.getElementById('toast').getAttribute('aria-live')") == "polite"
    b.wait(lambda: b.textarea.get_attribute("readonly"))
    # Nothing was typed: the notice says editing was taken, and keeps no text.
    b.wait(lambda: js_text(b, "notice-text") == "You can no longer edit this document: it is locked and you may only read it now.")
    assert b.js("return document.getElementById('notice-unsent').hidden")


def test_someone_not_the_owner_opens_share_without_a_refusal_and_reads_it_for_them(server, windows):
    owner = windows()
    doc_id, _ = create_in_browser(owner, "Shared notes")
    close_owner_dialog(owner)
    b = windows().open(doc_id)  # no allow_console: a 403 would fail the test
    open_share(b)
    assert js_text(b, "share-about") == ("It is open: Anyone can read and edit it. Only its owner can change who may open"
                                         " or edit it. You can edit it.")
    assert b.js("return ['share-mode', 'share-members', 'share-links', 'share-delete-section']"
                ".map((id) => document.getElementById(id).hidden)") == [True, True, True, True]


def rows(w, *titles):
    """The listed documents of these titles (the server's list holds other tests' too) with
    the actions offered on each, sorted by title."""
    listed = w.js("return [...document.querySelectorAll('#doc-list li')].map((li) =>"
                  " [li.querySelector('.doc-name') ? li.querySelector('.doc-name').textContent : li.textContent,"
                  "  [...li.querySelectorAll('button')].map((b) => b.textContent)])")
    return sorted(r for r in listed if any(r[0] == t or r[0].startswith(f"“{t}”") for t in titles))


def row_text(w, title):
    return w.js("return [...document.querySelectorAll('#doc-list li')].map((li) => li.textContent)"
                ".filter((t) => t.includes(arguments[0])).join('|')", title)


def test_the_list_offers_rename_and_delete_only_where_allowed(server, windows):
    owner = windows()
    doc_id, _ = create_in_browser(owner, "Mine to delete")
    close_owner_dialog(owner)
    lock(server, owner, doc_id)
    anyones = server.create_document("Anyone's", "open to all")
    # b lists what it opened; with no role in either, it may rename neither (an open
    # document's text is anyone's to edit, its title its owner's and editors').
    b = windows().open(anyones["id"]).open(doc_id)
    b.wait(lambda: b.js("return window.tandem.view.id") == doc_id)
    b.driver.get(server.base + "/#/")
    titles = ("Anyone's", "Mine to delete")
    b.wait(lambda: rows(b, *titles) == [["Anyone's", []], ["Mine to delete", []]], 10, "b's rows")
    # The owner's list holds its own, not what it never opened.
    owner.driver.get(server.base + "/#/")
    owner.wait(lambda: rows(owner, *titles) == [["Mine to delete", ["Rename", "Delete"]]], 10, "the owner's rows")


def test_an_owner_deletes_with_a_few_seconds_to_take_it_back(server, windows):
    owner = windows()
    doc_id, _ = create_in_browser(owner, "Draft")
    close_owner_dialog(owner)
    owner.driver.get(server.base + "/#/")
    owner.wait(lambda: rows(owner, "Draft") == [["Draft", ["Rename", "Delete"]]], 10, "no Delete")
    owner.click("#doc-list button[aria-label='Delete “Draft”']")
    # The row says what will happen and offers Undo, focused; nothing is deleted yet.
    owner.wait(lambda: owner.js("return document.activeElement.textContent") == "Undo")
    assert row_text(owner, "Draft") == "“Draft” will be deleted in a few seconds.Undo"
    assert server.request("GET", f"/documents/{doc_id}")[0] == 200
    owner.driver.switch_to.active_element.send_keys(Keys.ENTER)
    owner.wait(lambda: rows(owner, "Draft") == [["Draft", ["Rename", "Delete"]]], 10, "not back")
    # From the open document's Share dialog, the same, and this time it goes.
    owner.driver.get(f"{server.base}/#/doc/{doc_id}")
    owner.wait_synced()
    open_share(owner)
    owner.button("share-delete").click()
    owner.wait(lambda: row_text(owner, "Draft") == "“Draft” will be deleted in a few seconds.Undo", 10, "no Undo")
    owner.wait(lambda: server.request("GET", f"/documents/{doc_id}")[0] == 404, 15, "not deleted")
    owner.wait(lambda: row_text(owner, "Draft") == "")


def test_a_new_document_has_the_focus_in_its_text(server, windows):
    a = windows()
    doc_id, _ = create_in_browser(a, "Fresh")
    close_owner_dialog(a)
    a.wait(lambda: a.js("return document.activeElement.id") == "editor-text", 5, a.js("return document.activeElement.id"))
    a.driver.switch_to.active_element.send_keys("First words")
    a.wait_synced()
    assert server.request("GET", f"/documents/{doc_id}", headers={"Tandem-Link": owner_token(a, doc_id)})[1]["text"] == "First words"
    assert not dialog_open(a, "owner-link-dialog")
    assert a.driver.find_element(By.ID, "editor-text").get_attribute("value") == "First words"
