"""Phones, keyboards, shake to undo, and a clean console."""
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

    # Settings: turn it off, and a shake does nothing.
    w.button("settings-button").click()
    box = w.driver.find_element(By.ID, "settings-shake")
    assert box.is_selected()
    box.click()
    w.driver.find_element(By.CSS_SELECTOR, "#settings-form button[value=ok]").click()
    w.js(SHAKE)
    w.wait(lambda: w.js("return localStorage.getItem('tandem.shakeToUndo')") == "off")
    assert not w.js("return document.getElementById('shake-dialog').open")


def test_phone_width_fits_without_sideways_scrolling(server, windows):
    doc = server.create_document("Narrow", "Some text on a phone.")
    w = windows(390, 844).open(doc["id"])
    assert w.js("return document.documentElement.scrollWidth <= window.innerWidth")
    box = w.js("const r = document.getElementById('editor-text').getBoundingClientRect(); return [r.width, r.height];")
    assert box[0] > 300 and box[1] > 300, box
    for element_id in ("undo-button", "redo-button", "save-button"):
        assert w.button(element_id).size["height"] >= 28


def test_keyboard_only_reaches_everything_with_names(server, windows):
    doc = server.create_document("Keys", "abc")
    w = windows().open(doc["id"])
    w.driver.find_element(By.TAG_NAME, "body").click()
    seen = []
    for _ in range(20):
        w.driver.switch_to.active_element.send_keys(Keys.TAB)
        el = w.driver.switch_to.active_element
        seen.append(el.get_attribute("id") or el.get_attribute("class"))
    # Every control reachable by Tab has an accessible name.
    unnamed = w.js("""
      return [...document.querySelectorAll('button, input, select, textarea, a[href]')]
        .filter(e => e.offsetParent !== null && !e.disabled)
        .filter(e => !(e.getAttribute('aria-label') || e.textContent.trim() || e.labels && e.labels.length || e.title))
        .map(e => e.outerHTML.slice(0, 80));
    """)
    assert unnamed == []
    assert "doc-title" in seen and "editor-text" in seen, seen
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
    a.wait(lambda: "version 1" in a.js("return document.getElementById('save-status').textContent"))
    b.wait(lambda: b.js("return document.querySelectorAll('#versions-list li').length") == 1)
    a.driver.get(server.base + "/")
    a.wait(lambda: "Quiet" in a.driver.find_element(By.ID, "doc-list").text)
    clipboard = server.request("GET", "/pasteboards")[0] != 404
    for w in (a, b):
        errors = w.severe_logs()
        if not clipboard:
            # Without the server's clipboard the client probes …/actions once and falls back.
            errors = [e for e in errors if "/actions" not in e["message"]]
        assert errors == [], errors
