"""Sharing (issue 28): the owner link shown once at creation, the Share dialog (access mode,
people, share links), the read-only view, and what another browser sees when its access
changes. Issue 39: a share link never grants less than the address, and the dialog says so.
Every browser here is its own profile: its own localStorage, its own session."""
import re

from conftest import FAULTS_JS

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

TOKEN = r"l_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}"


def js_text(w, element_id):
    return w.js(f"const e = document.getElementById('{element_id}'); return e ? e.textContent.trim() : null")


def dialog_open(w, element_id):
    return w.js(f"return document.getElementById('{element_id}').open")


def create_in_browser(w, title):
    """Creates a document from the list as a person does; returns its id and owner link URL."""
    w.driver.get(w.server.base + "/#/")
    field = w.driver.find_element(By.ID, "create-title")
    w.wait(lambda: field.is_displayed())
    field.send_keys(title, Keys.ENTER)
    w.wait(lambda: dialog_open(w, "owner-link-dialog"), 10, "no owner link dialog")
    w.wait_synced()
    doc_id = w.js("return window.tandem.view.id")
    return doc_id, w.js("return document.getElementById('owner-link-url').value")


def close_owner_dialog(w):
    w.driver.find_element(By.CSS_SELECTOR, "#owner-link-dialog button[value=ok]").click()
    w.wait(lambda: not dialog_open(w, "owner-link-dialog"))


def open_share(w):
    w.button("share-button").click()
    w.wait(lambda: dialog_open(w, "share-dialog"), 10, "no share dialog")
    w.wait(lambda: js_text(w, "share-about") != "")


def close_share(w):
    w.button("share-close").click()
    w.wait(lambda: not dialog_open(w, "share-dialog"))


def choose_mode(w, mode):
    w.driver.find_element(By.CSS_SELECTOR, f"input[name=share-access][value={mode}]").find_element(By.XPATH, "..").click()


def mode_radios(w):
    """{mode: (checked, disabled)} as the dialog shows them."""
    return w.js("return Object.fromEntries([...document.querySelectorAll('input[name=share-access]')]"
                ".map((r) => [r.value, [r.checked, r.disabled]]))")


def read_only_state(w):
    return w.js("""
      const $ = (id) => document.getElementById(id);
      return {badge: !$('access-badge').hidden && $('access-badge').offsetParent !== null ? $('access-badge').textContent : null,
              readOnly: $('editor-text').readOnly, title: $('doc-title').readOnly,
              undo: $('undo-button').disabled, redo: $('redo-button').disabled, save: $('save-button').disabled,
              cut: $('cut-button').disabled, paste: $('paste-button').disabled};
    """)


VIEW_ONLY = {"badge": "View only", "readOnly": True, "title": True, "undo": True, "redo": True,
             "save": True, "cut": True, "paste": True}


def link_rows(w):
    return w.js("return [...document.querySelectorAll('#share-link-list li')].map((li) =>"
                " [li.querySelector('.share-link-role').textContent, li.querySelector('.share-item-meta').textContent,"
                "  li.dataset.status, !!li.querySelector('button')])")


def test_the_owner_link_is_shown_once_copies_and_keeps_this_browser_the_owner(server, windows):
    a = windows()
    doc_id, url = create_in_browser(a, "Ours")
    assert js_text(a, "owner-link-heading") == "Owner link for “Ours”"
    m = re.fullmatch(re.escape(f"{server.base}/#/doc/{doc_id}?link=") + f"({TOKEN})", url)
    assert m, url
    token = m.group(1)
    # This browser keeps it, as the owner's; the server agrees it is the owner link.
    assert a.js("return JSON.parse(localStorage.getItem('tandem.links'))") == {doc_id: {"token": token, "role": "owner"}}
    status, doc = server.request("GET", f"/documents/{doc_id}", headers={"Tandem-Link": token})
    assert (status, doc["role"], doc["canEdit"], doc["access"]) == (200, "owner", True, "open")
    # The focus is on Copy, and it copies (the Clipboard API, allowed here).
    assert a.js("return document.activeElement.id") == "owner-link-copy"
    a.driver.execute_cdp_cmd("Browser.grantPermissions", {
        "origin": server.base, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
    a.button("owner-link-copy").click()
    a.wait(lambda: js_text(a, "owner-link-status") == "Copied to the clipboard.")
    assert a.driver.execute_async_script("navigator.clipboard.readText().then(arguments[0], (e) => arguments[0]('failed: ' + e))") == url
    # Where the Clipboard API is refused, the link is selected and copied the old way.
    a.js("""
      navigator.clipboard.writeText = () => Promise.reject(new DOMException('not allowed', 'NotAllowedError'));
      window.__copied = null;
      document.addEventListener('copy', () => {
        const f = document.activeElement; window.__copied = f.value.slice(f.selectionStart, f.selectionEnd);
      }, {once: true});
      document.getElementById('owner-link-status').textContent = '';
    """)
    a.button("owner-link-copy").click()
    a.wait(lambda: js_text(a, "owner-link-status") == "Copied to the clipboard.")
    assert a.js("return window.__copied") == url
    close_owner_dialog(a)
    assert a.js("return document.activeElement.id") != "owner-link-url"
    # Shown once: not again on reload, nor in another tab.
    a.driver.refresh()
    a.wait_synced()
    assert not dialog_open(a, "owner-link-dialog")
    # Another tab of this browser is another session, and still the owner through the link.
    first = a.js("return window.tandem.api.session.id")
    a.driver.switch_to.new_window("tab")
    a.driver.get(f"{server.base}/#/doc/{doc_id}")
    a.wait_synced()
    assert a.js("return window.tandem.api.session.id") != first
    assert not dialog_open(a, "owner-link-dialog")
    open_share(a)
    assert js_text(a, "share-about") == "You own this document: you decide who can open and edit it."
    assert mode_radios(a) == {"open": [True, False], "editable": [False, False], "locked": [False, False], "private": [False, False]}
    assert link_rows(a) == [["Owner link", "created just now · never expires · this browser’s", "active", True]]


def test_the_mode_changes_what_another_browser_may_do(server, windows):
    a = windows()
    doc_id, _ = create_in_browser(a, "Modes")
    close_owner_dialog(a)
    a.type_at(0, "Hello")
    b = windows().open(doc_id)
    b.allow_console("403")  # the refused edit
    b.allow_console("404")  # the document once private
    assert b.text() == "Hello"
    assert read_only_state(b)["badge"] is None
    assert not b.textarea.get_attribute("readonly")

    open_share(a)
    choose_mode(a, "locked")
    a.wait(lambda: js_text(a, "share-status") == "Now locked: Anyone can read it; only its owner and editors can edit it.")
    assert mode_radios(a)["locked"] == [True, False]
    status, doc = server.request("GET", f"/documents/{doc_id}")
    assert (status, doc["access"], doc["canEdit"]) == (200, "locked", False)
    close_share(a)

    # The stream's `access` event tells b at once: it shows the read-only view before typing.
    b.wait(lambda: read_only_state(b) == VIEW_ONLY, 10, "b never became view only")
    b.wait_synced()
    assert b.text() == "Hello"
    assert b.textarea.get_attribute("readonly")
    assert server.text(doc_id) == "Hello"
    # Others' changes still stream in.
    a.type_at(5, " world")
    b.wait(lambda: b.text() == "Hello world")
    assert read_only_state(b) == VIEW_ONLY
    # b is not the owner: the dialog says the mode (as said of its owner, not "only you"),
    # that only the owner changes it, and offers nothing to change.
    open_share(b)
    assert js_text(b, "share-about") == ("It is locked: Anyone can read it; only its owner and editors can edit it. "
                                         "Only its owner can change who may open or edit it. You can read it but not edit it.")
    assert b.js("return ['share-mode', 'share-members', 'share-links']"
                ".map((id) => document.getElementById(id).hidden)") == [True, True, True]
    b.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    b.wait(lambda: not dialog_open(b, "share-dialog"))

    # Private: to b it no longer exists; its stream ends and the page says so.
    open_share(a)
    choose_mode(a, "private")
    a.wait(lambda: js_text(a, "share-status").startswith("Now private:"))
    b.wait(lambda: b.js("return !document.getElementById('missing-view').hidden"), 15, "b still shows the document")
    assert js_text(b, "missing-heading") == "This document is no longer available"
    assert js_text(b, "missing-text") == "It was deleted or made private, or your access to it was removed."
    assert b.js("return document.getElementById('doc-view').hidden && window.tandem.collab === null")
    assert server.request("GET", f"/documents/{doc_id}")[0] == 404
    # The owner goes on.
    close_share(a)
    a.type_at(11, "!")
    assert server.request("GET", f"/documents/{doc_id}", headers={"Tandem-Link": a.js(
        f"return JSON.parse(localStorage.getItem('tandem.links'))['{doc_id}'].token")})[1]["text"] == "Hello world!"


def test_a_viewer_link_opens_a_live_read_only_view_until_revoked(server, windows):
    a = windows()
    doc_id, _ = create_in_browser(a, "Secret")
    close_owner_dialog(a)
    a.type_at(0, "Top secret")
    open_share(a)
    choose_mode(a, "private")
    a.wait(lambda: js_text(a, "share-status").startswith("Now private:"))
    a.driver.find_element(By.ID, "share-link-expiry").send_keys("Expires in 1 day")
    assert a.js("return document.getElementById('share-link-role').value") == "viewer"
    a.button("share-link-create").click()
    a.wait(lambda: a.button("share-new-link-url").is_displayed())
    assert js_text(a, "share-new-link-label") == "New viewer link: copy it now, it is shown only this once."
    url = a.js("return document.getElementById('share-new-link-url').value")
    token = re.fullmatch(re.escape(f"{server.base}/#/doc/{doc_id}?link=") + f"({TOKEN})", url).group(1)
    assert link_rows(a) == [["Viewer link", "created just now · expires tomorrow", "active", True],
                            ["Owner link", "created just now · never expires · this browser’s", "active", True]]
    a.screenshot("share-dialog-owner")

    c = windows()
    c.allow_console("401")  # the revoked link
    c.allow_console("404")  # the private document without it
    c.driver.get(url)
    c.wait_synced()
    assert c.text() == "Top secret"
    assert read_only_state(c) == VIEW_ONLY
    assert c.button("access-badge").is_displayed()
    c.screenshot("share-viewer")
    # The token left the address bar; this browser keeps it for the document.
    assert c.driver.current_url == f"{server.base}/#/doc/{doc_id}"
    assert c.js("return JSON.parse(localStorage.getItem('tandem.links'))") == {doc_id: {"token": token, "role": None}}
    assert c.js("return window.tandem.view.doc.role") == "viewer"
    # Anyone without the link: no such document.
    assert server.request("GET", f"/documents/{doc_id}")[0] == 404
    # Live: the owner's typing arrives.
    close_share(a)
    a.type_at(10, " news")
    c.wait(lambda: c.text() == "Top secret news")
    open_share(a)

    # Revoked: c's stream ends, and c says the link no longer works.
    a.click("#share-link-list li[data-status=active] button[aria-label^='Revoke the viewer link']")
    a.wait(lambda: link_rows(a)[0] == ["Viewer link", "created just now · revoked", "revoked", False])
    assert js_text(a, "share-status") == "The viewer link no longer works; anyone who opened it with it has lost that access."
    c.wait(lambda: c.js("return !document.getElementById('missing-view').hidden"), 15, "c still shows the document")
    assert js_text(c, "missing-heading") == "Your link no longer works"
    assert js_text(c, "missing-text") == ("The share link you opened this document with was revoked or has expired. "
                                          "Ask its owner for a new one.")
    assert c.js("return window.tandem.collab === null && document.getElementById('doc-view').hidden")
    assert c.js("return localStorage.getItem('tandem.links')") == "{}"
    # The link is dead for everyone; the owner goes on.
    assert server.request("GET", f"/documents/{doc_id}/text", headers={"Tandem-Link": token})[0] == 401
    close_share(a)
    a.type_at(15, "!")
    assert c.js("return window.tandem.view.editor.getText()") == "Top secret news"


def test_the_owner_gives_and_takes_roles(server, windows):
    a = windows()
    doc_id, _ = create_in_browser(a, "Team")
    close_owner_dialog(a)
    open_share(a)
    choose_mode(a, "locked")
    a.wait(lambda: js_text(a, "share-status").startswith("Now locked:"))
    close_share(a)
    b = windows().open(doc_id)
    assert read_only_state(b) == VIEW_ONLY
    b_id = b.js("return window.tandem.api.session.id")
    b_name = b.js("return window.tandem.api.session.name")

    open_share(a)
    assert js_text(a, "share-members-empty") == "No one has a role in this document yet."
    # b is here: the field suggests it by name.
    assert a.js("return [...document.querySelectorAll('#share-people option')].map((o) => [o.value, o.label])") == [[b_id, b_name]]
    a.driver.find_element(By.ID, "share-member-session").send_keys(b_id)
    a.driver.find_element(By.ID, "share-member-role").send_keys("Editor")
    a.driver.find_element(By.CSS_SELECTOR, "#share-member-form button[type=submit]").click()
    a.wait(lambda: js_text(a, "share-status") == f"{b_name} is now an editor.")
    rows = lambda: a.js("return [...document.querySelectorAll('#share-member-list li')].map((li) =>"
                        " [li.querySelector('.share-item-name').textContent, li.querySelector('select').value])")
    assert rows() == [[b_name, "editor"]]
    assert not a.js("return document.getElementById('share-members-empty').hidden === false")
    # b's next look at the document has it editable.
    b.driver.refresh()
    b.wait_synced()
    assert read_only_state(b)["readOnly"] is False and read_only_state(b)["badge"] is None
    b.type_at(0, "by b ")
    assert server.text(doc_id) == "by b "
    # An unknown session is said so; removing b leaves no one.
    a.driver.find_element(By.ID, "share-member-session").send_keys("nobody")
    a.driver.find_element(By.CSS_SELECTOR, "#share-member-form button[type=submit]").click()
    a.wait(lambda: js_text(a, "share-status") == "No one is using Tandem with the session “nobody”.")
    a.allow_console("422")
    a.click(f"#share-member-list button[aria-label='Remove {b_name}']")
    a.wait(lambda: js_text(a, "share-status") == f"{b_name} no longer has a role here.")
    assert rows() == []
    assert js_text(a, "share-members-empty") == "No one has a role in this document yet."
    status, doc = server.request("GET", f"/documents/{doc_id}/access", headers={"Tandem-Link": a.js(
        f"return JSON.parse(localStorage.getItem('tandem.links'))['{doc_id}'].token")})
    assert (status, doc["access"], doc["members"]) == (200, "locked", [])


# Issue 39: a share link never grants less than the address, and the dialog says why.

OPEN_NOTE = "Anyone with the address can already edit this open document: make it Locked or Private to share a read-only link."
EDITABLE_NOTE = ("Anyone using Tandem can already edit this editable document: make it Locked or Private to share"
                 " a read-only link.")


def owner_token(w, doc_id):
    return w.js(f"return JSON.parse(localStorage.getItem('tandem.links'))['{doc_id}'].token")


def link_choice(w):
    """The new link's role select as shown: its options [value, disabled], the value chosen,
    and the line under the form (None when hidden)."""
    return w.js("""
      const s = document.getElementById('share-link-role'), n = document.getElementById('share-link-note');
      return {options: [...s.options].map((o) => [o.value, o.disabled]), value: s.value,
              note: n.hidden || n.offsetParent === null ? null : n.textContent};
    """)


def accessible(w, css):
    """What a screen reader is given for the element `css` finds: Chromium's accessibility
    tree's name, description and whether it is disabled."""
    root = w.driver.execute_cdp_cmd("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    node = w.driver.execute_cdp_cmd("DOM.querySelector", {"nodeId": root, "selector": css})["nodeId"]
    ax = w.driver.execute_cdp_cmd("Accessibility.getPartialAXTree", {"nodeId": node, "fetchRelatives": False})["nodes"][0]
    props = {p["name"]: p["value"].get("value") for p in ax.get("properties", [])}
    return {"name": ax.get("name", {}).get("value"), "description": ax.get("description", {}).get("value"),
            "disabled": bool(props.get("disabled"))}


def create_link(w, role_text):
    w.driver.find_element(By.ID, "share-link-role").send_keys(role_text)
    w.button("share-link-create").click()
    w.wait(lambda: w.button("share-new-link-url").is_displayed())


def test_an_open_document_offers_no_viewer_link_and_says_why_until_it_is_locked(server, windows):
    a = windows()
    doc_id, _ = create_in_browser(a, "Handout")
    close_owner_dialog(a)
    open_share(a)
    # Open (the default): anyone with the address edits, so a viewer link would give less.
    assert link_choice(a) == {"options": [["viewer", True], ["editor", False]], "value": "editor", "note": OPEN_NOTE}
    # A screen reader hears why with the choice, and that the viewer option is unavailable.
    assert accessible(a, "#share-link-role") == {"name": "Role the link gives", "description": OPEN_NOTE, "disabled": False}
    assert accessible(a, "#share-link-role option[value=viewer]")["disabled"] is True
    a.screenshot("share-dialog-open-no-viewer-link")
    choose_mode(a, "editable")
    a.wait(lambda: js_text(a, "share-status").startswith("Now editable:"))
    assert link_choice(a) == {"options": [["viewer", True], ["editor", False]], "value": "editor", "note": EDITABLE_NOTE}
    # Locked: the viewer link is offered again, and chosen as it was before the mode ruled it out.
    choose_mode(a, "locked")
    a.wait(lambda: js_text(a, "share-status").startswith("Now locked:"))
    assert link_choice(a) == {"options": [["viewer", False], ["editor", False]], "value": "viewer", "note": None}
    assert accessible(a, "#share-link-role")["description"] in (None, "")

    # The mode changed elsewhere (another tab, the API): the open dialog follows its event.
    status, _ = server.request("PATCH", f"/documents/{doc_id}", {"access": "editable"},
                               headers={"Tandem-Link": owner_token(a, doc_id)})
    assert status == 200
    a.wait(lambda: mode_radios(a)["editable"] == [True, False], 10, "the dialog kept the old mode")
    assert link_choice(a) == {"options": [["viewer", True], ["editor", False]], "value": "editor", "note": EDITABLE_NOTE}
    # An editor link may be made in every mode.
    create_link(a, "Editor")
    assert js_text(a, "share-new-link-label") == "New editor link: copy it now, it is shown only this once."

    choose_mode(a, "private")
    a.wait(lambda: js_text(a, "share-status").startswith("Now private:"))
    # Editor was only the mode's doing (the person picked no other): viewer is chosen again.
    assert link_choice(a) == {"options": [["viewer", False], ["editor", False]], "value": "viewer", "note": None}
    create_link(a, "Viewer")
    a.wait(lambda: js_text(a, "share-new-link-label") == "New viewer link: copy it now, it is shown only this once.")
    assert [r[0] for r in link_rows(a)] == ["Viewer link", "Editor link", "Owner link"]


def test_switching_to_open_while_a_viewer_link_works_says_to_revoke_it_first(server, windows):
    a = windows()
    a.allow_console("409")  # the refused mode
    doc_id, _ = create_in_browser(a, "Press release")
    close_owner_dialog(a)
    open_share(a)
    choose_mode(a, "locked")
    a.wait(lambda: js_text(a, "share-status").startswith("Now locked:"))
    create_link(a, "Viewer")
    assert link_rows(a)[0][:3] == ["Viewer link", "created just now · never expires", "active"]

    choose_mode(a, "open")
    a.wait(lambda: a.js("return document.getElementById('share-status').dataset.kind") == "error", 10, js_text(a, "share-status"))
    assert js_text(a, "share-status") == ("1 working viewer link would let anyone holding it edit once the document is open:"
                                          " revoke it first. It stays locked.")
    assert mode_radios(a) == {"open": [False, False], "editable": [False, False], "locked": [True, False], "private": [False, False]}
    assert server.request("GET", f"/documents/{doc_id}")[1]["access"] == "locked"
    assert link_choice(a)["options"] == [["viewer", False], ["editor", False]]
    a.screenshot("share-dialog-viewer-links-work")

    # Revoked, the link no longer stands in the way.
    a.click("#share-link-list li[data-status=active] button[aria-label^='Revoke the viewer link']")
    a.wait(lambda: link_rows(a)[0][2] == "revoked")
    choose_mode(a, "open")
    a.wait(lambda: js_text(a, "share-status") == "Now open: Anyone can read and edit it.")
    assert mode_radios(a)["open"] == [True, False]
    assert link_choice(a) == {"options": [["viewer", True], ["editor", False]], "value": "editor", "note": OPEN_NOTE}


def test_a_viewer_link_the_server_refuses_says_why_and_the_choice_follows(server, windows):
    a = windows()
    a.allow_console("409")  # the refused link
    a.before_load(FAULTS_JS)
    doc_id, _ = create_in_browser(a, "Refused link")
    close_owner_dialog(a)
    open_share(a)
    choose_mode(a, "locked")
    a.wait(lambda: js_text(a, "share-status").startswith("Now locked:"))
    assert link_choice(a)["value"] == "viewer"
    # The mode changes elsewhere, and its event is slow to arrive: the dialog still offers a
    # viewer link, which the server refuses.
    a.faults("f.delayEventsMs = 3000;")
    status, _ = server.request("PATCH", f"/documents/{doc_id}", {"access": "open"},
                               headers={"Tandem-Link": owner_token(a, doc_id)})
    assert status == 200
    a.button("share-link-create").click()
    a.wait(lambda: js_text(a, "share-status").startswith("This document is open"), 10, js_text(a, "share-status"))
    assert js_text(a, "share-status") == (
        "This document is open: anyone with its address may edit it, so a viewer link would grant less than the"
        " address does; make it locked or private first, or share an editor link.")
    assert a.js("return document.getElementById('share-status').dataset.kind") == "error"
    assert a.js("return document.getElementById('share-new-link').hidden")
    # The dialog read the rules again: open, and no viewer link offered.
    a.wait(lambda: mode_radios(a)["open"] == [True, False])
    assert link_choice(a) == {"options": [["viewer", True], ["editor", False]], "value": "editor", "note": OPEN_NOTE}
    a.faults("f.delayEventsMs = 0;")
    assert [r[0] for r in link_rows(a)] == ["Owner link"]


def test_a_viewer_on_an_open_document_is_told_they_can_edit_and_why(server, windows):
    a = windows()
    doc_id, _ = create_in_browser(a, "Agenda")
    close_owner_dialog(a)
    b = windows().open(doc_id)
    b.allow_console("403")  # an edit refused once the document is locked
    b_id = b.js("return window.tandem.api.session.id")
    b_name = b.js("return window.tandem.api.session.name")
    # The owner makes b a viewer: a member may be a viewer in every mode.
    open_share(a)
    a.driver.find_element(By.ID, "share-member-session").send_keys(b_id)
    a.driver.find_element(By.ID, "share-member-role").send_keys("Viewer")
    a.driver.find_element(By.CSS_SELECTOR, "#share-member-form button[type=submit]").click()
    a.wait(lambda: js_text(a, "share-status") == f"{b_name} is now a viewer.")

    # b is a viewer, yet the open document lets anyone edit: b is told so, and can.
    open_share(b)
    assert js_text(b, "share-about") == (
        "It is open: Anyone can read and edit it. Only its owner can change who may open or edit it."
        " You are a viewer, but this document is open: anyone with its address can edit it, so you can too.")
    assert b.js("return window.tandem.view.access.role") == "viewer"
    assert read_only_state(b)["readOnly"] is False

    # b's dialog stays open while the owner changes the mode: it follows, and stays true.
    choose_mode(a, "editable")
    b.wait(lambda: js_text(b, "share-about").startswith("It is editable:"), 10, js_text(b, "share-about"))
    assert js_text(b, "share-about") == (
        "It is editable: Anyone can read it; anyone using Tandem can edit it (callers without a session only read)."
        " Only its owner can change who may open or edit it."
        " You are a viewer, but this document is editable: anyone using Tandem can edit it, so you can too.")
    choose_mode(a, "locked")
    b.wait(lambda: js_text(b, "share-about").startswith("It is locked:"), 10, js_text(b, "share-about"))
    assert js_text(b, "share-about") == (
        "It is locked: Anyone can read it; only its owner and editors can edit it."
        " Only its owner can change who may open or edit it. You are a viewer and can read it but not edit it.")
    b.wait(lambda: read_only_state(b) == VIEW_ONLY, 10, "b never became view only")
