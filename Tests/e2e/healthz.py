"""Starting and stopping a process the e2e harness waits for on `/healthz`: a Tandem node or
the nginx in front of two (`tandem_server.py`, `cluster.py`); and `HealthPinger`, which times
`/healthz` while an attack runs."""

from __future__ import annotations

import signal
import subprocess
import threading
import time
from typing import Callable

import requests


def wait_healthy(process: subprocess.Popen, url: str, deadline: float, what: str = "the process") -> tuple[bool, str]:
    """Polls `url` (a /healthz) until it answers 200, the process exits or `deadline`
    (monotonic) passes; returns whether it answered and, if not, the last thing seen."""
    last = "no answer"
    while time.monotonic() < deadline:
        code = process.poll()
        if code is not None:
            return False, f"{what} exited with status {code} before /healthz answered"
        try:
            r = requests.get(url, timeout=1)
            if r.status_code == 200:
                return True, ""
            last = f"/healthz answered {r.status_code}"
        except requests.RequestException as e:
            last = f"/healthz: {e.__class__.__name__}"
        time.sleep(0.05)
    return False, f"timed out ({last})"


def start_with_retries(launch: Callable[[], tuple[bool, str]], stop: Callable[[], None], log_tail: Callable[[], str],
                       attempts: int = 3) -> str:
    """Runs `launch` (start on a fresh port, wait for /healthz) until it succeeds; a failure
    other than a port taken meanwhile ends the tries. Returns "" on success, else the last
    failure."""
    last = ""
    for _ in range(attempts):
        ok, last = launch()
        if ok:
            return ""
        stop()
        if "address already in use" not in log_tail().lower():
            break
    return last or "did not start"


def signal_if_running(process: subprocess.Popen | None, sig: int) -> None:
    if process is not None and process.poll() is None:
        process.send_signal(sig)


def kill_and_wait(process: subprocess.Popen, timeout: float = 15) -> None:
    """`kill -9` (if it still runs) and reap it."""
    signal_if_running(process, signal.SIGKILL)
    process.wait(timeout=timeout)


def terminate_and_wait(process: subprocess.Popen, timeout: float) -> None:
    """SIGTERM (if it still runs), and SIGKILL if it has not exited within `timeout`."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=5)


class HealthPinger(threading.Thread):
    """Asks /healthz on its own keep-alive connection, one request after another, and keeps
    each round trip's time."""

    def __init__(self, base: str):
        super().__init__(daemon=True)
        self.base = base
        self.times: list[float] = []
        self.failures: list[str] = []
        self.stopping = threading.Event()

    def run(self):
        http = requests.Session()
        while not self.stopping.is_set():
            start = time.perf_counter()
            try:
                r = http.get(self.base + "/healthz", timeout=10)
                if r.status_code != 200:
                    self.failures.append(f"{r.status_code} {r.text[:200]}")
            except requests.RequestException as e:
                self.failures.append(repr(e))
            self.times.append(time.perf_counter() - start)
            time.sleep(0.002)

    def stop(self) -> list[float]:
        self.stopping.set()
        self.join(30)
        return sorted(self.times)
