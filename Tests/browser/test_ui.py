"""Phones, keyboards, shake to undo, and a clean console."""
import re
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

SHAKE = """
for (let i = 0; i < 3; i++) {
  window.dispatchEvent(new DeviceMotionEvent('devicemotion', {
    acceleration: {x: 25, y: 3, z: 1}, accelerationIncludingGravity: {x: 25, y: 12, z: 1}, interval: 16}));
}
"""


def test_shake_offers_undo_like_ios_and_can_be_turned_off(server, windows):
    doc = server.create_document("Phone", "")
    w = windows(390, 844).open(doc["id"])
    w.textarea.send_keys("Shaky text")
    w.wait_synced()
    w.wait(lambda: w.js("return document.getElementById('undo-label').textContent") == "Undo Typing")
    w.js(SHAKE)
    w.wait(lambda: w.js("return document.getElementById('shake-dialog').open"), 5, "no dialog on shake")
    assert w.js("return document.getElementById('shake-heading').textContent") == "Undo Typing"
    assert w.button("shake-undo").text == "Undo Typing"
    assert not w.button("shake-redo").is_displayed()
    w.button("shake-undo").click()
    w.wait(lambda: w.text() == "")
    w.wait(lambda: server.text(doc["id"]) == "")

    w.wait(lambda: w.js("return document.getElementById('undo-label').textContent") == "Undo")

    def set_shake(on):
        w.button("settings-button").click()
        box = w.driver.find_element(By.ID, "settings-shake")
        assert box.is_selected() != on
        box.click()
        w.driver.find_element(By.CSS_SELECTOR, "#settings-form button[value=ok]").click()
        w.wait(lambda: w.js("return localStorage.getItem('tandem.shakeToUndo')") == ("on" if on else "off"))

    def shake_opens_dialog():
        w.js(SHAKE)
        # Opening it waits for a history refresh: give that ample time before looking.
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:
            if w.js("return document.getElementById('shake-dialog').open"):
                return True
            time.sleep(0.05)
        return False

    # Settings: turn it off, and a shake does nothing; on again, and it offers "Redo Typing".
    set_shake(False)
    assert not shake_opens_dialog()
    time.sleep(1.6)  # past the shake cool-down, so the next shake counts
    set_shake(True)
    assert shake_opens_dialog()
    assert w.js("return document.getElementById('shake-heading').textContent") == "Redo Typing"
    w.driver.find_element(By.CSS_SELECTOR, "#shake-actions button[value=cancel]").click()
    w.wait(lambda: not w.js("return document.getElementById('shake-dialog').open"))
    assert w.text() == ""


TOOL_RECTS = """
return ['undo-button', 'redo-button', 'cut-button', 'copy-button', 'paste-button',
        'select-all-button', 'pasteboard-select'].map((id) => {
  const r = document.getElementById(id).getBoundingClientRect();
  return [id, Math.round(r.left), Math.round(r.top), Math.round(r.width)];
});
"""


def test_toolbar_buttons_stay_put_while_undo_titles_change(server, windows):
    # A pointer on Paste must still be on Paste when the title before it becomes
    # "Undo Typing": a click landed on Copy once, in a test typing between pastes.
    for width, height in ((1280, 860), (390, 844)):
        doc = server.create_document("Steady", "")
        w = windows(width, height).open(doc["id"])
        before = w.js(TOOL_RECTS)
        assert w.js("return document.getElementById('undo-label').textContent") == "Undo"
        w.textarea.send_keys("words")
        w.wait_synced()
        w.wait(lambda: w.js("return document.getElementById('undo-label').textContent") == "Undo Typing")
        assert w.js(TOOL_RECTS) == before
        # A long name a client gave: cut short on the button, whole in its tooltip.
        w.driver.execute_async_script(
            "window.tandem.view.api.patch(`/documents/${arguments[0]}/history?scope=session`,"
            " {actionName: 'Change Paragraph Style'}).then(arguments[1])", doc["id"])
        w.wait(lambda: w.js("return document.getElementById('undo-label').textContent") == "Undo Change Paragraph Style")
        assert w.js(TOOL_RECTS) == before
        w.button("undo-button").click()
        w.wait(lambda: w.js("return document.getElementById('redo-label').textContent") == "Redo Change Paragraph Style")
        assert w.button("redo-button").get_attribute("title").startswith("Redo Change Paragraph Style")
        assert w.js(TOOL_RECTS) == before


def test_motion_permission_is_asked_on_the_first_tap(server, windows):
    """iOS only delivers devicemotion after DeviceMotionEvent.requestPermission() in a gesture."""
    doc = server.create_document("iOS", "abc")
    w = windows(390, 844)
    w.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
      window.__motionAsks = 0;
      DeviceMotionEvent.requestPermission = async () => { window.__motionAsks += 1; return 'granted'; };
    """})
    w.open(doc["id"])
    assert w.js("return window.__motionAsks") == 0
    w.textarea.click()
    w.wait(lambda: w.js("return window.__motionAsks") == 1, 5, "no permission asked on the first tap")
    w.textarea.send_keys("d")
    w.wait_synced()
    assert w.js("return window.__motionAsks") == 1


def test_phone_width_fits_without_sideways_scrolling(server, windows):
    doc = server.create_document("Narrow", "Some text on a phone.")
    w = windows(390, 844).open(doc["id"])
    assert w.js("return document.documentElement.scrollWidth <= window.innerWidth")
    # No control hides in a sideways-scrolling toolbar: every one is on screen, and the
    # toolbar itself does not scroll.
    off = w.js("""
      const tb = document.querySelector('.toolbar');
      const out = [...tb.querySelectorAll('button, select, label')]
        .filter(e => e.offsetParent !== null)
        .filter(e => { const r = e.getBoundingClientRect(); return r.left < 0 || r.right > window.innerWidth; })
        .map(e => e.id || e.textContent.trim());
      if (tb.scrollWidth > tb.clientWidth + 1) out.push('toolbar scrolls sideways');
      return out;
    """)
    assert off == [], off
    # The app bar's rows (the sync and save status wrap onto one of their own) take their
    # height: none slides under the toolbar.
    bar, status, toolbar = w.js("""
      return ['.appbar', '#appbar-status', '.toolbar'].map((s) => {
        const r = document.querySelector(s).getBoundingClientRect(); return [r.top, r.bottom]; });
    """)
    assert status[1] <= bar[1] <= toolbar[0], (bar, status, toolbar)
    box = w.js("const r = document.getElementById('editor-text').getBoundingClientRect(); return [r.width, r.height];")
    assert box[0] > 300 and box[1] > 300, box
    for element_id in ("undo-button", "redo-button", "save-button"):
        assert w.button(element_id).size["height"] >= 28


def test_keyboard_only_reaches_everything_with_names(server, windows):
    doc = server.create_document("Keys", "abc")
    w = windows().open(doc["id"])
    w.textarea.send_keys("d")
    w.wait(lambda: w.button("undo-button").is_enabled())
    w.driver.find_element(By.TAG_NAME, "body").click()
    seen = []
    for _ in range(40):
        w.driver.switch_to.active_element.send_keys(Keys.TAB)
        seen.append(w.js("const e = document.activeElement;"
                         " return e.id || (e.tagName === 'SUMMARY' ? 'summary:' + e.parentElement.id : e.className);"))
    # Every control reachable by Tab has an accessible name.
    unnamed = w.js("""
      return [...document.querySelectorAll('button, input, select, textarea, a[href]')]
        .filter(e => e.offsetParent !== null && !e.disabled)
        .filter(e => !(e.getAttribute('aria-label') || e.textContent.trim() || e.labels && e.labels.length || e.title))
        .map(e => e.outerHTML.slice(0, 80));
    """)
    assert unnamed == []
    # Tab reaches the title, the text, every enabled toolbar control and every side panel.
    wanted = w.js("""
      return [...document.querySelectorAll('.toolbar button, .toolbar select')]
        .filter(e => e.offsetParent !== null && !e.disabled).map(e => e.id)
        .concat([...document.querySelectorAll('.sidebar details')].map(d => 'summary:' + d.id));
    """)
    assert {"undo-button", "save-button", "summary:history-panel",
            "summary:clipboard-panel", "summary:versions-panel"} <= set(wanted), wanted
    missing = [i for i in ["doc-title", "editor-text", "settings-button"] + wanted if i not in seen]
    assert missing == [], (missing, seen)
    # Focus is visible: the focused control gets an outline or a changed border.
    w.js("document.getElementById('save-button').focus()")
    outline = w.js("return getComputedStyle(document.getElementById('save-button')).outlineStyle")
    assert outline != "none"


def test_no_console_errors_through_a_session(server, windows):
    doc = server.create_document("Quiet", "Hello")
    a = windows().open(doc["id"])
    b = windows().open(doc["id"])
    a.textarea.send_keys(" world")
    b.wait(lambda: b.text() == "Hello world")
    a.wait_synced()
    a.button("save-button").click()
    version = r"Version 1 · \d{1,2}:\d{2}( [AP]M)?"
    a.wait(lambda: re.fullmatch(version, a.js("return document.getElementById('version-status').textContent")))
    b.wait(lambda: b.js("return document.querySelectorAll('#versions-list li').length") == 1)
    # After more typing, once autosave has made it a version, it says "Saved" again, and the
    # latest version shows beside it.
    a.textarea.send_keys("!")
    a.wait_synced()
    a.wait(lambda: a.js("return document.getElementById('save-status').textContent") == "Saved")
    a.wait(lambda: re.fullmatch(version.replace("1", "2", 1), a.js("return document.getElementById('version-status').textContent")))
    a.driver.get(server.base + "/")
    a.wait(lambda: "Quiet" in a.driver.find_element(By.ID, "doc-list").text)
    for w in (a, b):
        assert w.severe_logs() == []
