"""Issue 43: a long document opens in the viewport editor, which puts only the lines in view
in the page; typing, clipboard, others' changes and scrolling work on the whole text."""
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

PARAGRAPH = ("Paragraph {i}: the quick brown fox jumps over the lazy dog while the committee drafts "
             "its report, and every sentence is long enough to wrap across the editor's width.\n")
MEGABYTE = "".join(PARAGRAPH.format(i=i) for i in range(6000))  # about 1 MB

SHOWN = "return [...document.querySelectorAll('#editor-lines .vp-line')].map((l) => l.textContent)"


def lines(w):
    return w.driver.find_element(By.ID, "editor-lines")


def caret_at(w, pos):
    w.js("window.tandem.view.editor.select(arguments[0], arguments[0]);", pos)


def remote_edit(server, doc_id, ops):
    status, s = server.request("POST", "/sessions", {"name": "Remote"})
    assert status == 201
    status, doc = server.request("GET", f"/documents/{doc_id}", token=s["token"])
    assert status == 200
    status, _ = server.request("POST", f"/documents/{doc_id}/edits", {"base": doc["revision"], "ops": ops}, token=s["token"])
    assert status in (200, 201), status


def open_long(server, windows, text=MEGABYTE):
    doc = server.create_document("Long", text)
    w = windows().open(doc["id"])
    return doc, w


def test_a_megabyte_opens_with_only_the_lines_in_view_in_the_page(server, windows):
    doc, w = open_long(server, windows)
    assert w.js("return document.getElementById('editor-viewport').hidden") is False
    assert w.js("return document.getElementById('editor').hidden") is True
    shown = w.js(SHOWN)
    assert 10 < len(shown) < 400, len(shown)
    assert shown[0] == PARAGRAPH.format(i=0)[:-1]
    assert w.text() == MEGABYTE
    # The text starts where the padding ends, as in the textarea.
    assert w.js("const c = document.querySelector('.vp-content');"
                " return document.getElementById('editor-lines').offsetTop - parseFloat(getComputedStyle(c).paddingTop)") == 0
    assert w.js("const l = document.getElementById('editor-lines');"
                " return [l.getAttribute('role'), l.getAttribute('aria-multiline'), l.getAttribute('aria-label')]") == \
        ["textbox", "true", "Document text"]


def test_typing_deleting_and_a_new_line_in_the_middle_reach_the_server(server, windows):
    doc, w = open_long(server, windows)
    pos = MEGABYTE.index("Paragraph 3000:") + len("Paragraph 3000:")
    caret_at(w, pos)
    lines(w).send_keys(" abcd", Keys.BACKSPACE, Keys.BACKSPACE, Keys.ENTER, "new line")
    w.wait_synced()
    expected = MEGABYTE[:pos] + " ab\nnew line" + MEGABYTE[pos:]
    w.wait(lambda: server.text(doc["id"]) == expected, 10, "the server's text differs")
    assert w.text() == expected
    shown = w.js(SHOWN)
    assert "Paragraph 3000: ab" in shown
    assert "new line" + PARAGRAPH.format(i=3000)[len("Paragraph 3000:"):-1] in shown
    # Forward delete and a word deleted backwards, as the browser's own commands say.
    lines(w).send_keys(Keys.DELETE, Keys.CONTROL, Keys.BACKSPACE)
    w.wait_synced()
    expected = MEGABYTE[:pos] + " ab\nnew " + MEGABYTE[pos + 1:]
    w.wait(lambda: server.text(doc["id"]) == expected, 10, f"{server.text(doc['id'])[pos - 20:pos + 40]!r}")


def test_a_paste_is_inserted_at_the_caret_as_one_change(server, windows):
    doc, w = open_long(server, windows)
    pos = MEGABYTE.index("Paragraph 10:")
    caret_at(w, pos)
    w.js("const dt = new DataTransfer(); dt.setData('text/plain', 'pasted\\r\\ntext ');"
         "document.getElementById('editor-lines').dispatchEvent(new InputEvent('beforeinput',"
         " {inputType: 'insertFromPaste', dataTransfer: dt, cancelable: true, bubbles: true}));")
    w.wait_synced()
    expected = MEGABYTE[:pos] + "pasted\ntext " + MEGABYTE[pos:]
    w.wait(lambda: server.text(doc["id"]) == expected, 10, "the paste did not arrive")
    assert w.js("return window.tandem.view.editor.selection()") == {"anchor": pos + 12, "head": pos + 12}


def test_select_all_and_copy_give_the_whole_megabyte_though_the_page_holds_part_of_it(server, windows):
    doc, w = open_long(server, windows)
    caret_at(w, 100)
    w.js("window.__copied = null; const set = DataTransfer.prototype.setData;"
         "DataTransfer.prototype.setData = function (type, data) { if (type === 'text/plain') window.__copied = data;"
         " return set.call(this, type, data); };")
    lines(w).send_keys(Keys.CONTROL, "a")
    assert w.js("return window.tandem.view.editor.selection()") == {"anchor": 0, "head": len(MEGABYTE)}
    lines(w).send_keys(Keys.CONTROL, "c")
    w.wait(lambda: w.js("return window.__copied !== null"), 5, "nothing was copied")
    copied = w.js("return window.__copied")
    assert len(copied) == len(MEGABYTE) and copied == MEGABYTE
    assert len(w.js(SHOWN)) < 400
    # The browser's own Select All (its context menu's command) means the whole text too.
    caret_at(w, 100)
    w.js("document.execCommand('selectAll');")
    assert w.js("return window.tandem.view.editor.selection()") == {"anchor": 0, "head": len(MEGABYTE)}


def test_a_change_below_the_view_leaves_the_lines_in_the_page_untouched(server, windows):
    doc, w = open_long(server, windows)
    w.js("window.__mutations = 0; new MutationObserver((ms) => { window.__mutations += ms.length; })"
         ".observe(document.getElementById('editor-lines'), {subtree: true, childList: true, characterData: true});")
    far = MEGABYTE.index("Paragraph 5000:")
    remote_edit(server, doc["id"], [far, "FAR ", len(MEGABYTE) - far])
    w.wait(lambda: w.text() == server.text(doc["id"]), 10, "the change did not arrive")
    assert w.js("return window.__mutations") == 0
    # One in view does change the page (the observer sees what it should).
    remote_edit(server, doc["id"], [5, "NEAR ", len(MEGABYTE) + 4 - 5])
    w.wait(lambda: w.text() == server.text(doc["id"]), 10, "the change did not arrive")
    assert w.js("return window.__mutations") > 0
    assert w.js(SHOWN)[0] == "Parag" + "NEAR " + PARAGRAPH.format(i=0)[5:-1]


def test_scrolling_to_the_end_shows_the_last_line_and_ctrl_end_types_there(server, windows):
    doc, w = open_long(server, windows)
    w.js("const s = document.querySelector('.vp-scroller'); s.scrollTop = s.scrollHeight;")
    last = PARAGRAPH.format(i=5999)[:-1]
    w.wait(lambda: last in w.js(SHOWN), 10, "the last line is not shown")
    visible = w.js("const s = document.querySelector('.vp-scroller').getBoundingClientRect();"
                   "const ls = [...document.querySelectorAll('#editor-lines .vp-line')];"
                   "const l = ls[ls.length - 2].getBoundingClientRect();"
                   "return l.top >= s.top && l.bottom <= s.bottom;")
    assert visible, "the last line is in the page but not in view"
    # Nothing but the padding after it.
    after = w.js("const c = document.querySelector('.vp-content'); const l = document.getElementById('editor-lines');"
                 " return c.scrollHeight - l.offsetTop - l.offsetHeight - parseFloat(getComputedStyle(c).paddingBottom)")
    assert abs(after) <= 1, after
    caret_at(w, 0)
    lines(w).send_keys(Keys.CONTROL, Keys.END)
    lines(w).send_keys("THE END")
    w.wait_synced()
    w.wait(lambda: server.text(doc["id"]) == MEGABYTE + "THE END", 10, "not typed at the end")
    assert "THE END" in w.js(SHOWN)


def test_the_caret_stays_by_its_words_when_someone_inserts_before_it(server, windows):
    doc, w = open_long(server, windows)
    pos = MEGABYTE.index("Paragraph 20:")
    caret_at(w, pos)
    remote_edit(server, doc["id"], [pos - 50, "someone else ", len(MEGABYTE) - pos + 50])
    w.wait(lambda: w.text() == server.text(doc["id"]), 10, "the change did not arrive")
    lines(w).send_keys("Q")
    w.wait_synced()
    text = server.text(doc["id"])
    assert text[pos + len("someone else "):].startswith("QParagraph 20:"), text[pos - 10:pos + 30]


def test_a_composition_is_read_when_it_ends(server, windows):
    doc, w = open_long(server, windows)
    pos = MEGABYTE.index("Paragraph 7:") + len("Paragraph 7:")
    caret_at(w, pos)
    # An IME as Chromium drives it: a composition shown in the line, then committed.
    w.driver.execute_cdp_cmd("Input.imeSetComposition", {"text": "ni", "selectionStart": 2, "selectionEnd": 2})
    w.driver.execute_cdp_cmd("Input.imeSetComposition", {"text": "nih", "selectionStart": 3, "selectionEnd": 3})
    assert w.text() == MEGABYTE  # nothing sent while composing
    w.driver.execute_cdp_cmd("Input.insertText", {"text": "你好"})
    w.wait_synced()
    expected = MEGABYTE[:pos] + "你好" + MEGABYTE[pos:]
    w.wait(lambda: server.text(doc["id"]) == expected, 10, "the composition did not arrive")
    assert w.text() == expected
    assert "Paragraph 7:你好" + PARAGRAPH.format(i=7)[len("Paragraph 7:"):-1] in w.js(SHOWN)


def test_the_other_window_shows_typing_in_the_line_in_view(server, windows):
    doc, a = open_long(server, windows)
    b = windows().open(doc["id"])
    pos = MEGABYTE.index("Paragraph 40:")
    caret_at(b, pos)
    caret_at(a, pos)
    lines(a).send_keys("hello ")
    a.wait_synced()
    b.wait(lambda: "hello Paragraph 40:" + PARAGRAPH.format(i=40)[len("Paragraph 40:"):-1] in b.js(SHOWN), 10,
           "the other window does not show it")
    assert b.text() == a.text() == server.text(doc["id"])


def person_at(server, doc_id, name, pos):
    status, s = server.request("POST", "/sessions", {"name": name})
    assert status == 201
    status, _ = server.request("PUT", f"/documents/{doc_id}/selection", {"anchor": pos, "head": pos}, token=s["token"])
    assert status == 200


# Where text position `pos` is, measured on the shown line that holds it, in the content's
# coordinates (as the marks are placed).
WHERE = r"""
const [pos] = arguments;
const ed = window.tandem.view.editor;
const [node, off] = ed.view.pointOf(pos);
const r = document.createRange();
r.setStart(node, off);
const rects = r.getClientRects();
const b = rects[rects.length - 1];
const o = ed.view.content.getBoundingClientRect();
return [b.left - o.left, b.top - o.top];
"""

CARETS = ("return [...document.querySelectorAll('#editor-viewport .remote-caret')].map((c) =>"
          " [c.textContent, parseFloat(c.style.left), parseFloat(c.style.top)])")


def test_only_others_carets_in_view_are_drawn_each_where_its_text_is(server, windows):
    doc = server.create_document("Long", MEGABYTE)
    near = MEGABYTE.index("Paragraph 3:") + len("Paragraph 3: the quick")
    far = MEGABYTE.index("Paragraph 5400:") + len("Paragraph 5400: the")
    person_at(server, doc["id"], "Near", near)
    person_at(server, doc["id"], "Far", far)
    w = windows().open(doc["id"])
    w.wait(lambda: w.js("return window.tandem.view.presence.people.length") == 3)
    w.wait(lambda: [c[0] for c in w.js(CARETS)] == ["Near"], 10, "no caret drawn, or the far one too")

    def placed(name, pos):
        carets = [c for c in w.js(CARETS) if c[0] == name]
        x, y = w.js(WHERE, pos)
        return len(carets) == 1 and abs(carets[0][1] - x) <= 1 and abs(carets[0][2] - y) <= 1

    assert placed("Near", near)
    # Typing before it on its line: the caret follows its text.
    caret_at(w, near - 10)
    lines(w).send_keys("xyz")
    w.wait_synced()
    w.wait(lambda: placed("Near", near + 3), 10, "the caret did not follow its text")
    w.js("window.tandem.view.editor.select(arguments[0], arguments[0]);", far)
    w.wait(lambda: [c[0] for c in w.js(CARETS)] == ["Far"], 10, "the far caret is not drawn in view")
    assert placed("Far", far + 3)


def test_a_viewer_reads_and_copies_but_cannot_type(server, windows):
    doc = server.create_document("Long", MEGABYTE)
    doc_id = doc["id"]
    status, _ = server.request("PATCH", f"/documents/{doc_id}", {"access": "locked"},
                               headers={"Tandem-Link": doc["ownerLink"]["token"]})
    assert status == 200
    viewer = windows().open(doc_id)
    viewer.wait(lambda: viewer.js("return document.getElementById('editor-lines').contentEditable") == "false", 10,
                "the text is still editable")
    assert viewer.js("return document.getElementById('editor-lines').getAttribute('aria-readonly')") == "true"
    caret_at(viewer, 10)
    lines(viewer).send_keys("nope")
    viewer.wait_synced()
    assert server.text(doc_id) == MEGABYTE
    assert viewer.text() == MEGABYTE


def test_page_down_and_arrows_carry_the_caret_past_the_lines_first_shown_and_typing_lands_there(server, windows):
    doc, w = open_long(server, windows)
    caret_at(w, 0)
    for _ in range(15):
        lines(w).send_keys(Keys.PAGE_DOWN)
    for _ in range(30):
        lines(w).send_keys(Keys.ARROW_DOWN)
    lines(w).send_keys(Keys.HOME)
    pos = w.js("return window.tandem.view.editor.selection().head")
    assert pos > 100 * len(PARAGRAPH), pos  # far below the lines shown at first
    inview = w.js("const s = document.querySelector('.vp-scroller').getBoundingClientRect();"
                  "const r = getSelection().getRangeAt(0).getClientRects()[0] || getSelection().focusNode.parentElement.getBoundingClientRect();"
                  "return r.top >= s.top - 1 && r.bottom <= s.bottom + 1;")
    assert inview, "the caret is not in view"
    lines(w).send_keys("X")
    w.wait_synced()
    text = server.text(doc["id"])
    assert text == MEGABYTE[:pos] + "X" + MEGABYTE[pos:]
    for _ in range(40):
        lines(w).send_keys(Keys.ARROW_UP)
    lines(w).send_keys(Keys.END)  # the end of the row (a paragraph wraps), as in a textarea
    pos2 = w.js("return window.tandem.view.editor.selection().head")
    assert pos2 < pos
    lines(w).send_keys("Y")
    w.wait_synced()
    text = server.text(doc["id"])
    assert text == MEGABYTE[:pos2] + "Y" + MEGABYTE[pos2:pos] + "X" + MEGABYTE[pos:]


def test_ctrl_z_in_a_long_document_asks_the_server_to_undo(server, windows):
    doc, w = open_long(server, windows)
    pos = MEGABYTE.index("Paragraph 2:")
    caret_at(w, pos)
    lines(w).send_keys("typo ")
    w.wait_synced()
    w.wait(lambda: server.text(doc["id"]) == MEGABYTE[:pos] + "typo " + MEGABYTE[pos:], 10, "not typed")
    lines(w).send_keys(Keys.CONTROL, "z")
    w.wait_synced()
    w.wait(lambda: server.text(doc["id"]) == MEGABYTE, 10, "not undone")
    w.wait(lambda: w.text() == MEGABYTE, 10, "not undone here")
    assert PARAGRAPH.format(i=2)[:-1] in w.js(SHOWN)


def test_a_carriage_return_shows_as_its_stand_in_and_keeps_positions_the_servers(server, windows):
    text = "first\rline\n" + MEGABYTE
    doc, w = open_long(server, windows, text)
    assert w.js(SHOWN)[0] == "first\u240dline"
    caret_at(w, len("first\rli"))
    lines(w).send_keys("!")
    w.wait_synced()
    w.wait(lambda: server.text(doc["id"]).startswith("first\rli!ne\n"), 10, server.text(doc["id"])[:20])
    assert w.text() == server.text(doc["id"])


def test_two_people_typing_in_the_same_line_of_a_long_document_converge(server, windows):
    doc, a = open_long(server, windows)
    b = windows().open(doc["id"])
    pos = MEGABYTE.index("Paragraph 50:")
    a.js("window.tandem.view.editor.select(arguments[0], arguments[0]);", pos + 5)
    b.js("window.tandem.view.editor.select(arguments[0], arguments[1]);", pos + 3, pos + 7)
    for x, y in [("AAA", "B"), ("C", Keys.BACKSPACE + "DD"), (Keys.ENTER + "E", "F" + Keys.ENTER)]:
        lines(a).send_keys(x)
        lines(b).send_keys(y)
    a.wait_synced()
    b.wait_synced()
    a.wait(lambda: a.text() == b.text() == server.text(doc["id"]), 10, "diverged")
    text = a.text()
    assert text[:pos + 3] == MEGABYTE[:pos + 3] and text.endswith(MEGABYTE[pos + 7:])
    middle = text[pos + 3:len(text) - len(MEGABYTE[pos + 7:])]
    assert "C" in middle and "DD" in middle and "E" in middle and "F\n" in middle and "B" not in middle, middle
    # What each window shows is its text.
    for w in (a, b):
        assert w.js("return document.querySelector('#editor-lines .vp-line') !== null")
        first = w.js("return window.tandem.view.editor.view.first")
        shown = w.js(SHOWN)
        assert "\n".join(shown) == "\n".join(text.split("\n")[first:first + len(shown)])


def test_pasting_a_long_text_keeps_only_the_lines_around_the_caret_in_the_page(server, windows):
    doc, w = open_long(server, windows)
    pos = MEGABYTE.index("Paragraph 100:")
    caret_at(w, pos)
    pasted = "".join(f"Pasted line {i}\n" for i in range(5000))
    w.js("const dt = new DataTransfer(); dt.setData('text/plain', arguments[0]);"
         "document.getElementById('editor-lines').dispatchEvent(new InputEvent('beforeinput',"
         " {inputType: 'insertFromPaste', dataTransfer: dt, cancelable: true, bubbles: true}));", pasted)
    w.wait_synced()
    expected = MEGABYTE[:pos] + pasted + MEGABYTE[pos:]
    w.wait(lambda: server.text(doc["id"]) == expected, 10, "the paste did not arrive")
    shown = w.js(SHOWN)
    assert len(shown) < 400, len(shown)
    assert PARAGRAPH.format(i=100)[:-1] in shown  # the caret's line, after the paste
    lines(w).send_keys("!")
    w.wait_synced()
    w.wait(lambda: server.text(doc["id"]) == MEGABYTE[:pos] + pasted + "!" + MEGABYTE[pos:], 10, "not typed after the paste")


# Whether the shown lines are the text's lines from `first` on and cover the view.
COVERED = r"""
const ed = window.tandem.view.editor;
const s = ed.scroller.getBoundingClientRect();
const els = [...document.querySelectorAll('#editor-lines .vp-line')];
const top = els[0].getBoundingClientRect().top;
const bottom = els[els.length - 1].getBoundingClientRect().bottom;
const lines = ed.getText().split('\n').slice(ed.view.first, ed.view.first + els.length);
const same = els.every((el, i) => el.textContent === lines[i]);
const atStart = ed.view.first === 0;
const atEnd = ed.view.first + els.length === ed.getText().split('\n').length;
return [same, (atStart || top <= s.top) && (atEnd || bottom >= s.bottom)];
"""


def test_the_lines_shown_cover_the_view_wherever_it_is_scrolled(server, windows):
    doc, w = open_long(server, windows)
    height = w.js("return document.querySelector('.vp-scroller').scrollHeight")
    # Jumps (a scroll bar dragged), then small steps up and down (a wheel).
    for fraction in (0.5, 0.1, 0.9, 0.3, 1.0, 0.0, 0.7):
        w.js("document.querySelector('.vp-scroller').scrollTop = arguments[0];", int(height * fraction))
        w.wait(lambda: w.js(COVERED) == [True, True], 5, f"not covered at {fraction}: {w.js(COVERED)}")
    for step in [-300] * 12 + [500] * 8:
        w.js("document.querySelector('.vp-scroller').scrollTop += arguments[0];", step)
        w.wait(lambda: w.js(COVERED) == [True, True], 5, f"not covered after a step of {step}")


def test_a_click_puts_the_caret_in_the_line_clicked(server, windows):
    doc, w = open_long(server, windows)
    line = w.driver.find_elements(By.CSS_SELECTOR, "#editor-lines .vp-line")[5]
    line.click()
    lines(w).send_keys("Z")
    w.wait_synced()
    text = server.text(doc["id"]).split("\n")
    assert "Z" in text[5] and len(text[5]) == len(PARAGRAPH.format(i=5)), text[5]


def test_shift_ctrl_end_selects_to_the_end_and_typing_over_all_of_it_replaces_the_megabyte(server, windows):
    doc, w = open_long(server, windows)
    pos = MEGABYTE.index("Paragraph 10:")
    caret_at(w, pos)
    lines(w).send_keys(Keys.SHIFT, Keys.CONTROL, Keys.END)
    assert w.js("return window.tandem.view.editor.selection()") == {"anchor": pos, "head": len(MEGABYTE)}
    lines(w).send_keys(Keys.BACKSPACE)
    w.wait_synced()
    w.wait(lambda: server.text(doc["id"]) == MEGABYTE[:pos], 10, "the rest was not deleted")
    lines(w).send_keys(Keys.CONTROL, Keys.HOME)
    assert w.js("return window.tandem.view.editor.selection()") == {"anchor": 0, "head": 0}
    lines(w).send_keys(Keys.CONTROL, "a")
    lines(w).send_keys("x")
    w.wait_synced()
    w.wait(lambda: server.text(doc["id"]) == "x", 10, "the text was not replaced")
    assert w.js(SHOWN) == ["x"]


# The index of the line at the top of the view.
TOP_LINE = r"""
const ed = window.tandem.view.editor;
const s = ed.scroller.getBoundingClientRect();
const els = [...document.querySelectorAll('#editor-lines .vp-line')];
const i = els.findIndex((el) => el.getBoundingClientRect().bottom > s.top);
return ed.view.first + i;
"""


def test_a_reload_keeps_the_view_and_the_caret_where_they_were(server, windows):
    doc, w = open_long(server, windows)
    pos = MEGABYTE.index("Paragraph 2500:") + 20
    caret_at(w, pos)
    top = w.js(TOP_LINE)
    assert 2480 < top < 2500, top
    w.js("window.tandem.view.reopen(window.tandem.collab);")
    w.wait(lambda: w.js("return !!window.tandem.collab && !window.tandem.collab.stopped"), 10, "not reopened")
    w.wait_synced()
    assert abs(w.js(TOP_LINE) - top) <= 2, (w.js(TOP_LINE), top)
    assert w.js("return window.tandem.view.editor.selection()") == {"anchor": pos, "head": pos}
    lines(w).send_keys("R")
    w.wait_synced()
    w.wait(lambda: server.text(doc["id"]) == MEGABYTE[:pos] + "R" + MEGABYTE[pos:], 10, "not typed at the caret")


def test_the_clipboard_buttons_copy_and_paste_through_the_server_in_a_long_document(server, windows):
    doc, w = open_long(server, windows)
    w.wait(lambda: w.button("select-all-button").is_enabled(), 10, "Select All did not enable")
    w.button("select-all-button").click()
    assert w.js("return window.tandem.view.editor.selection()") == {"anchor": 0, "head": len(MEGABYTE)}
    caret_at(w, 0)
    lines(w).send_keys(Keys.SHIFT, Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
    w.wait(lambda: w.button("copy-button").is_enabled(), 10, "Copy did not enable on a selection")
    w.button("copy-button").click()
    w.wait(lambda: "Copied 4 characters" in (w.js("return document.getElementById('toast').textContent") or ""), 10,
           "no copy")
    pos = MEGABYTE.index("Paragraph 30:")
    caret_at(w, pos)
    w.wait(lambda: w.button("paste-button").is_enabled(), 10, "Paste did not enable")
    w.button("paste-button").click()
    w.wait_synced()
    w.wait(lambda: server.text(doc["id"]) == MEGABYTE[:pos] + "Para" + MEGABYTE[pos:], 10, "not pasted")
    w.wait(lambda: w.js("return window.tandem.view.editor.selection()") == {"anchor": pos + 4, "head": pos + 4}, 10,
           "the caret is not after the pasted text")
