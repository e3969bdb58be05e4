"""Browser tests for Tandem's client: the real server binary, headless Chromium.

Run: pip install -r scripts/requirements-test.txt; apt-get install -y chromium chromium-driver;
     TANDEM_BIN=.build/debug/tandem pytest Tests/browser
"""
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
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "build" / "screenshots"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, base):
        self.base = base

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


@pytest.fixture(scope="session")
def server():
    binary = os.environ.get("TANDEM_BIN", str(ROOT / ".build" / "debug" / "tandem"))
    if not os.path.exists(binary):
        pytest.fail(f"no server binary at {binary}: build it or set TANDEM_BIN")
    data = tempfile.mkdtemp(prefix="tandem-browser-")
    port = free_port()
    log = open(Path(data) / "server.log", "w")
    proc = subprocess.Popen(
        [binary, "serve", "--host", "127.0.0.1", "--port", str(port), "--data", data,
         "--public", str(ROOT / "Public"), "--log-level", "warning"],
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
    yield Server(base)
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()
    shutil.rmtree(data, ignore_errors=True)


def make_driver(width=1280, height=860):
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROME_BIN", "/usr/bin/chromium")
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                f"--window-size={width},{height}", "--force-device-scale-factor=1"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(os.environ.get("CHROMEDRIVER", shutil.which("chromedriver") or "/usr/bin/chromedriver"))
    return webdriver.Chrome(options=options, service=service)


class Window:
    """One browser window (one tab: one session, one person)."""

    def __init__(self, driver, server):
        self.driver = driver
        self.server = server

    def open(self, doc_id):
        self.driver.get(f"{self.server.base}/#/doc/{doc_id}")
        self.wait_synced()
        return self

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

    def button(self, element_id):
        return self.driver.find_element(By.ID, element_id)

    def severe_logs(self):
        return [e for e in self.driver.get_log("browser") if e["level"] == "SEVERE"]


@pytest.fixture
def windows(server):
    created = []

    def make(width=1280, height=860):
        w = Window(make_driver(width, height), server)
        created.append(w)
        return w

    yield make
    for w in created:
        w.driver.quit()
