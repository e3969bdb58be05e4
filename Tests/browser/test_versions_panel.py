"""Issue 42, the Versions panel: named saves show their names, unnamed ones say "Saved
version", autosave's checkpoints say they are automatic with the time they cover and are
replaced in place as autosave collapses them, a name is given in the panel (the server's
word shown when it refuses one), any entry is named or renamed from the panel (live in
every window by the version event; a named checkpoint is kept), and the changes since any
kind of version open from its entry. The owner deletes versions from the panel (asked
inline first), and versions deleted or dropped to stay within the document's budget
(--version-bytes) leave every window's list. Autosave keeps the text after about 2 s of
quiet: the tests wait for it."""
import time

import pytest

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import running_server
from test_layout import CONTRASTS
from test_viewport_editor import remote_edit

AUTOSAVE = 20  # seconds to wait for autosave, generously

ITEMS = """return [...document.querySelectorAll('#versions-list .version-item')].map((li) => ({
  number: Number(li.dataset.number), kind: li.dataset.kind,
  name: li.querySelector('.version-name').textContent,
  since: li.querySelector('.version-span') ? Number(li.querySelector('.version-span').dataset.since) : null,
  time: li.querySelector('.version-span') ? Number(li.querySelector('.version-span').dataset.time) : null}))"""

# The span as this browser writes a range of clock times (both ends today).
SPAN = """return new Intl.DateTimeFormat(undefined, {hour: 'numeric', minute: '2-digit'})
  .formatRange(new Date(arguments[0] * 1000), new Date(arguments[1] * 1000))"""


def items(w):
    return w.js(ITEMS)


def versions(server, doc_id):
    status, answer = server.request("GET", f"/documents/{doc_id}/versions")
    assert status == 200, answer
    return answer


def wait_versions(w, server, doc_id, predicate, message):
    w.wait(lambda: predicate(versions(server, doc_id)), AUTOSAVE, f"{message}: {versions(server, doc_id)}")
    return versions(server, doc_id)


def open_name_form(w):
    w.button("version-name-button").click()
    assert w.button("version-name-button").get_attribute("aria-expanded") == "true"
    assert w.js("return document.activeElement.id") == "version-name-input"


def test_a_named_save_shows_its_name_and_an_unnamed_one_says_saved_version(server, windows):
    doc = server.create_document("Letter", "Dear Ann")
    a = windows().open(doc["id"])
    b = windows().open(doc["id"])
    open_name_form(a)
    a.driver.switch_to.active_element.send_keys("Sent to Ann", Keys.ENTER)
    a.wait(lambda: len(items(a)) == 1, 10, "the named save is not listed")
    [named] = versions(server, doc["id"])
    assert (named["name"], named["automatic"], named["since"]) == ("Sent to Ann", False, None)
    assert items(a) == [{"number": named["number"], "kind": "named", "name": "Sent to Ann", "since": None, "time": None}]
    # The form is done: closed, empty, the keyboard back on its button.
    assert a.js("return document.getElementById('version-name-form').hidden") is True
    assert a.js("return document.getElementById('version-name-input').value") == ""
    assert a.js("return document.activeElement.id") == "version-name-button"
    # The toolbar's Save version saves without a name; the other window hears both.
    a.button("save-button").click()
    a.wait(lambda: len(items(a)) == 2, 10, "the unnamed save is not listed")
    unnamed = versions(server, doc["id"])[1]
    assert unnamed["name"] is None
    expected = [{"number": unnamed["number"], "kind": "saved", "name": "Saved version", "since": None, "time": None},
                {"number": named["number"], "kind": "named", "name": "Sent to Ann", "since": None, "time": None}]
    assert items(a) == expected
    b.wait(lambda: items(b) == expected, 10, f"the other window lists {items(b)}")
    # Named saves are the prominent ones.
    weights = a.js("return [...document.querySelectorAll('#versions-list .version-name')].map((n) => Number(getComputedStyle(n).fontWeight))")
    assert weights[1] > weights[0], weights


def test_an_autosave_is_listed_as_automatic_with_its_span_and_the_next_replaces_it(server, windows):
    doc = server.create_document("Notes", "")
    a = windows().open(doc["id"])
    b = windows().open(doc["id"])
    a.type_at(0, "First words.")
    [first] = wait_versions(a, server, doc["id"], lambda vs: len(vs) == 1, "no autosave")
    assert first["automatic"] is True and first["since"] == first["time"]
    listed = [{"number": first["number"], "kind": "automatic", "name": "Autosaved · " + a.js(SPAN, first["since"], first["time"]),
               "since": round(first["since"] * 1000), "time": round(first["time"] * 1000)}]
    for w in (a, b):
        w.wait(lambda: [dict(i, since=round(i["since"]), time=round(i["time"])) for i in items(w)] == listed, 10, f"listed {items(w)}")
    # Quieter than a save made on purpose: the muted colour, a lighter weight.
    look = a.js("const n = document.querySelector('#versions-list .version-name'); const s = getComputedStyle(n);"
                "return [s.color, Number(s.fontWeight), getComputedStyle(document.querySelector('#versions-list .version-meta')).color]")
    assert look[0] == look[2] and look[1] < 600, look
    # More typing within ten minutes: autosave takes the checkpoint's place, a new number
    # for the longer span; one automatic entry is left in each window.
    a.type_at(12, " More words.")
    [second] = wait_versions(a, server, doc["id"], lambda vs: len(vs) == 1 and vs[0]["number"] != first["number"], "not replaced")
    assert second["number"] > first["number"] and second["automatic"] is True and second["since"] == first["since"]
    listed = [{"number": second["number"], "kind": "automatic", "name": "Autosaved · " + a.js(SPAN, second["since"], second["time"]),
               "since": round(first["since"] * 1000), "time": round(second["time"] * 1000)}]
    for w in (a, b):
        w.wait(lambda: [dict(i, since=round(i["since"]), time=round(i["time"])) for i in items(w)] == listed, 10, f"listed {items(w)}")
        assert w.js("return document.getElementById('versions-count').textContent") == "1"


def test_the_name_form_sends_the_name_and_shows_the_servers_error_for_a_too_long_one(server, windows):
    doc = server.create_document("Plan", "Step one")
    a = windows().open(doc["id"])
    a.allow_console("400")  # the refused save
    # By keyboard: the button opens the form, Escape leaves it.
    a.js("document.getElementById('version-name-button').focus()")
    a.driver.switch_to.active_element.send_keys(Keys.ENTER)
    assert a.js("return document.activeElement.id") == "version-name-input"
    a.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    assert a.js("return document.getElementById('version-name-form').hidden") is True
    assert a.button("version-name-button").get_attribute("aria-expanded") == "false"
    assert a.js("return document.activeElement.id") == "version-name-button"
    # 201 characters: the server refuses, the form says why and keeps the name to mend.
    open_name_form(a)
    a.driver.switch_to.active_element.send_keys("x" * 201, Keys.ENTER)
    error = "return document.getElementById('version-name-error').textContent"
    a.wait(lambda: a.js(error) != "", 10, "no error shown")
    assert a.js(error) == "name: must be 1 to 200 characters"
    assert a.button("version-name-input").get_attribute("aria-invalid") == "true"
    assert a.js("return document.activeElement.id") == "version-name-input"
    assert versions(server, doc["id"]) == []
    assert items(a) == []
    # 200 are fine.
    field = a.button("version-name-input")
    field.send_keys(Keys.BACKSPACE)
    assert a.js(error) == ""  # mending it clears the error
    field.send_keys(Keys.ENTER)
    a.wait(lambda: len(items(a)) == 1, 10, "the save is not listed")
    [v] = versions(server, doc["id"])
    assert (v["name"], v["automatic"]) == ("x" * 200, False)
    assert items(a)[0]["name"] == "x" * 200
    assert a.js("return document.getElementById('version-name-form').hidden") is True


def test_the_changes_since_an_autosave_open_from_its_entry_and_restore_it(server, windows):
    doc = server.create_document("Story", "")
    a = windows().open(doc["id"])
    a.type_at(0, "Once upon a time")
    [auto] = wait_versions(a, server, doc["id"], lambda vs: len(vs) == 1, "no autosave")
    # Someone else adds to it and saves on purpose at once, so autosave has nothing to replace.
    remote_edit(server, doc["id"], [16, " there was a fox."])
    status, saved = server.request("POST", f"/documents/{doc['id']}/save")
    assert status in (200, 201), saved
    a.wait(lambda: [i["number"] for i in items(a)] == [saved["number"], auto["number"]], 10, f"listed {items(a)}")
    a.click(f"#versions-list .version-item[data-number='{auto['number']}'] .version-changes")
    a.wait(lambda: a.js("return document.getElementById('diff-dialog').open"))
    heading = a.js("return document.getElementById('diff-heading').textContent")
    assert heading == f"Changes since the autosave of {a.js(SPAN, auto['since'], auto['time'])} (version {auto['number']})"
    box = a.driver.find_element(By.ID, "diff-box")
    inserted = box.find_elements(By.CSS_SELECTOR, "ins.diff-insert")
    assert [e.get_attribute("textContent") for e in inserted] == [" there was a fox."]
    assert inserted[0].get_attribute("title") == "Inserted by Remote"
    a.button("diff-revert").click()
    a.wait(lambda: server.text(doc["id"]) == "Once upon a time", 10, "restoring did nothing")
    a.wait(lambda: a.text() == "Once upon a time")


def test_an_open_diff_follows_its_checkpoint_when_autosave_replaces_it(server, windows):
    doc = server.create_document("Diary", "")
    a = windows().open(doc["id"])
    a.type_at(0, "Monday")
    [first] = wait_versions(a, server, doc["id"], lambda vs: len(vs) == 1, "no autosave")
    a.wait(lambda: len(items(a)) == 1)
    a.click("#versions-list .version-changes")
    a.wait(lambda: a.js("return document.getElementById('diff-dialog').open"))
    assert a.js("return document.querySelector('#diff-box .diff-summary').textContent") == "No changes since this version."
    remote_edit(server, doc["id"], [6, ", Tuesday"])
    [second] = wait_versions(a, server, doc["id"], lambda vs: len(vs) == 1 and vs[0]["number"] != first["number"], "not replaced")
    note = f"Autosave brought version {first['number']} up to date as version {second['number']}: this is the newer one."
    a.wait(lambda: a.js("const n = document.querySelector('#diff-box .diff-note'); return n && n.textContent") == note, 10,
           a.js("return document.getElementById('diff-box').textContent"))
    assert a.js("return document.getElementById('diff-heading').textContent").endswith(f"(version {second['number']})")
    assert a.js("return document.getElementById('diff-dialog').open") is True
    assert [i["number"] for i in items(a)] == [second["number"]]
    # Restoring from here restores the checkpoint shown, which is the newer one.
    a.button("diff-revert").click()
    a.wait(lambda: a.js("return document.getElementById('diff-dialog').open") is False)
    a.wait(lambda: a.text() == "Monday, Tuesday")
    assert server.text(doc["id"]) == "Monday, Tuesday"


def test_several_autosaves_in_a_row_fold_into_a_group_its_button_opens(server, windows):
    doc = server.create_document("Long day", "Text")
    a = windows().open(doc["id"])
    # Checkpoints more than ten minutes apart, as a long day of writing leaves them (the
    # server's list, laid out by the client; the times are the test's own).
    a.js("""const v = window.tandem.view.versions;
      const t = Date.now() / 1000 - 3 * 3600;
      v.list = [
        {number: 1, revision: 1, time: t, length: 4, name: 'Outline', automatic: false, since: null},
        {number: 2, revision: 2, time: t + 900, length: 4, name: null, automatic: true, since: t + 600},
        {number: 3, revision: 3, time: t + 3600, length: 4, name: null, automatic: true, since: t + 3000},
        {number: 4, revision: 4, time: t + 7200, length: 4, name: null, automatic: true, since: t + 6600}];
      v.render();""")
    toggle = a.driver.find_element(By.CSS_SELECTOR, "#versions-list .version-group-toggle")
    assert toggle.get_attribute("aria-expanded") == "false"
    assert toggle.get_attribute("textContent").startswith("▸3 autosaves · ")
    listed = "return [...document.querySelectorAll('#versions-list .version-item')].filter((li) => li.offsetParent).map((li) => li.dataset.number)"
    assert a.js(listed) == ["1"]
    a.js("document.querySelector('#versions-list .version-group-toggle').focus()")
    a.driver.switch_to.active_element.send_keys(Keys.ENTER)
    toggle = a.driver.find_element(By.CSS_SELECTOR, "#versions-list .version-group-toggle")
    assert toggle.get_attribute("aria-expanded") == "true"
    assert a.js("return document.activeElement.classList.contains('version-group-toggle')") is True
    assert a.js(listed) == ["4", "3", "2", "1"]
    assert a.js(f"return document.getElementById({toggle.get_attribute('aria-controls')!r}).hidden") is False
    # Another checkpoint of the same run keeps the group open.
    a.js("""const v = window.tandem.view.versions;
      v.onSaved({...v.list[3], number: 5, time: v.list[3].time + 60, replaced: 4});""")
    assert a.js(listed) == ["5", "3", "2", "1"]
    # The version event naming the group's oldest checkpoint: it leaves the group, which stays open.
    a.js("""const v = window.tandem.view.versions;
      v.onVersion({...v.list.find((x) => x.number === 2), name: 'Lunch', automatic: false});""")
    assert a.js(listed) == ["5", "3", "2", "1"]
    assert a.js("return [...document.querySelectorAll('#versions-list > li')].map((li) => li.dataset.key ? 'group ' + li.dataset.key"
                " + ' ' + li.querySelector('.version-group-toggle').getAttribute('aria-expanded') : li.dataset.number + ' ' + li.dataset.kind)") \
        == ["group 3 true", "2 named", "1 named"]


def test_the_versions_panel_reads_at_four_and_a_half_to_one_in_light_and_dark(server, windows):
    doc = server.create_document("Colours", "Text")
    a = windows().open(doc["id"])
    a.allow_console("400")
    a.allow_console("404")  # naming a version the server does not have (this list is the test's own)
    a.js("""const v = window.tandem.view.versions;
      const t = Date.now() / 1000 - 3 * 3600;
      v.list = [
        {number: 1, revision: 1, time: t, length: 4, name: 'Outline', automatic: false, since: t - 300},
        {number: 2, revision: 1, time: t + 60, length: 4, name: null, automatic: false, since: null},
        {number: 3, revision: 2, time: t + 900, length: 4, name: null, automatic: true, since: t + 600},
        {number: 4, revision: 3, time: t + 3600, length: 4, name: null, automatic: true, since: t + 3000},
        {number: 5, revision: 4, time: t + 7200, length: 4, name: null, automatic: true, since: t + 6600}];
      v.expanded.add(3);
      v.render();""")
    open_name_form(a)
    a.driver.switch_to.active_element.send_keys("y" * 201, Keys.ENTER)
    a.wait(lambda: a.js("return document.getElementById('version-name-error').textContent") != "")
    # And an entry's name form, with its error.
    rename_button(a, 1).click()
    a.driver.switch_to.active_element.send_keys("Plan", Keys.ENTER)
    a.wait(lambda: a.js(FORM)["error"] == "This version is not there any more.", 10, str(a.js(FORM)))
    # And the owner's question before deleting, with its error (the role is the test's own: the server refuses).
    a.allow_console("403")
    a.js("window.tandem.view.access.role = 'owner'; window.tandem.view.versions.render();")
    delete_button(a, 2).click()
    a.button("version-delete-yes").click()
    a.wait(lambda: a.js(CONFIRM)["error"] == "Only the document's owner may do this.", 10, str(a.js(CONFIRM)))
    assert (a.js(CONFIRM)["number"], a.js(FORM)["number"]) == (2, 1)  # both open, on their own entries
    assert [i["number"] for i in items(a)] == [5, 4, 3, 2, 1]  # nothing left the list
    script = CONTRASTS.replace("'.appbar *, .toolbar *, .remote-label'", "'#versions-panel *'")
    assert script != CONTRASTS
    for scheme in ("light", "dark"):
        a.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        time.sleep(0.5)  # buttons ease into the theme's colours (0.12 s transitions)
        found = a.js(script)
        kinds = {f[0] for f in found}
        assert {"version-name", "version-span", "version-meta", "version-group-label", "version-name-error",
                "version-rename-error", "version-rename-submit", "button small quiet version-rename",
                "button small quiet danger version-delete", "version-delete-question", "version-delete-yes",
                "version-delete-no", "version-delete-error"} <= kinds, (scheme, kinds)
        low = [f for f in found if f[2] < 4.5]
        assert low == [], (scheme, low)


# Counts the window's fetches of the whole list (GET …/versions) from now on.
COUNT_FETCHES = """window.__listFetches = 0;
  const api = window.tandem.view.api, get = api.get.bind(api);
  api.get = (path, options) => { if (/\\/versions$/.test(path)) window.__listFetches += 1; return get(path, options); };"""

FORM = """const f = document.getElementById('version-rename-form');
  return f && {number: Number(f.closest('.version-item').dataset.number),
    label: document.querySelector('label[for=version-rename-input]').textContent,
    value: document.getElementById('version-rename-input').value,
    submit: document.getElementById('version-rename-submit').textContent,
    error: document.getElementById('version-rename-error').textContent,
    focused: document.activeElement.id}"""


def rounded(listed):
    return [dict(i, since=i["since"] and round(i["since"]), time=i["time"] and round(i["time"])) for i in listed]


def rename_button(w, number):
    return w.driver.find_element(By.CSS_SELECTOR, f"#versions-list .version-item[data-number='{number}'] .version-rename")


def focused_entry_button(w):
    return w.js("const b = document.activeElement; return b.classList.contains('version-rename')"
                " && [Number(b.closest('.version-item').dataset.number), b.textContent, b.getAttribute('aria-expanded')]")


def test_naming_an_autosave_shows_the_name_in_both_windows_and_the_next_autosave_keeps_it(server, windows):
    doc = server.create_document("Essay", "")
    a = windows().open(doc["id"])
    b = windows().open(doc["id"])
    a.type_at(0, "Opening line.")
    [auto] = wait_versions(a, server, doc["id"], lambda vs: len(vs) == 1, "no autosave")
    for w in (a, b):
        w.wait(lambda: [(i["number"], i["kind"]) for i in items(w)] == [(auto["number"], "automatic")], 10, f"listed {items(w)}")
    b.js(COUNT_FETCHES)
    # The checkpoint's "Name…" opens a form under it, empty, the keyboard in it.
    button = rename_button(a, auto["number"])
    assert (button.text, button.get_attribute("aria-label")) == \
        ("Name…", f"Name the autosave of {a.js(SPAN, auto['since'], auto['time'])} (version {auto['number']})")
    button.click()
    assert a.js(FORM) == {"number": auto["number"], "label": f"Name version {auto['number']} (named, autosave keeps it)",
                          "value": "", "submit": "Save", "error": "", "focused": "version-rename-input"}
    assert rename_button(a, auto["number"]).get_attribute("aria-expanded") == "true"
    a.driver.switch_to.active_element.send_keys("First draft", Keys.ENTER)
    # Named, it is kept: no longer automatic, its span the same.
    named = dict(auto, name="First draft", automatic=False)
    wait_versions(a, server, doc["id"], lambda vs: vs == [named], "not named")
    listed = [{"number": auto["number"], "kind": "named", "name": "First draft",
               "since": round(auto["since"] * 1000), "time": round(auto["time"] * 1000)}]
    for w in (a, b):
        w.wait(lambda: rounded(items(w)) == listed, 10, f"listed {items(w)}")
        # The span it covers, quietly beside its time.
        assert w.js("return document.querySelector('#versions-list .version-meta .version-span').textContent") == \
            "autosaved " + w.js(SPAN, auto["since"], auto["time"])
    # The other window heard the version event: the list was not fetched again.
    assert b.js("return window.__listFetches") == 0
    # The form is done; the keyboard is back on the entry's button, which now renames.
    assert a.js(FORM) is None
    assert focused_entry_button(a) == [auto["number"], "Rename…", "false"]
    # More typing: autosave makes a new checkpoint beside the named one.
    a.type_at(13, " Second line.")
    vs = wait_versions(a, server, doc["id"], lambda vs: len(vs) == 2, "no second autosave")
    assert vs[0] == named
    assert vs[1]["automatic"] is True and vs[1]["number"] > auto["number"] and vs[1]["name"] is None
    expected = [(vs[1]["number"], "automatic", "Autosaved · " + a.js(SPAN, vs[1]["since"], vs[1]["time"])),
                (auto["number"], "named", "First draft")]
    for w in (a, b):
        w.wait(lambda: [(i["number"], i["kind"], i["name"]) for i in items(w)] == expected, 10, f"listed {items(w)}")
    # Later still, autosave replaces the new checkpoint, never the named one.
    a.type_at(26, " Third.")
    later = wait_versions(a, server, doc["id"], lambda vs: len(vs) == 2 and vs[1]["number"] != expected[0][0], "not replaced")
    assert later[0] == named


def test_renaming_to_a_too_long_name_shows_the_servers_error_and_escape_leaves_the_form(server, windows):
    doc = server.create_document("Report", "Figures")
    status, saved = server.request("POST", f"/documents/{doc['id']}/save", {"name": "Sent to Ann"})
    assert status in (200, 201) and saved["name"] == "Sent to Ann", saved
    a = windows().open(doc["id"])
    a.allow_console("400")  # the refused name
    a.wait(lambda: [i["name"] for i in items(a)] == ["Sent to Ann"], 10, f"listed {items(a)}")
    # By keyboard: "Rename…" opens the form with the name in it, selected.
    a.js("arguments[0].focus()", rename_button(a, saved["number"]))
    a.driver.switch_to.active_element.send_keys(Keys.ENTER)
    assert a.js(FORM) == {"number": saved["number"], "label": f"Rename version {saved['number']} (empty takes the name away)",
                          "value": "Sent to Ann", "submit": "Save", "error": "", "focused": "version-rename-input"}
    assert a.js("const i = document.activeElement; return [i.selectionStart, i.selectionEnd]") == [0, 11]
    # 201 characters: the server refuses, the form says why and keeps the name to mend.
    a.driver.switch_to.active_element.send_keys("z" * 201, Keys.ENTER)
    a.wait(lambda: a.js(FORM)["error"] != "", 10, "no error shown")
    form = a.js(FORM)
    assert (form["error"], form["value"], form["focused"]) == ("name: must be 1 to 200 characters", "z" * 201, "version-rename-input")
    assert a.button("version-rename-input").get_attribute("aria-invalid") == "true"
    assert versions(server, doc["id"]) == [saved]
    assert [i["name"] for i in items(a)] == ["Sent to Ann"]
    # Escape leaves it, the keyboard back on the entry's button; nothing changed.
    a.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    assert a.js(FORM) is None
    assert focused_entry_button(a) == [saved["number"], "Rename…", "false"]
    assert versions(server, doc["id"]) == [saved]


def test_emptying_a_versions_name_offers_to_remove_it_and_removes_it(server, windows):
    doc = server.create_document("Memo", "Body")
    status, saved = server.request("POST", f"/documents/{doc['id']}/save", {"name": "Draft"})
    assert status in (200, 201), saved
    a = windows().open(doc["id"])
    b = windows().open(doc["id"])
    a.wait(lambda: [i["name"] for i in items(a)] == ["Draft"], 10, f"listed {items(a)}")
    rename_button(a, saved["number"]).click()
    field = a.button("version-rename-input")
    field.send_keys(Keys.BACKSPACE)  # the whole name was selected
    assert a.js(FORM)["submit"] == "Remove name"
    field.send_keys(Keys.ENTER)
    wait_versions(a, server, doc["id"], lambda vs: vs == [dict(saved, name=None)], "the name is still there")
    listed = [{"number": saved["number"], "kind": "saved", "name": "Saved version", "since": None, "time": None}]
    for w in (a, b):
        w.wait(lambda: items(w) == listed, 10, f"listed {items(w)}")
    assert focused_entry_button(a) == [saved["number"], "Name…", "false"]
    # Empty on a version without a name: nothing to send, the form says so.
    rename_button(a, saved["number"]).click()
    a.button("version-rename-input").send_keys(Keys.ENTER)
    assert a.js(FORM)["error"] == "Type a name for this version, or Cancel."
    assert versions(server, doc["id"]) == [dict(saved, name=None)]


def test_a_reader_is_offered_no_naming_and_an_editor_loses_it_when_the_document_is_locked(server, windows):
    doc = server.create_document("Minutes", "Agreed.")
    status, saved = server.request("POST", f"/documents/{doc['id']}/save", {"name": "Agreed"})
    assert status in (200, 201), saved
    owner = {"Tandem-Link": doc["ownerLink"]["token"]}
    b = windows().open(doc["id"])
    b.wait(lambda: len(items(b)) == 1, 10, f"listed {items(b)}")
    shown = "return [...document.querySelectorAll('#versions-list .version-rename')].map((b) => [b.textContent, b.checkVisibility()])"
    assert b.js(shown) == [["Rename…", True]]
    rename_button(b, saved["number"]).click()
    assert b.js(FORM)["number"] == saved["number"]
    # Locked: b may only read now. The form goes, and the button with it.
    assert server.request("PATCH", f"/documents/{doc['id']}", {"access": "locked"}, headers=owner)[0] == 200
    b.wait(lambda: b.js("return window.tandem.view.access.canEdit") is False, 10, "b can still edit")
    b.wait(lambda: b.js(shown) == [["Rename…", False]] and b.js(FORM) is None, 10, f"b shows {b.js(shown)}, {b.js(FORM)}")
    # A reader opening it: the entry, no naming; the server refuses a reader's name anyway.
    c = windows().open(doc["id"])
    c.wait(lambda: [i["name"] for i in items(c)] == ["Agreed"], 10, f"listed {items(c)}")
    assert c.js(shown) == [["Rename…", False]]
    assert c.js("return document.getElementById('version-name-button').disabled") is True
    status, _ = server.request("PATCH", f"/documents/{doc['id']}/versions/{saved['number']}", {"name": "Mine"})
    assert status in (403, 404)
    # Editing again (unlocked): naming is offered again.
    assert server.request("PATCH", f"/documents/{doc['id']}", {"access": "open"}, headers=owner)[0] == 200
    c.wait(lambda: c.js(shown) == [["Rename…", True]], 10, f"c shows {c.js(shown)}")


def test_a_name_form_open_on_a_checkpoint_follows_it_when_autosave_replaces_it(server, windows):
    doc = server.create_document("Log", "")
    a = windows().open(doc["id"])
    a.type_at(0, "Start")
    [first] = wait_versions(a, server, doc["id"], lambda vs: len(vs) == 1, "no autosave")
    a.wait(lambda: [i["number"] for i in items(a)] == [first["number"]], 10, f"listed {items(a)}")
    rename_button(a, first["number"]).click()
    a.driver.switch_to.active_element.send_keys("Half")
    # Someone else writes on; autosave replaces the checkpoint while the name is being typed.
    remote_edit(server, doc["id"], [5, " and on"])
    [second] = wait_versions(a, server, doc["id"], lambda vs: len(vs) == 1 and vs[0]["number"] != first["number"], "not replaced")
    a.wait(lambda: (a.js(FORM) or {}).get("number") == second["number"], 10, f"the form is on {a.js(FORM)}")
    form = a.js(FORM)
    assert (form["value"], form["focused"], form["label"]) == ("Half", "version-rename-input", f"Name version {second['number']} (named, autosave keeps it)")
    a.driver.switch_to.active_element.send_keys(" way", Keys.ENTER)
    wait_versions(a, server, doc["id"], lambda vs: vs == [dict(second, name="Half way", automatic=False)], "not named")
    a.wait(lambda: [(i["number"], i["name"]) for i in items(a)] == [(second["number"], "Half way")], 10, f"listed {items(a)}")


# Issue 42, deleting versions: only the owner, asked first; every window follows.

DELETE_SHOWN = "return [...document.querySelectorAll('#versions-list .version-delete')].map((b) => [Number(b.closest('.version-item').dataset.number), b.checkVisibility()])"

CONFIRM = """const c = document.getElementById('version-delete-confirm');
  return c && {number: Number(c.closest('.version-item').dataset.number),
    question: document.getElementById('version-delete-question').textContent,
    buttons: [...c.querySelectorAll('button')].map((b) => b.textContent),
    error: document.getElementById('version-delete-error').textContent,
    focused: document.activeElement.id || document.activeElement.dataset.focus}"""


def toast(w):
    return w.js("const t = document.getElementById('toast'); return t.hidden ? null : t.textContent")


def save(server, doc_id, name=None, headers=None):
    status, v = server.request("POST", f"/documents/{doc_id}/save", {"name": name} if name else None, headers=headers)
    assert status == 201, (status, v)
    return v


def delete_button(w, number):
    return w.driver.find_element(By.CSS_SELECTOR, f"#versions-list .version-item[data-number='{number}'] .version-delete")


def focused(w):
    return w.js("return document.activeElement.id || document.activeElement.dataset.focus")


def owner_window(windows, doc, on=None):
    return windows(on=on).open(f"{doc['id']}?link={doc['ownerLink']['token']}")


def test_the_owner_deletes_a_version_after_saying_yes_and_it_leaves_both_windows(server, windows):
    doc = server.create_document("Drafts", "Body")
    one, two, three = (save(server, doc["id"], name) for name in ("One", "Two", "Three"))
    a = owner_window(windows, doc)
    b = windows().open(doc["id"])
    for w in (a, b):
        w.wait(lambda: [i["number"] for i in items(w)] == [three["number"], two["number"], one["number"]], 10, f"listed {items(w)}")
    b.js(COUNT_FETCHES)
    # Only the owner is offered Delete…, on every entry.
    assert a.js(DELETE_SHOWN) == [[three["number"], True], [two["number"], True], [one["number"], True]]
    assert b.js(DELETE_SHOWN) == [[three["number"], False], [two["number"], False], [one["number"], False]]
    assert delete_button(a, two["number"]).get_attribute("aria-label") == f"Delete “Two” (version {two['number']})"
    # b is renaming "Two" when it goes.
    rename_button(b, two["number"]).click()
    b.driver.switch_to.active_element.send_keys(Keys.END, " more")
    assert (b.js(FORM)["number"], b.js(FORM)["value"]) == (two["number"], "Two more")
    # By keyboard: Delete… asks first, the keyboard on Cancel; Escape leaves it, nothing deleted.
    a.js("arguments[0].focus()", delete_button(a, two["number"]))
    a.driver.switch_to.active_element.send_keys(Keys.ENTER)
    assert a.js(CONFIRM) == {"number": two["number"], "question": "Delete this version? It cannot be undone.",
                             "buttons": ["Delete", "Cancel"], "error": "", "focused": "version-delete-no"}
    assert delete_button(a, two["number"]).get_attribute("aria-expanded") == "true"
    a.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    assert a.js(CONFIRM) is None
    assert focused(a) == f"delete-{two['number']}"
    assert delete_button(a, two["number"]).get_attribute("aria-expanded") == "false"
    assert [v["number"] for v in versions(server, doc["id"])] == [one["number"], two["number"], three["number"]]
    # Again, and this time Delete.
    a.driver.switch_to.active_element.send_keys(Keys.ENTER)
    assert a.js(CONFIRM)["focused"] == "version-delete-no"
    a.driver.switch_to.active_element.send_keys(Keys.SHIFT, Keys.TAB)
    assert focused(a) == "version-delete-yes"
    a.driver.switch_to.active_element.send_keys(Keys.ENTER)
    wait_versions(a, server, doc["id"], lambda vs: [v["number"] for v in vs] == [one["number"], three["number"]], "not deleted")
    left = [three["number"], one["number"]]
    for w in (a, b):
        w.wait(lambda: [i["number"] for i in items(w)] == left, 10, f"listed {items(w)}")
        w.wait(lambda: w.js("return document.getElementById('versions-count').textContent") == "2")
    # a had the answer and the event: listed once, the question gone, the keyboard on the next entry's Delete….
    assert a.js(CONFIRM) is None
    assert focused(a) == f"delete-{one['number']}"
    assert toast(a) == f"Deleted “Two” (version {two['number']})."
    # b heard the event: its name form on "Two" closed, saying why, the keyboard on the
    # next entry's Rename…; the list was not fetched again.
    assert b.js(FORM) is None
    assert toast(b) == f"“Two” (version {two['number']}) was deleted."
    assert focused(b) == f"name-{one['number']}"
    assert b.js("return window.__listFetches") == 0
    # Heard once more (as a's answer and its event are): nothing changes.
    b.js(f"window.tandem.view.onVersionRemoved({{number: {two['number']}}})")
    assert [i["number"] for i in items(b)] == left
    assert b.js("return window.tandem.view.versions.list.length") == 2


def test_an_editor_who_is_not_the_owner_is_offered_no_delete(server, windows):
    doc = server.create_document("Shared", "Words")
    owner = {"Tandem-Link": doc["ownerLink"]["token"]}
    assert server.request("PATCH", f"/documents/{doc['id']}", {"access": "locked"}, headers=owner)[0] == 200
    status, link = server.request("POST", f"/documents/{doc['id']}/links", {"role": "editor"}, headers=owner)
    assert status == 201, link
    saved = save(server, doc["id"], "Agreed", headers=owner)
    e = windows().open(f"{doc['id']}?link={link['token']}")
    e.wait(lambda: [i["number"] for i in items(e)] == [saved["number"]], 10, f"listed {items(e)}")
    assert e.js("return [window.tandem.view.access.role, window.tandem.view.access.canEdit]") == ["editor", True]
    # The editor names versions, but deletes none: the button is not there to press.
    assert e.js("return [...document.querySelectorAll('#versions-list .version-rename')].map((b) => b.checkVisibility())") == [True]
    assert e.js(DELETE_SHOWN) == [[saved["number"], False]]
    # …and the server would refuse it anyway.
    status, _ = server.request("DELETE", f"/documents/{doc['id']}/versions/{saved['number']}",
                               headers={"Tandem-Link": link["token"]})
    assert status == 403
    assert [v["number"] for v in versions(server, doc["id"])] == [saved["number"]]


@pytest.fixture(scope="module")
def small():
    """A server whose documents keep at most 4096 bytes of versions."""
    with running_server("--version-bytes", "4096") as s:
        yield s


# About 1.3 KB a version (the text, its authors and 256 bytes): three fit in 4096 bytes.
LONG_TEXT = ("A paragraph of the report, long enough that its versions fill the budget. " * 14)[:1000]


def test_a_named_save_drops_the_oldest_checkpoint_in_both_windows_and_one_past_the_budget_is_refused(small, windows):
    doc = small.create_document("Report", LONG_TEXT)
    a = owner_window(windows, doc, on=small)
    b = windows(on=small).open(doc["id"])
    a.allow_console("507")
    b.allow_console("507")
    a.type_at(1000, " End.")
    [checkpoint] = wait_versions(a, small, doc["id"], lambda vs: len(vs) == 1, "no autosave")
    assert checkpoint["automatic"] is True
    first, second = save(small, doc["id"], "First"), save(small, doc["id"], "Second")
    for w in (a, b):
        w.wait(lambda: [i["number"] for i in items(w)] == [second["number"], first["number"], checkpoint["number"]], 10, f"listed {items(w)}")
    b.js(COUNT_FETCHES)
    # b is looking at the changes since the checkpoint when it goes.
    b.click(f"#versions-list .version-item[data-number='{checkpoint['number']}'] .version-changes")
    b.wait(lambda: b.js("return document.getElementById('diff-dialog').open"), 10, "the diff did not open")
    # A third named save from a's panel: no room for it beside the checkpoint, which goes.
    open_name_form(a)
    a.driver.switch_to.active_element.send_keys("Third", Keys.ENTER)
    vs = wait_versions(a, small, doc["id"], lambda vs: len(vs) == 3 and vs[-1]["name"] == "Third", "not saved")
    third = vs[-1]
    assert [v["number"] for v in vs] == [first["number"], second["number"], third["number"]]
    left = [(third["number"], "named"), (second["number"], "named"), (first["number"], "named")]
    for w in (a, b):
        w.wait(lambda: [(i["number"], i["kind"]) for i in items(w)] == left, 10, f"listed {items(w)}")
    assert b.js("return window.__listFetches") == 0  # the saved event's dropped, not a fetch
    b.wait(lambda: b.js("return document.getElementById('diff-dialog').open") is False, 10, "b's diff stayed open")
    span = b.js(SPAN, checkpoint["since"], checkpoint["time"])
    assert toast(b) == f"The autosave of {span} (version {checkpoint['number']}) was removed to make room for newer versions."
    # A fourth: only versions saved on purpose are left, so the server refuses it (507)
    # and the form says so; to the owner, where to make room.
    status, refused = small.request("POST", f"/documents/{doc['id']}/save", {"name": "Probe"})
    assert status == 507 and refused["error"]["code"] == "versions_full", refused
    said = refused["error"]["message"]
    said = said[0].upper() + said[1:] + ("" if said.endswith(".") else ".")
    error = "return document.getElementById('version-name-error').textContent"
    open_name_form(a)
    a.driver.switch_to.active_element.send_keys("Fourth", Keys.ENTER)
    a.wait(lambda: a.js(error) != "", 10, "no error shown")
    assert a.js(error) == said + " You own this document: delete older versions below (Delete…) to make room."
    assert a.button("version-name-input").get_attribute("aria-invalid") == "true"
    assert a.js("return [document.getElementById('version-name-form').hidden, document.getElementById('version-name-input').value,"
                " document.activeElement.id]") == [False, "Fourth", "version-name-input"]
    # Anyone else who may save is told the server's word alone.
    open_name_form(b)
    b.driver.switch_to.active_element.send_keys("Mine", Keys.ENTER)
    b.wait(lambda: b.js(error) != "", 10, "no error shown")
    assert b.js(error) == said
    assert [v["number"] for v in versions(small, doc["id"])] == [first["number"], second["number"], third["number"]]
    assert [i["number"] for i in items(a)] == [third["number"], second["number"], first["number"]]
    # Deleting one makes room: the save goes through.
    delete_button(a, first["number"]).click()
    a.button("version-delete-yes").click()
    b.wait(lambda: [i["number"] for i in items(b)] == [third["number"], second["number"]], 10, f"listed {items(b)}")
    a.button("version-name-submit").click()
    vs = wait_versions(a, small, doc["id"], lambda vs: [v["name"] for v in vs] == ["Second", "Third", "Fourth"], "not saved")
    b.wait(lambda: [i["name"] for i in items(b)] == ["Fourth", "Third", "Second"], 10, f"listed {items(b)}")
