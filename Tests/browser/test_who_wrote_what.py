"""Issue 42, the browser half: authors' colours over the text with a legend, the changes
since a saved version (and restoring it from there), and history entries that say what
they did, with times that stay current."""
import re

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

TINTS = "return [...document.querySelectorAll(arguments[0] + ' .author-tint')].map((t) => [t.dataset.author, t.style.getPropertyValue('--who')])"
LEGEND = "return [...document.querySelectorAll('#authorship-legend .legend-item[data-author]')].map((l) => [l.dataset.author, l.dataset.color, l.textContent])"


def session_of(w):
    return w.js("return window.tandem.api.session.id")


def name_of(w):
    return w.js("return window.tandem.api.session.name")


def worst_contrast(w, color):
    """The text's contrast over `color`'s tint, the worse of the light and dark themes."""
    return w.driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "import('/js/authorship-colors.js').then((m) => done(m.worstContrast(arguments[0], m.tintAlpha(arguments[0]))));",
        color)


def two_people_typed(server, windows, url_query=""):
    doc = server.create_document("Authors", "")
    a = windows()
    a.driver.get(f"{server.base}/{url_query}#/doc/{doc['id']}")
    a.wait_synced()
    b = windows()
    b.driver.get(f"{server.base}/{url_query}#/doc/{doc['id']}")
    b.wait_synced()
    for w, words in ((a, "Written by the first person. "), (b, "And this by the second one.")):
        w.js("const e = window.tandem.view.editor; e.focus(); e.setSelection(e.getText().length, e.getText().length);")
        w.driver.switch_to.active_element.send_keys(words)
        w.wait_synced()
    a.wait(lambda: a.text() == b.text() == server.text(doc["id"]) == "Written by the first person. And this by the second one.")
    return doc, a, b


def check_two_colours(w, others, surface):
    w.button("authorship-button").click()
    assert w.button("authorship-button").get_attribute("aria-pressed") == "true"
    people = {session_of(w), session_of(others)}
    w.wait(lambda: {t[0] for t in w.js(TINTS, surface)} == people, 10, f"tints {w.js(TINTS, surface)}")
    colours = {}
    for author, colour in w.js(TINTS, surface):
        colours.setdefault(author, set()).add(colour.strip())
    # One colour each, and not the same one.
    assert all(len(c) == 1 for c in colours.values()), colours
    assert len({next(iter(c)) for c in colours.values()}) == 2, colours
    legend = w.js(LEGEND)
    assert {l[0] for l in legend} == people
    names = {l[0]: l[2] for l in legend}
    assert names[session_of(w)] == f"{name_of(w)} (you)"
    assert names[session_of(others)] == name_of(others)
    for _, colour, _ in legend:
        assert worst_contrast(w, colour) >= 4.5


def test_authors_colours_tint_two_peoples_text_and_the_legend_names_both(server, windows):
    doc, a, b = two_people_typed(server, windows)
    check_two_colours(a, b, "#editor .overlay-inner")
    # More typing is tinted too, once the client has asked again.
    b.js("const e = window.tandem.view.editor; e.focus(); e.setSelection(0, 0);")
    b.driver.switch_to.active_element.send_keys("NEW ")
    b.wait_synced()
    a.wait(lambda: a.js("return window.tandem.view.authorship.runsIn(0, 4).map((r) => r.author)") == [session_of(b)], 10,
           "the new words were never tinted as b's")
    # Off again: no tints, no legend.
    a.button("authorship-button").click()
    a.wait(lambda: a.js(TINTS, "#editor .overlay-inner") == [])
    assert a.js("return document.getElementById('authorship-legend').hidden") is True


def test_authors_colours_work_in_the_viewport_editor_too(server, windows):
    doc, a, b = two_people_typed(server, windows, "?editor=viewport")
    assert a.js("return document.getElementById('editor-viewport').hidden") is False
    check_two_colours(a, b, "#editor-viewport .vp-marks")


def test_the_changes_since_a_version_show_who_inserted_and_deleted_and_restore_it(server, windows):
    doc = server.create_document("Letter", "Dear Ann, hello")
    a = windows().open(doc["id"])
    a.button("save-button").click()
    a.wait(lambda: a.js("return document.querySelectorAll('#versions-list .version-item').length") == 1)
    a.type_at(10, "Thanks from you ")
    a.js("const t = document.getElementById('editor-text'); t.focus(); t.setSelectionRange(0, 5);")
    a.textarea.send_keys(Keys.BACKSPACE)
    a.wait_synced()
    assert server.text(doc["id"]) == "Ann, Thanks from you hello"
    a.click("#versions-list .version-changes")
    a.wait(lambda: a.js("return document.getElementById('diff-dialog').open"))
    box = a.driver.find_element(By.ID, "diff-box")
    assert [e.get_attribute("textContent") for e in box.find_elements(By.CSS_SELECTOR, "ins.diff-insert")] == ["Thanks from you "]
    deleted = box.find_elements(By.CSS_SELECTOR, "del.diff-delete")
    assert [d.get_attribute("textContent") for d in deleted] == ["Dear "]
    assert box.find_element(By.CSS_SELECTOR, ".diff-text").get_attribute("textContent") == "Dear Ann, Thanks from you hello"
    assert name_of(a) in box.find_element(By.CSS_SELECTOR, "ins.diff-insert").get_attribute("title")
    # In order of place; a deletion names who wrote the text it took (here nobody known).
    changes = [e.get_attribute("textContent") for e in box.find_elements(By.CSS_SELECTOR, ".diff-change")]
    assert changes == ['Deleted "Dear " at 0, written by an unknown author',
                       f'{name_of(a)} inserted "Thanks from you " at 5'], changes
    assert "16 characters inserted, 5 characters deleted" in box.text
    a.button("diff-revert").click()
    a.wait(lambda: server.text(doc["id"]) == "Dear Ann, hello", 10, "restoring did nothing")
    a.wait(lambda: a.text() == "Dear Ann, hello")


def test_history_entries_say_what_they_did_and_their_times_stay_current(server, windows):
    doc = server.create_document("Notes", "Dear Ann")
    a = windows().open(doc["id"])
    a.type_at(8, " Thanks from you")
    a.js("const t = document.getElementById('editor-text'); t.focus(); t.setSelectionRange(0, 5);")
    a.textarea.send_keys(Keys.BACKSPACE)
    a.wait_synced()
    previews = "return [...document.querySelectorAll('#history-list .history-preview')].map((p) => p.textContent)"
    a.wait(lambda: a.js(previews) == ['Deleted "Dear " at 0', 'Typing " Thanks from you" at 8'], 10, f"previews {a.js(previews)}")
    times = "return [...document.querySelectorAll('#history-list time')].map((t) => [t.dateTime, t.title, t.textContent])"
    for stamp, title, text in a.js(times):
        assert re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", stamp)
        assert title
        assert text == "just now"
    # Three minutes later, without anything else happening, the panel says so.
    a.js("const real = Date.now.bind(Date); Date.now = () => real() + 3 * 60 * 1000;")
    a.wait(lambda: {t[2] for t in a.js(times)} == {"3 minutes ago"}, 15, f"times {a.js(times)}")


def test_on_a_phone_authors_colours_are_switched_on_in_settings_and_nothing_scrolls_sideways(server, windows):
    doc = server.create_document("Phone", "")
    a = windows(390, 844)
    a.open(doc["id"])
    a.type_at(0, "Typed on a phone, with a long enough line to wrap across the screen.")
    assert a.js("return getComputedStyle(document.getElementById('authorship-button')).display") == "none"
    a.button("settings-button").click()
    a.button("settings-authorship").click()
    a.driver.find_element(By.CSS_SELECTOR, "#settings-form button[value=ok]").click()
    a.wait(lambda: {t[0] for t in a.js(TINTS, "#editor .overlay-inner")} == {session_of(a)}, 10, "no tints")
    assert [l[0] for l in a.js(LEGEND)] == [session_of(a)]
    assert a.js("return document.documentElement.scrollWidth <= window.innerWidth")
    legend = a.js("const r = document.getElementById('authorship-legend').getBoundingClientRect(); return [r.left, r.right]")
    assert legend[0] >= 0 and legend[1] <= 390


def test_in_a_long_document_only_the_authors_text_in_view_is_tinted(server, windows):
    from test_viewport_editor import MEGABYTE, remote_edit
    doc = server.create_document("Long", MEGABYTE)
    n = len(MEGABYTE)
    remote_edit(server, doc["id"], ["First words. ", n])
    remote_edit(server, doc["id"], [n + 13, "Last words."])
    a = windows().open(doc["id"])
    assert a.js("return document.getElementById('editor-viewport').hidden") is False
    a.button("authorship-button").click()
    surface = "#editor-viewport .vp-marks"
    a.wait(lambda: len(a.js(TINTS, surface)) > 0, 10, "no tints at the start")
    first = {t[0] for t in a.js(TINTS, surface)}
    assert len(first) == 1 and len(a.js(TINTS, surface)) <= 2
    assert len(a.js(LEGEND)) == 2  # the legend names both; only the one in view is drawn
    a.js("window.tandem.view.editor.select(arguments[0], arguments[0]);", n + 13 + 11)
    a.wait(lambda: {t[0] for t in a.js(TINTS, surface)} not in (set(), first), 10, f"tints at the end {a.js(TINTS, surface)}")
    assert len(a.js(TINTS, surface)) <= 2
