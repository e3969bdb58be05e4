"""The clipboard panel and its buttons, through the server's pasteboards: `general` is each
person's own (every window is a person of its own here: one guest session per tab), a named
pasteboard is its creator's alone unless shared with everyone, and the panel says so."""
import json
import uuid

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

GENERAL_ABOUT = "Only you can see it: what you copy here, only you can paste. Ctrl+C and Ctrl+X copy here too."
GONE_404 = "status of 404"  # how Chromium logs an answer 404 (a pasteboard made private meanwhile)


def unique(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def new_person(server, name):
    """A guest session made through the API (so a test can act as it before its window opens)."""
    status, session = server.request("POST", "/sessions", {"name": name})
    assert status == 201, (status, session)
    return session


def as_person(w, session):
    """Makes window `w` this session's tab: the client keeps its session in sessionStorage."""
    w.before_load(f"sessionStorage.setItem('tandem.session', {json.dumps(json.dumps(session))});")
    return w


def token(w):
    return w.js("return window.tandem.api.session.token")


def panel(w):
    return w.js("""
      const $ = (id) => document.getElementById(id);
      const share = $('pasteboard-share-button');
      return {name: $('pasteboard-name').dataset.name, title: $('pasteboard-name').textContent,
              audience: $('pasteboard-audience').textContent, about: $('pasteboard-about').textContent,
              share: share.hidden ? null : share.textContent};
    """)


def previews(w):
    return w.js("return [...document.querySelectorAll('#pasteboard-items .item-preview')].map((e) => e.textContent)")


def options(w):
    """The picker's pasteboards: [value, text] each."""
    return w.js("return [...document.getElementById('pasteboard-select').options].map((o) => [o.value, o.textContent])")


def values(w):
    return [v for v, _ in options(w)]


def select_range(w, start, end):
    w.js(f"const t = document.getElementById('editor-text'); t.focus(); t.setSelectionRange({start}, {end});")


def wait_for_panel(w):
    w.wait(lambda: w.js("return !document.getElementById('clipboard-panel').hidden"
                        " && window.tandem.view.clipboard.actions !== null"), 10, "the clipboard panel never showed")


def copy(w, start, end):
    select_range(w, start, end)
    w.wait(lambda: w.button("copy-button").is_enabled(), 10, "Copy did not enable on a selection")
    w.button("copy-button").click()


def paste_at(w, pos):
    select_range(w, pos, pos)
    w.wait(lambda: w.button("paste-button").is_enabled(), 10, "Paste did not enable")
    w.button("paste-button").click()


def new_pasteboard(w, name, shared=None):
    """Creates pasteboard `name` in `w`'s panel (private unless `shared` is "everyone")."""
    w.button("new-pasteboard-button").click()
    w.wait(lambda: w.js("return document.getElementById('pasteboard-dialog').open"))
    assert w.js("return document.querySelector('input[name=pasteboard-shared]:checked').value") == "none"
    w.driver.find_element(By.ID, "pasteboard-new-name").send_keys(name)
    if shared:
        w.driver.find_element(By.CSS_SELECTOR, f"input[name=pasteboard-shared][value={shared}]").click()
    w.driver.find_element(By.CSS_SELECTOR, "#pasteboard-form button[value=ok]").click()
    w.wait(lambda: panel(w)["name"] == name, 10, "the new pasteboard is not shown")


def test_a_copy_from_a_private_document_reaches_only_the_copier(server, windows):
    ada = new_person(server, "Ada")
    status, secret = server.request("POST", "/documents", {"title": "Plans", "text": "the secret plan",
                                                           "access": "private"}, token=ada["token"])
    assert status == 201, (status, secret)
    a = as_person(windows(), ada).open(secret["id"])
    b = windows().open(server.create_document("Bob's", "bob's words")["id"])
    wait_for_panel(a)
    wait_for_panel(b)
    assert token(b) != ada["token"]
    assert not b.button("paste-button").is_enabled()
    copy(a, 4, 10)
    a.wait(lambda: previews(a) == ["secret"], 10, "the copy is not on Ada's clipboard")
    # Ada pastes it: her clipboard is hers, in any document.
    paste_at(a, len("the secret plan"))
    a.wait(lambda: server.request("GET", f"/documents/{secret['id']}", token=ada["token"])[1]["text"]
           == "the secret plansecret", 10)
    # Bob's clipboard is still empty, to the server...
    status, bobs = server.request("GET", "/pasteboards/general", token=token(b))
    assert status == 200 and bobs["changeCount"] == 0 and bobs["items"] == [] and bobs["shared"] == "none", bobs
    # ...and to his window: a change he may read reaches him after whatever came before it
    # (a pasteboard Ada shares with everyone), and asked again his panel has nothing.
    team = unique("barrier")
    assert server.request("POST", "/pasteboards", {"name": team, "shared": "everyone"}, token=ada["token"])[0] == 201
    assert server.request("PUT", f"/pasteboards/{team}/items", [[{"type": "text/plain", "string": "hello"}]],
                          token=ada["token"])[0] == 200
    b.wait(lambda: [team, f"{team} (everyone)"] in options(b), 10, "Bob never heard of the shared pasteboard")
    b.driver.execute_async_script("const c = window.tandem.view.clipboard;"
                                  " Promise.all([c.refreshPasteboard(), c.refreshActions()]).then(() => arguments[0]())")
    assert previews(b) == []
    assert b.js("return document.getElementById('pasteboard-count').title") == "Changed 0 times"
    assert b.js("return window.tandem.view.clipboard.actions.paste") is False
    assert not b.button("paste-button").is_enabled()
    assert panel(b)["name"] == "general" and panel(b)["audience"] == "Only you"
    assert server.request("DELETE", f"/pasteboards/{team}", token=ada["token"])[0] == 204


def test_keyboard_and_buttons_use_one_clipboard(server, windows):
    doc = server.create_document("One clipboard", "alpha beta gamma\n")
    a = windows().open(doc["id"])
    wait_for_panel(a)
    # Ctrl+C: the clipboard has it, so the Paste button pastes it.
    select_range(a, 0, 5)
    a.textarea.send_keys(Keys.CONTROL, "c")
    a.wait(lambda: previews(a) == ["alpha"], 10, "Ctrl+C did not reach the clipboard")
    paste_at(a, len("alpha beta gamma\n"))
    a.wait(lambda: server.text(doc["id"]) == "alpha beta gamma\nalpha", 10, server.text(doc["id"]))
    a.wait_synced()
    # The Copy button, then Ctrl+V: what the button copied is pasted.
    copy(a, 6, 10)
    a.wait(lambda: previews(a) == ["beta"], 10)
    a.wait_synced()
    select_range(a, 0, 0)
    a.textarea.send_keys(Keys.CONTROL, "v")
    a.wait(lambda: server.text(doc["id"]) == "betaalpha beta gamma\nalpha", 10, server.text(doc["id"]))
    a.wait(lambda: a.js("return document.getElementById('undo-label').textContent") == "Undo Paste")
    # Ctrl+X is the server's Cut: one undoable change, and the clipboard has the text.
    a.wait_synced()
    select_range(a, 9, 14)
    a.textarea.send_keys(Keys.CONTROL, "x")
    a.wait(lambda: server.text(doc["id"]) == "betaalpha gamma\nalpha", 10, server.text(doc["id"]))
    a.wait(lambda: previews(a) == [" beta"], 10)
    a.wait(lambda: a.js("return document.getElementById('undo-label').textContent") == "Undo Cut")
    a.wait(lambda: a.text() == server.text(doc["id"]))


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
    wait_for_panel(w)
    scratch = unique("scratch")
    new_pasteboard(w, scratch)
    assert Select(w.button("pasteboard-select")).first_selected_option.text == f"{scratch} (only you)"
    # Its owner (this tab's session) removes it elsewhere; the stream says kind: "removed".
    status, body = server.request("DELETE", f"/pasteboards/{scratch}", token=token(w))
    assert status == 204, (status, body)
    w.wait(lambda: panel(w)["name"] == "general", 10, "still showing the removed pasteboard")
    w.wait(lambda: Select(w.button("pasteboard-select")).first_selected_option.text == "Your clipboard")
    assert scratch not in values(w)
    assert panel(w)["title"] == "Your clipboard" and panel(w)["share"] is None
    # The clipboard keeps working on general.
    copy(w, 0, 4)
    w.wait(lambda: previews(w) == ["text"], 10)
    assert not w.js("return document.getElementById('clipboard-panel').hidden")


def test_the_panel_says_whose_clipboard_it_is_and_names_types(server, windows):
    w = windows().open(server.create_document("Types", "x")["id"])
    wait_for_panel(w)
    assert panel(w) == {"name": "general", "title": "Your clipboard", "audience": "Only you",
                        "about": GENERAL_ABOUT, "share": None}
    # Only general is anyone's own; any other in the list is one shared with everyone.
    listed = options(w)
    assert listed[0] == ["general", "Your clipboard"], listed
    assert all(text.endswith(" (everyone)") for _, text in listed[1:]), listed
    # Without a session there is no clipboard at all: general is always someone's.
    status, body = server.request("GET", "/pasteboards/general")
    assert status == 401 and body["error"]["code"] == "session_required", (status, body)
    status, _ = server.request("PUT", "/pasteboards/general/items", [[
        {"type": "public.utf8-plain-text", "string": "words"},
        {"type": "public.html", "string": "<b>words</b>"},
    ], [{"type": "image/png", "base64": "iVBORw0KGgo="}]], token=token(w))
    assert status == 200
    w.wait(lambda: w.js("return [...document.querySelectorAll('#pasteboard-items .item-types')].map((e) => e.textContent)")
           == ["Plain text, HTML", "Image (PNG)"], 10)
    assert w.js("return document.getElementById('pasteboard-count').textContent") == "2 items"
    assert panel(w)["about"] == GENERAL_ABOUT


def test_a_pasteboard_shared_with_everyone_reaches_the_other_window(server, windows):
    start = "Shared words, not these\n"
    doc = server.create_document("Team", start)
    a = windows().open(doc["id"])
    b = windows().open(doc["id"])
    wait_for_panel(a)
    wait_for_panel(b)
    team, mine = unique("team"), unique("mine")
    new_pasteboard(a, team, shared="everyone")
    assert panel(a) == {"name": team, "title": f"Pasteboard “{team}”", "audience": "Everyone", "share": "Stop sharing",
                        "about": "You shared it: everyone can see it, paste from it and copy to it. Only you can stop sharing it;"
                                 " it goes when you leave."}
    a.wait(lambda: [team, f"{team} (everyone)"] in options(a))
    # A private one of Ada's, made through the API and written to.
    status, body = server.request("POST", "/pasteboards", {"name": mine}, token=token(a))
    assert status == 201 and body["shared"] == "none", (status, body)
    assert server.request("PUT", f"/pasteboards/{mine}/items", [[{"type": "text/plain", "string": "mine alone"}]],
                          token=token(a))[0] == 200
    a.wait(lambda: [mine, f"{mine} (only you)"] in options(a), 10)
    # Ada copies onto the shared one; Bob hears of it and lists it, never her private one.
    copy(a, 0, 12)
    a.wait(lambda: previews(a) == ["Shared words"], 10)
    b.wait(lambda: [team, f"{team} (everyone)"] in options(b), 10, "the shared pasteboard is not in Bob's list")
    assert mine not in values(b)
    assert server.request("GET", f"/pasteboards/{mine}", token=token(b))[0] == 404
    Select(b.button("pasteboard-select")).select_by_value(team)
    b.wait(lambda: panel(b)["name"] == team and previews(b) == ["Shared words"], 10)
    assert panel(b) == {"name": team, "title": f"Pasteboard “{team}”", "audience": "Everyone", "share": None,
                        "about": "Shared with everyone by its creator: anyone can see it, paste from it and copy to it."}
    paste_at(b, len(start))
    b.wait(lambda: server.text(doc["id"]) == start + "Shared words", 10, server.text(doc["id"]))
    a.wait(lambda: a.text() == b.text() == server.text(doc["id"]))
    assert b.button("paste-button").get_attribute("title") == f"Paste from {team}"
    # Bob's own clipboard still has nothing of Ada's.
    status, bobs = server.request("GET", "/pasteboards/general", token=token(b))
    assert status == 200 and bobs["changeCount"] == 0, bobs
    # Removed, it leaves Bob's panel too.
    assert server.request("DELETE", f"/pasteboards/{team}", token=token(a))[0] == 204
    b.wait(lambda: panel(b)["name"] == "general" and team not in values(b), 10)
    assert server.request("DELETE", f"/pasteboards/{mine}", token=token(a))[0] == 204


def test_its_owner_shares_a_pasteboard_and_stops_sharing_it(server, windows):
    doc = server.create_document("Sharing", "words to share")
    a = windows().open(doc["id"])
    b = windows().open(doc["id"])
    wait_for_panel(a)
    wait_for_panel(b)
    board = unique("notes")
    new_pasteboard(a, board)
    assert panel(a) == {"name": board, "title": f"Pasteboard “{board}”", "audience": "Only you",
                        "share": "Share with everyone",
                        "about": "Only you can see it and paste from it. Share it with everyone to let others paste from it too."}
    a.wait(lambda: [board, f"{board} (only you)"] in options(a))
    copy(a, 0, 5)
    a.wait(lambda: previews(a) == ["words"], 10)
    assert server.request("GET", f"/pasteboards/{board}", token=token(b))[0] == 404
    # Shared: Bob hears of it (a "changed" event) and it joins his list.
    a.button("pasteboard-share-button").click()
    a.wait(lambda: panel(a)["audience"] == "Everyone" and panel(a)["share"] == "Stop sharing", 10)
    a.wait(lambda: [board, f"{board} (everyone)"] in options(a), 10)
    b.wait(lambda: [board, f"{board} (everyone)"] in options(b), 10, "Bob never heard it was shared")
    Select(b.button("pasteboard-select")).select_by_value(board)
    b.wait(lambda: panel(b)["name"] == board and previews(b) == ["words"], 10)
    assert panel(b)["audience"] == "Everyone" and panel(b)["share"] is None
    # Private again: nobody tells Bob, but the next thing his window asks about it answers
    # 404, and it leaves his panel and list: he is back on his own clipboard.
    b.allow_console(GONE_404)
    a.button("pasteboard-share-button").click()
    a.wait(lambda: panel(a)["audience"] == "Only you" and panel(a)["share"] == "Share with everyone", 10)
    a.wait(lambda: [board, f"{board} (only you)"] in options(a), 10)
    assert server.request("GET", f"/pasteboards/{board}", token=token(b))[0] == 404
    select_range(b, 0, 0)
    select_range(b, 5, 5)
    b.wait(lambda: panel(b)["name"] == "general" and board not in values(b), 10, "Bob still shows the private pasteboard")
    assert b.js("return document.getElementById('toast').textContent") \
        == f"The pasteboard “{board}” is gone or no longer shared with you: back to your clipboard."
    assert panel(b) == {"name": "general", "title": "Your clipboard", "audience": "Only you",
                        "about": GENERAL_ABOUT, "share": None}
    assert server.request("DELETE", f"/pasteboards/{board}", token=token(a))[0] == 204
