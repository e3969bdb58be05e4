"""Browser tests for Tandem's client: the real server binary, headless Chromium.

Run: pip install -r scripts/requirements-test.txt; apt-get install -y chromium chromium-driver;
     TANDEM_BIN=.build/debug/tandem pytest Tests/browser
"""
import contextlib
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "build" / "screenshots"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def binary_path():
    return os.environ.get("TANDEM_BIN", str(ROOT / ".build" / "debug" / "tandem"))


class Server:
    def __init__(self, base, data=None):
        self.base = base
        self.data = data  # the server's --data folder

    def add_user(self, name, password, display_name=None):
        """`tandem user add` against this server's store, as its operator would."""
        extra = ["--display-name", display_name] if display_name else []
        r = subprocess.run([binary_path(), "user", "add", name, *extra, "--data", str(self.data)],
                           input=password + "\n", capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr

    def request(self, method, path, body=None, token=None, headers=None):
        data = None
        h = dict(headers or {})
        if body is not None:
            data = json.dumps(body).encode()
            h["Content-Type"] = "application/json"
        if token:
            h["Authorization"] = f"Bearer {token}"
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=h)
        try:
            with urllib.request.urlopen(req, timeout=10) as res:
                raw = res.read()
                ctype = res.headers.get("Content-Type", "")
                return res.status, (json.loads(raw) if "json" in ctype and raw else raw.decode())
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                return e.code, json.loads(raw)
            except ValueError:
                return e.code, raw.decode(errors="replace")

    def create_document(self, title="Test", text=""):
        status, doc = self.request("POST", "/documents", {"title": title, "text": text})
        assert status == 201, (status, doc)
        return doc

    def text(self, doc_id):
        status, doc = self.request("GET", f"/documents/{doc_id}")
        assert status == 200, (status, doc)
        return doc["text"]


@contextlib.contextmanager
def running_server(*extra):
    """The server binary on a free port with a data folder of its own; `extra` are more
    `tandem serve` arguments (e.g. "--guests", "off")."""
    binary = binary_path()
    if not os.path.exists(binary):
        pytest.fail(f"no server binary at {binary}: build it or set TANDEM_BIN")
    data = tempfile.mkdtemp(prefix="tandem-browser-")
    port = free_port()
    log = open(Path(data) / "server.log", "w")
    proc = subprocess.Popen(
        [binary, "serve", "--host", "127.0.0.1", "--port", str(port), "--data", data,
         # TANDEM_PUBLIC runs the suite against another copy of the client, e.g. an older
         # one, to see a new test fail there.
         "--public", os.environ.get("TANDEM_PUBLIC", str(ROOT / "Public")), "--log-level", "warning", *extra],
        stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        if proc.poll() is not None:
            log.close()
            pytest.fail("server exited: " + (Path(data) / "server.log").read_text())
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=1) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("server did not answer /healthz")
        time.sleep(0.1)
    try:
        yield Server(base, data)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        shutil.rmtree(data, ignore_errors=True)


@pytest.fixture(scope="session")
def server():
    with running_server() as s:
        yield s


def make_driver(width=1280, height=860):
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROME_BIN", "/usr/bin/chromium")
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                f"--window-size={width},{height}", "--force-device-scale-factor=1"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(os.environ.get("CHROMEDRIVER", shutil.which("chromedriver") or "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(options=options, service=service)
    if width < 500:
        # Chromium's windows are at least 500 px wide: a phone's viewport is emulated, as
        # DevTools' device mode does, touch and the viewport meta tag included.
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": True})
        driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    return driver


# Installed before the page's own scripts (so it wraps every fetch, the event stream's too):
# lets a test lose answers the server did send, refuse connections, cut streams mid-way
# and delay answers, the way a flaky network does. The server itself is always real.
FAULTS_JS = r"""
(() => {
  const real = window.fetch.bind(window);
  const f = window.__faults = {
    real, down: false, loseEditAnswers: 0, delayEditAnswersMs: 0, delayEventsMs: 0, refuseEvents: 0, failDocumentGets: 0,
    failLogGets: 0, goneLogGets: 0, beforeLoss: null, edits: 0, lost: 0, eventConnects: 0,
    streams: [],
  };
  const netError = () => new TypeError('Failed to fetch (simulated)');
  f.cutStreams = () => { for (const s of f.streams.splice(0)) s.cut(); };
  window.fetch = async (input, init = {}) => {
    const url = new URL(String(input), location.href);
    const method = (init.method || 'GET').toUpperCase();
    const path = url.pathname;
    // An outage: nothing reaches the server.
    if (f.down) throw netError();
    if (path.endsWith('/events')) {
      f.eventConnects += 1;
      if (f.refuseEvents > 0) { f.refuseEvents -= 1; throw netError(); }
      const res = await real(input, init);
      if (!res.body) return res;
      const reader = res.body.getReader();
      let controller;
      const body = new ReadableStream({
        start(c) { controller = c; },
        async pull(c) {
          const { value, done } = await reader.read();
          if (f.delayEventsMs) await new Promise((r) => setTimeout(r, f.delayEventsMs));
          if (done) c.close(); else c.enqueue(value);
        },
        cancel(reason) { return reader.cancel(reason); },
      });
      f.streams.push({ cut() { try { controller.error(netError()); } catch (e) {} reader.cancel().catch(() => {}); } });
      return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    }
    if (method === 'POST' && /\/documents\/[^/]+\/edits$/.test(path)) {
      f.edits += 1;
      const res = await real(input, init);
      if (f.delayEditAnswersMs) await new Promise((r) => setTimeout(r, f.delayEditAnswersMs));
      if (f.loseEditAnswers > 0) {
        f.loseEditAnswers -= 1;
        f.lost += 1;
        if (f.beforeLoss) await f.beforeLoss();
        throw netError();
      }
      return res;
    }
    if (method === 'GET' && /\/documents\/[^/]+\/edits$/.test(path)) {
      if (f.failLogGets > 0) { f.failLogGets -= 1; throw netError(); }
      if (f.goneLogGets > 0) {
        // What the server answers when the log no longer reaches back that far.
        f.goneLogGets -= 1;
        return new Response(JSON.stringify({ error: { code: 'revision_trimmed', message: 'trimmed (simulated)' } }),
          { status: 410, headers: { 'Content-Type': 'application/json' } });
      }
    }
    if (method === 'GET' && /^\/documents\/[^/]+$/.test(path) && f.failDocumentGets > 0) {
      f.failDocumentGets -= 1;
      throw netError();
    }
    return real(input, init);
  };
})();
"""


class Window:
    """One browser window (one tab: one session, one person)."""

    def __init__(self, driver, server):
        self.driver = driver
        self.server = server
        self.logs = []
        self.allowed = []

    def before_load(self, script):
        """Runs `script` in every page this window loads, before the page's own scripts."""
        self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": script})

    def share_session_of(self, other):
        """Makes this window a duplicate of `other`'s tab: Duplicate Tab and window.open copy
        sessionStorage, where the client keeps its session."""
        session = other.js("return sessionStorage.getItem('tandem.session')")
        assert session, "the other window has no session yet"
        self.before_load(f"sessionStorage.setItem('tandem.session', {json.dumps(session)});")
        return self

    def screenshot(self, name):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.driver.save_screenshot(str(SCREENSHOTS / f"{name}.png"))

    def open(self, doc_id, faults=False):
        if faults:
            self.before_load(FAULTS_JS)
        self.driver.get(f"{self.server.base}/#/doc/{doc_id}")
        self.wait_synced()
        return self

    def faults(self, script, *args):
        """Runs `script` with `f` bound to the page's fault switches (see FAULTS_JS)."""
        return self.js("const f = window.__faults; " + script, *args)

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def wait(self, predicate, timeout=10, message=""):
        return WebDriverWait(self.driver, timeout).until(lambda d: predicate(), message)

    def wait_synced(self, timeout=10):
        self.wait(lambda: self.js(
            "const c = window.tandem && window.tandem.collab;"
            "return !!c && c.stream.status === 'open' && c.state === 'synchronized' && !c.actionBusy"
            " && c.queue.length === 0;"), timeout, "client did not synchronize")

    @property
    def textarea(self):
        return self.driver.find_element(By.ID, "editor-text")

    def text(self):
        return self.js("return window.tandem.view.editor.getText();")

    def type_at(self, pos, keys):
        """Types `keys` with the caret at `pos`, in one burst (one "Typing" group), and waits
        until the server has it."""
        self.js(f"const t = document.getElementById('editor-text'); t.focus(); t.setSelectionRange({pos}, {pos});")
        self.textarea.send_keys(keys)
        self.wait_synced()

    def button(self, element_id):
        return self.driver.find_element(By.ID, element_id)

    def click(self, css, attempts=5):
        """Clicks what `css` finds now. A list the client re-renders when an event arrives
        (the history list) may replace the element between finding and clicking: then it is
        found again, as a person would click the button now on screen."""
        for attempt in range(attempts):
            try:
                self.driver.find_element(By.CSS_SELECTOR, css).click()
                return
            except StaleElementReferenceException:
                if attempt == attempts - 1:
                    raise

    def allow_console(self, fragment):
        """A console error containing `fragment` is expected in this test (e.g. a 401)."""
        self.allowed.append(fragment)

    def severe_logs(self):
        """Every console error so far. ChromeDriver hands each entry out once, so they are
        kept here: every read sees all of them."""
        try:
            entries = self.driver.get_log("browser")
        except Exception:  # the window is gone
            entries = []
        self.logs += [e for e in entries if e["level"] == "SEVERE"]
        return [e for e in self.logs if not any(a in e["message"] for a in self.allowed)]


@pytest.fixture
def windows(server):
    created = []

    def make(width=1280, height=860, on=None):
        """A new browser (its own profile) on `server`, or on the server `on`."""
        w = Window(make_driver(width, height), on or server)
        created.append(w)
        return w

    yield make
    errors = []
    for w in created:
        errors += w.severe_logs()
        w.driver.quit()
    # Every browser test ends with a clean console.
    assert errors == [], errors
