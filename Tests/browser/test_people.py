"""Who is who: renaming yourself, guest names, name flags over carets, live titles, and
being told when someone undid your change."""
import time

from selenium.webdriver.common.by import By

from test_sync import put_caret


def rename_in_settings(w, name):
    w.button("settings-button").click()
    field = w.driver.find_element(By.ID, "settings-name")
    field.clear()
    field.send_keys(name)
    w.driver.find_element(By.CSS_SELECTOR, "#settings-form button[value=ok]").click()


def guest(w):
    return w.js("return window.tandem.api.session.name").removesuffix(" (guest)")


def undo_label(w):
    return w.js("return document.getElementById('undo-label').textContent")


def test_renaming_yourself_keeps_your_session_and_undo(server, windows):
    doc = server.create_document("Names", "")
    a = windows().open(doc["id"])
    b = windows().open(doc["id"])
    a.textarea.send_keys("typed by a")
    a.wait_synced()
    a.wait(lambda: undo_label(a) == "Undo Typing")
    session = a.js("return window.tandem.api.session.id")
    rename_in_settings(a, "Ada Lovelace")
    # Everyone sees the new name; the session is the same one.
    b.wait(lambda: "Ada Lovelace" in b.js("return [...document.querySelectorAll('#people li')].map((l) => l.title).join('|')"),
           10, "b never saw the new name")
    assert a.js("return window.tandem.api.session.id") == session
    assert a.js("return window.tandem.api.session.name") == "Ada Lovelace"
    # The undo history survived: Undo still takes back a's typing.
    assert undo_label(a) == "Undo Typing"
    a.button("undo-button").click()
    a.wait(lambda: server.text(doc["id"]) == "", 10, "undo after renaming did nothing")
    b.wait(lambda: b.text() == "")
    # The name is remembered for the next tab.
    assert a.js("return localStorage.getItem('tandem.name')") == "Ada Lovelace"


def test_two_guests_never_share_a_name(server, windows):
    doc = server.create_document("Guests", "text")
    # Both would pick the first guest name.
    pick_first = "Math.random = () => 0;"
    a = windows()
    a.before_load(pick_first)
    a.open(doc["id"])
    b = windows()
    b.before_load(pick_first)
    b.open(doc["id"])

    def names(w):
        return w.js("return window.tandem.view.presence.people.map((p) => p.name)")

    for w in (a, b):
        w.wait(lambda: len(names(w)) == 2 and len(set(names(w))) == 2, 10, f"names {names(w)}")
    assert all(n.endswith("(guest)") for n in names(a))


def test_name_flags_show_briefly_and_never_stay_over_the_text(server, windows):
    doc = server.create_document("Flags", "first line\nsecond line\n")
    a = windows().open(doc["id"])
    b = windows().open(doc["id"])
    time.sleep(3)  # past the flags shown for people joining
    put_caret(b, len("first line\nsecond"))
    b.textarea.send_keys("!")
    b.wait_synced()
    shown = "return [...document.querySelectorAll('.remote-label')].filter((l) => getComputedStyle(l).visibility === 'visible').length"
    a.wait(lambda: a.js(shown) == 1, 5, "no flag while b types")
    # Then it goes, and the text under it shows again.
    a.wait(lambda: a.js(shown) == 0, 5, "the flag stayed over the text")
    assert a.js("return document.querySelectorAll('.remote-caret').length") == 1


def test_a_new_title_shows_in_every_window_at_once(server, windows):
    doc = server.create_document("Old title", "x")
    # Only an owner or an editor renames: a opens it with the owner link.
    a = windows().open(f"{doc['id']}?link={doc['ownerLink']['token']}")
    b = windows().open(doc["id"])
    title = a.driver.find_element(By.ID, "doc-title")
    title.clear()
    title.send_keys("New title\n")
    b.wait(lambda: b.js("return document.getElementById('doc-title').value") == "New title", 10,
           "b still shows the old title")
    b.wait(lambda: b.driver.title == "New title · Tandem")


def test_someone_undoing_your_change_tells_you(server, windows):
    doc = server.create_document("Undone", "x")
    a = windows().open(doc["id"])
    b = windows().open(doc["id"])
    put_caret(b, 1)
    b.textarea.send_keys(" by b")
    b.wait_synced()
    a.wait(lambda: a.text() == "x by b")
    a.driver.find_element(By.CSS_SELECTOR, "input[name=scope][value=document]").click()
    a.wait(lambda: undo_label(a) == "Undo Typing", 10, undo_label(a))
    # Renamed (elsewhere, through the API), b's name follows in what a is told.
    status, _ = server.request("PATCH", "/sessions/me", {"name": "James"}, token=b.js("return window.tandem.api.session.token"))
    assert status == 200
    a.wait(lambda: "James" in a.js("return [...document.querySelectorAll('#people li')].map((l) => l.title).join('|')"),
           10, "a never saw the new name")
    a.button("undo-button").click()
    b.wait(lambda: b.text() == "x")
    # The undo names who made it (a), not whose group it was (b): b is told by a's name.
    b.wait(lambda: b.js("return document.getElementById('toast').textContent") == f"{guest(a)} undid your Typing", 10,
           b.js("return document.getElementById('toast').textContent"))
    # a's own toast names whose change it undid, from the answer.
    a.wait(lambda: a.js("return document.getElementById('toast').textContent") == "Undid James’s Typing", 10,
           a.js("return document.getElementById('toast').textContent"))
    # b's own undo says nothing of the kind.
    b.textarea.send_keys(" again")
    b.wait_synced()
    b.wait(lambda: undo_label(b) == "Undo Typing")
    b.js("document.getElementById('toast').textContent = ''")
    b.button("undo-button").click()
    b.wait(lambda: b.js("return document.getElementById('toast').textContent") == "Undid Typing", 10)
