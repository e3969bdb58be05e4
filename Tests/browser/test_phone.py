"""A phone (390×844): the text gets the screen, nothing is wider than it whatever the status
says, and Undo still says what it will undo."""
from selenium.webdriver.common.keys import Keys

from conftest import FAULTS_JS

FITS = """
const out = [...document.querySelectorAll('.appbar *, .toolbar *')]
  .filter((e) => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
  .filter((e) => { const r = e.getBoundingClientRect(); return r.width && (r.left < -0.5 || r.right > window.innerWidth + 0.5); })
  .map((e) => e.id || e.className || e.tagName);
if (document.documentElement.scrollWidth > window.innerWidth) out.push('page scrolls sideways');
return out;
"""

CHROME_HEIGHT = "return document.querySelector('.toolbar').getBoundingClientRect().bottom;"


def status(w):
    return w.js("return ['sync-status', 'save-status', 'version-status']"
                ".map((id) => document.getElementById(id).textContent)")


def check(w, name):
    w.screenshot(f"phone-{name}")
    assert w.js(FITS) == [], (name, status(w), w.js(FITS))
    # The app bar and toolbar leave the editor most of the screen (they took 305 px).
    assert w.js(CHROME_HEIGHT) <= 150, (name, w.js(CHROME_HEIGHT))


def test_a_phone_fits_in_every_status(server, windows):
    doc = server.create_document("A phone-sized document title that goes on", "Written on a phone.\n")
    w = windows(390, 844).open(doc["id"], faults=True)
    check(w, "online")
    w.textarea.send_keys(Keys.END, " More")
    w.wait_synced()
    # Undo says what it will undo, on the button itself.
    w.wait(lambda: w.js("return document.getElementById('undo-label').textContent") == "Undo Typing")
    assert w.js("const r = document.getElementById('undo-label').getBoundingClientRect();"
                " return r.width > 40 && r.height > 10")
    assert w.js("return document.getElementById('redo-button').title").startswith("Redo")
    # A checkpoint, then more typing: the state that used to read "Unsaved changes · saved 4:05 PM".
    w.button("save-button").click()
    w.wait(lambda: w.js("return document.getElementById('version-status').textContent").startswith("Version 1"))
    w.textarea.send_keys(" again")
    w.wait_synced()
    check(w, "saved-after-a-version")
    # Answers slow: saving.
    w.faults("f.delayEditAnswersMs = 1500;")
    w.textarea.send_keys("!")
    w.wait(lambda: w.js("return document.getElementById('save-status').textContent") == "Saving…")
    check(w, "saving")
    w.faults("f.delayEditAnswersMs = 0;")
    w.wait_synced()
    # An outage with typing waiting.
    w.faults("f.down = true; f.cutStreams();")
    w.wait(lambda: w.js("return document.getElementById('sync-status').textContent") == "Offline")
    w.textarea.send_keys(" offline words")
    w.wait(lambda: w.js("return document.getElementById('save-status').textContent") == "Not saved yet")
    check(w, "offline-not-saved")
    # Renamed to something long, with two more people in it.
    others = [windows(390, 844).open(doc["id"]) for _ in range(2)]
    w.faults("f.down = false;")
    w.wait_synced(30)
    status_code, _ = server.request("PATCH", f"/documents/{doc['id']}", {"title": "W" * 120},
                                    headers={"Tandem-Link": doc["ownerLink"]["token"]})
    assert status_code == 200
    w.wait(lambda: w.js("return document.getElementById('doc-title').value") == "W" * 120)
    w.wait(lambda: w.js("return document.querySelectorAll('#people li').length") == 3)
    check(w, "three-people-long-title")
    for o in others:
        o.wait_synced()


def test_a_phone_fits_while_it_cannot_connect(server, windows):
    doc = server.create_document("Never connects", "Text typed before the stream ever opened.")
    w = windows(390, 844)
    w.before_load(FAULTS_JS)
    w.before_load("window.__faults.refuseEvents = 1e9;")
    w.driver.get(f"{server.base}/#/doc/{doc['id']}")
    w.wait(lambda: w.js("const s = document.getElementById('sync-status'); return s && s.textContent") == "Connecting…")
    w.wait(lambda: w.js("return document.getElementById('editor-text').value").startswith("Text typed"))
    check(w, "connecting")
