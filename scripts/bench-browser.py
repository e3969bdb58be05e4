#!/usr/bin/env python3
"""The browser client's cost per keystroke on long documents with many people (issue 43).

Starts its own server from $TANDEM_BIN on 127.0.0.1 (a fresh data folder, removed after),
opens two headless Chromium windows through Selenium, as the browser tests do: the typist's
and a second person's. Others present beyond that second person are sessions with a
selection spread through the text (their carets are drawn in both windows). The typist
gets real key events (CDP Input.dispatchKeyEvent, one every --interval ms) with the caret in
the middle of the document. For every keystroke it prints, as p50/p95 in milliseconds:

  handled  in the typist's tab: from the keydown's timeStamp to the end of the page's work
           for it: its input handlers plus the layout they leave to do (forced at the end of
           the input event), plus the work of the next animation frame's callbacks (from the
           frame's start or the input event's end, whichever is later, so the wait for the
           frame itself is not counted, nor the keystroke's own work twice). One frame's
           budget is 16 ms.
  visible  in the second window: from the keydown (performance.timeOrigin + timeStamp: both
           windows read the same clock) to the moment that window's text holds it and is
           laid out.

  TANDEM_BIN=.build/release/tandem scripts/bench-browser.py [--sizes 10,200,1000]
      [--people 1,10] [--keys 60] [--interval 80] [--public DIR] [--editor textarea|viewport]
      [--detail] [--profile FILE]
      [--trace FILE] [--colours off|on|both]

--colours on runs with authorship colours shown in both windows (the toolbar's "Who wrote
what", its runs refetched as people type); both runs each configuration without them, then
with them, in one run, so the two can be compared on one machine's load.

Bounded: it stops by itself after --deadline seconds (default 900), whatever happens.
Only loopback addresses are used; Chromium's own background networking is turned off.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parents[1]

WORDS = ("the quick brown fox jumps over a lazy dog while seven people write one long "
         "document together and every keystroke has to reach all of them at once").split()


def prose(size):
    """About `size` UTF-16 units of paragraphs of plain words."""
    out, n, i = [], 0, 0
    while n < size:
        line = " ".join(WORDS[(i + k) % len(WORDS)] for k in range(12 + i % 9)) + ".\n"
        if i % 5 == 4:
            line += "\n"
        out.append(line)
        n += len(line)
        i += 1
    return "".join(out)[:size]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(base, method, path, body=None, token=None):
    data = json.dumps(body).encode() if body is not None else None
    h = {"Content-Type": "application/json"} if data else {}
    if token:
        h["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(base + path, data=data, method=method, headers=h)
    with urllib.request.urlopen(req, timeout=30) as r:
        raw = r.read()
        return json.loads(raw) if raw else None


def driver(width=1280, height=860):
    o = webdriver.ChromeOptions()
    o.binary_location = os.environ.get("CHROME_BIN", "/usr/bin/chromium")
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                f"--window-size={width},{height}", "--force-device-scale-factor=1",
                # Loopback only: nothing of Chromium's own goes out.
                "--disable-background-networking", "--disable-component-update", "--no-first-run",
                "--disable-sync", "--disable-domain-reliability", "--disable-client-side-phishing-detection",
                "--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication",
                # Both windows run flat out even when not in front.
                "--disable-renderer-backgrounding", "--disable-background-timer-throttling",
                "--disable-backgrounding-occluded-windows"):
        o.add_argument(arg)
    service = Service(os.environ.get("CHROMEDRIVER", shutil.which("chromedriver") or "/usr/bin/chromedriver"))
    return webdriver.Chrome(options=o, service=service)


# The typist's probe: per keystroke, the keydown's time and the page's work for it.
TYPIST_PROBE = r"""
// The text field: the textarea, or the viewport editor's lines (long documents); a client
// from before the viewport editor has only the textarea.
const ta = window.tandem.view.editor.field || window.tandem.view.editor.textarea;
const probe = window.__probe = { keys: [] };
let current = null;
window.addEventListener('keydown', (e) => {
  if (e.target !== ta || e.key.length !== 1) return;
  current = { t0: e.timeStamp, epoch: performance.timeOrigin + e.timeStamp, input: null, frame: null };
  probe.keys.push(current);
}, true);
// Capturing at the window comes before the editor's own listener on the field, bubbling
// to it after: the browser's editing, the page's handlers, the layout left. The textarea
// ends a keystroke with `input`; the viewport editor edits its text itself in `beforeinput`
// (preventing the browser's editing, so no `input` follows).
const edited = (e) => { if (e.target === ta && current) current.edited = performance.now() - current.t0; };
window.addEventListener('beforeinput', edited, true);
window.addEventListener('input', edited, true);
const done = (e) => {
  if (e.target !== ta || !current || current.input !== null) return;
  const k = current;
  k.handlers = performance.now() - k.t0 - k.edited;
  const before = performance.now();
  void ta.scrollHeight; void document.body.offsetHeight; // the layout the change left to do
  k.layout = performance.now() - before;
  k.input = performance.now() - k.t0;
  const inputEnd = performance.now();
  requestAnimationFrame((frameStart) => {
    void ta.scrollHeight; void document.body.offsetHeight;
    const end = performance.now();
    // A frame's timestamp is its vsync, often before the keystroke's own work ended: the
    // frame's work starts at the later of the two (else that work counts twice).
    k.frame = Math.max(0, end - Math.max(frameStart, inputEnd));
    k.frameFromStamp = Math.max(0, end - frameStart);
    k.elapsed = end - k.t0;
  });
};
window.addEventListener('input', done);
window.addEventListener('beforeinput', (e) => { if (e.defaultPrevented) done(e); });
"""

# The second window's probe: when each remote change is in its text and laid out.
OBSERVER_PROBE = r"""
const ed = window.tandem.view.editor;
const ta = ed.field || ed.textarea;
const probe = window.__probe = { seen: [], inserted: 0 };
const apply = ed.applyRemote.bind(ed);
ed.applyRemote = (op, ...rest) => {
  const r = apply(op, ...rest);
  for (const c of op) if (typeof c === 'string') probe.inserted += c.length;
  void ta.scrollHeight; void document.body.offsetHeight;
  probe.seen.push([probe.inserted, performance.timeOrigin + performance.now()]);
  return r;
};
"""


class Tracer:
    """A timeline trace of one page (CDP Tracing over the page's own DevTools socket: the
    trace comes back as events and a stream, which Selenium's CDP calls cannot wait for)."""

    CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline",
                  "disabled-by-default-devtools.timeline.frame", "v8.execute", "toplevel",
                  "blink.user_timing", "input", "disabled-by-default-v8.cpu_profiler"]

    def __init__(self, d):
        import websocket  # Selenium's own dependency
        address = d.capabilities["goog:chromeOptions"]["debuggerAddress"]
        with urllib.request.urlopen(f"http://{address}/json", timeout=10) as r:
            pages = [p for p in json.loads(r.read()) if p["type"] == "page"]
        self.ws = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], suppress_origin=True, timeout=60)
        self.next_id = 0
        self.stream = None

    def call(self, method, params=None):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params or {}}))
        while True:
            m = json.loads(self.ws.recv())
            if m.get("method") == "Tracing.tracingComplete":
                self.stream = m["params"]["stream"]
            if m.get("id") == self.next_id:
                return m.get("result", {})

    def start(self):
        self.call("Tracing.start", {"transferMode": "ReturnAsStream",
                                    "traceConfig": {"includedCategories": self.CATEGORIES}})

    def stop(self, path):
        self.call("Tracing.end")
        while self.stream is None:
            m = json.loads(self.ws.recv())
            if m.get("method") == "Tracing.tracingComplete":
                self.stream = m["params"]["stream"]
        with open(path, "w") as out:
            while True:
                r = self.call("IO.read", {"handle": self.stream, "size": 1 << 20})
                out.write(r["data"])
                if r.get("eof"):
                    break
        self.call("IO.close", {"handle": self.stream})
        self.ws.close()


def set_colours(d, base, on):
    """Authorship colours on or off for the next page load, as the toolbar's toggle keeps them."""
    d.get(f"{base}/")
    d.execute_script("localStorage.setItem('tandem.authorship', arguments[0])", "on" if on else "off")
    # Away, so that opening the document loads the page anew (a change of hash alone would not).
    d.get("about:blank")


def open_doc(d, base, doc_id, editor=None):
    d.get(f"{base}/{'?editor=' + editor if editor else ''}#/doc/{doc_id}")
    WebDriverWait(d, 60).until(lambda _: d.execute_script(
        "const c = window.tandem && window.tandem.collab;"
        "return !!c && c.stream.status === 'open' && c.state === 'synchronized';"))


def put_caret(d, pos):
    d.execute_script(
        "const v = window.tandem.view; v.editor.select(arguments[0], arguments[0]);", pos)


def key(d, ch):
    d.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyDown", "key": ch, "text": ch, "unmodifiedText": ch})
    d.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyUp", "key": ch})


def pct(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    i = min(len(xs) - 1, max(0, round(p / 100 * (len(xs) - 1))))
    return xs[i]


def run_one(base, size_kb, others, args, typist, observer, profile=None, trace=None):
    text = prose(size_kb * 1000)
    doc = request(base, "POST", "/documents", {"title": f"Bench {size_kb} KB, {others} others", "text": text})
    doc_id = doc["id"]
    middle = text.index("\n", len(text) // 2) + 1
    # Others beyond the second window: a selection each, some near the typist's caret
    # (drawn in view), the rest spread through the text.
    for i in range(others - 1):
        s = request(base, "POST", "/sessions", {"name": f"Person {i + 3}"})
        at = middle + 40 * (i + 1) if i < 4 else (len(text) * (i + 1)) // others
        request(base, "PUT", f"/documents/{doc_id}/selection", {"anchor": at, "head": at}, token=s["token"])
    open_doc(observer, base, doc_id, args.editor)
    open_doc(typist, base, doc_id, args.editor)
    put_caret(observer, middle + 20)
    put_caret(typist, middle)
    WebDriverWait(typist, 30).until(lambda d: d.execute_script(
        "return window.tandem.view.presence.people.length") >= others + 1)
    time.sleep(1.0)
    typist.execute_script(TYPIST_PROBE)
    observer.execute_script(OBSERVER_PROBE)
    if profile:
        typist.execute_cdp_cmd("Profiler.enable", {})
        typist.execute_cdp_cmd("Profiler.setSamplingInterval", {"interval": 200})
        typist.execute_cdp_cmd("Profiler.start", {})
    tracer = Tracer(typist) if trace else None
    if tracer:
        tracer.start()
    typed = "".join(WORDS[i % len(WORDS)][0] if i % 6 else " " for i in range(args.keys))
    for ch in typed:
        key(typist, ch)
        time.sleep(args.interval / 1000)
    if profile:
        prof = typist.execute_cdp_cmd("Profiler.stop", {})["profile"]
        Path(profile).write_text(json.dumps(prof))
    if tracer:
        tracer.stop(trace)
    # Everything arrived in the second window (bounded).
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if observer.execute_script("return window.__probe.inserted") >= len(typed):
            break
        time.sleep(0.1)
    keys = typist.execute_script("return window.__probe.keys")
    seen = observer.execute_script("return window.__probe.seen")
    handled = [k["input"] + (k["frame"] or 0) for k in keys if k["input"] is not None]
    if args.detail:
        parts = {name: [k[name] or 0 for k in keys if k["input"] is not None] for name in ("edited", "handlers", "layout", "frame")}
        print("    where a keystroke's time goes (p50 ms): " + ", ".join(
            f"{name} {pct(xs, 50):.1f}" for name, xs in parts.items()), flush=True)
        stamped = [k["input"] + (k.get("frameFromStamp") or 0) for k in keys if k["input"] is not None]
        elapsed = [k.get("elapsed") or 0 for k in keys if k["input"] is not None]
        print(f"    handled with the frame counted from its timestamp (p50/p95): {pct(stamped, 50):.1f} / "
              f"{pct(stamped, 95):.1f}; keydown to the frame's callbacks done, waits included: "
              f"{pct(elapsed, 50):.1f} / {pct(elapsed, 95):.1f}", flush=True)
    visible = []
    for i, k in enumerate(keys):
        at = next((t for n, t in seen if n >= i + 1), None)
        if at is not None:
            visible.append(at - k["epoch"])
    return handled, visible, len(keys)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10,200,1000", help="document sizes in KB (1000 = 1 MB)")
    ap.add_argument("--people", default="1,10", help="others present besides the typist")
    ap.add_argument("--keys", type=int, default=60, help="keystrokes per configuration")
    ap.add_argument("--interval", type=float, default=80, help="ms between keystrokes")
    ap.add_argument("--public", default=str(ROOT / "Public"), help="the client to serve")
    ap.add_argument("--editor", choices=["textarea", "viewport"], default=None,
                    help="open every document in this editor (?editor=); by default the client chooses by length")
    ap.add_argument("--detail", action="store_true",
                    help="also print where a typist's keystroke goes: the browser's editing up to the input event, "
                         "the page's input handlers, the layout left after them, the next frame's work")
    ap.add_argument("--profile", default=None, help="write the typist's CPU profile of the last run here (.cpuprofile)")
    ap.add_argument("--trace", default=None,
                    help="write a timeline trace of the typist's tab during the last run's typing here (.json, for "
                         "Chrome DevTools' Performance panel)")
    ap.add_argument("--colours", choices=["off", "on", "both"], default="off",
                    help="authorship colours shown in both windows; both: each configuration without, then with them")
    ap.add_argument("--deadline", type=float, default=900, help="stop after this many seconds, whatever happens")
    args = ap.parse_args()

    binary = os.environ.get("TANDEM_BIN", str(ROOT / ".build" / "release" / "tandem"))
    if not os.path.exists(binary):
        sys.exit(f"no server binary at {binary}: build it or set TANDEM_BIN")
    signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(TimeoutError("deadline reached")))
    signal.alarm(int(args.deadline))

    data = tempfile.mkdtemp(prefix="tandem-bench-browser-")
    port = free_port()
    log = open(Path(data) / "server.log", "w")
    proc = subprocess.Popen([binary, "serve", "--host", "127.0.0.1", "--port", str(port), "--data", data,
                             "--public", args.public, "--log-level", "warning"], stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    drivers = []
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(base + "/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        typist, observer = driver(), driver()
        drivers += [typist, observer]
        print(f"client {args.public}{', editor ' + args.editor if args.editor else ''}; {args.keys} keys every {args.interval:g} ms; ms, p50 / p95")
        print(f"{'document':>9} {'others':>6} {'colours':>7} | {'handled p50':>11} {'p95':>6} | {'visible p50':>11} {'p95':>6} | keys")
        shades = {"off": [False], "on": [True], "both": [False, True]}[args.colours]
        configs = [(int(s), int(p), c) for s in args.sizes.split(",") for p in args.people.split(",") for c in shades]
        for n, (size, others, colours) in enumerate(configs):
            last = n == len(configs) - 1
            profile = args.profile if last else None
            trace = args.trace if last else None
            for d in (typist, observer):
                set_colours(d, base, colours)
            handled, visible, count = run_one(base, size, others, args, typist, observer, profile, trace)
            legend = typist.execute_script("const l = document.getElementById('authorship-legend');"
                                           "return !!l && !l.hidden && l.textContent.length > 0")
            if legend != colours:
                print(f"warning: authorship colours were {'shown' if legend else 'not shown'} in this run", flush=True)
            label = f"{size / 1000:g} MB" if size >= 1000 else f"{size} KB"
            print(f"{label:>9} {others:>6} {'on' if colours else 'off':>7} | {pct(handled, 50):11.1f} {pct(handled, 95):6.1f} | "
                  f"{pct(visible, 50):11.1f} {pct(visible, 95):6.1f} | {count}", flush=True)
    finally:
        signal.alarm(0)
        for d in drivers:
            try:
                d.quit()
            except Exception:
                pass
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
