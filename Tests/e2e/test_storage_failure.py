"""A store that fails: the data folder sits on a 2 MiB tmpfs that a filler file fills up.
Edits must fail loudly (503) without losing anything acknowledged, reads must go on, and
the document must recover by itself once the disk has room again."""

from __future__ import annotations

import errno
import os
import subprocess
import threading
import time

import pytest

from sse import SSEStream
from tandem_client import Client, assert_error, describe, new_session
from tandem_server import ServerStartError, TandemServer
from utf16 import apply_ops

pytestmark = pytest.mark.sqlite_only("a full disk is a small tmpfs under the SQLite file")

START = "disk test\n"
CHUNK = "x" * 4000  # large inserts reach a full disk quickly
RECOVERY_WAIT = 30  # seconds; the server retries every second


def _mount_tmpfs(path) -> str | None:
    """Mounts a 2 MiB tmpfs on `path`; returns why it could not, or None."""
    if os.geteuid() != 0:
        return "mounting a tmpfs needs root (CI runs the suite as root)"
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(path)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return f"mount -t tmpfs is not permitted here: {r.stderr.strip() or r.returncode}"
    return None


@pytest.fixture
def small_disk_server():
    # A full disk is a small tmpfs under the SQLite file: this server stays on SQLite.
    srv = TandemServer(name="diskfull", on_postgres=False)
    srv.data.mkdir(parents=True)
    why = _mount_tmpfs(srv.data)
    if why:
        srv.cleanup()
        pytest.skip(why)
    try:
        srv.start()
    except ServerStartError as e:
        srv.stop()
        subprocess.run(["umount", str(srv.data)], check=False)
        srv.cleanup()
        pytest.fail(str(e), pytrace=False)
    yield srv
    srv.stop()
    subprocess.run(["umount", "-l", str(srv.data)], check=False)
    srv.cleanup()


def _fill(path) -> int:
    """Writes until the file system says ENOSPC; returns the bytes written."""
    written = 0
    with open(path, "wb", buffering=0) as f:
        block = b"\0" * 65536
        while True:
            try:
                written += f.write(block)
            except OSError as e:
                if e.errno != errno.ENOSPC:
                    raise
                if len(block) == 1:
                    return written
                block = block[:len(block) // 2]


class EventCollector:
    """Reads a document's event stream on a thread, so the server never sees a slow reader."""

    def __init__(self, base: str, doc_id: str):
        self.stream = SSEStream(base, f"/documents/{doc_id}/events")
        assert self.stream.status == 200
        self.events = []
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.done.is_set():
            try:
                ev = self.stream.next_event(timeout=0.5)
            except TimeoutError:
                continue
            except (ConnectionError, OSError):
                return
            with self.lock:
                self.events.append(ev)

    def states(self) -> list[str]:
        with self.lock:
            return [e.json()["state"] for e in self.events if e.type == "state"]

    def close(self):
        self.done.set()
        self.thread.join(timeout=5)
        self.stream.close()


def _edit_until_the_store_fails(srv: TandemServer, ada: Client, doc_id: str, acknowledged: list[dict]):
    """Fills the disk, then edits until an edit is refused; returns that answer and the
    marker of the refused edit. SQLite may still have room in pages it already owns, so
    the first edits after filling may succeed."""
    _fill(srv.data / "filler")
    for i in range(500):
        r = ada.post(f"/documents/{doc_id}/edits", {"insert": f"[{i}]{CHUNK}", "at": 0, "newGroup": True})
        if r.status_code != 200:
            return r, f"[{i}]"
        acknowledged.append({"revision": r.json()["revision"], "ops": r.json()["ops"]})
    pytest.fail("500 large edits on a full 2 MiB disk all succeeded")


def _replay(log: list[dict]) -> str:
    text = START
    for c in log:
        text = apply_ops(text, c["ops"])
    return text


def test_full_disk_refuses_edits_keeps_reads_and_recovers(small_disk_server):
    srv = small_disk_server
    anon = Client(srv.base)
    ada = new_session(srv.base, "Ada")
    doc_id = anon.create_doc(START)["id"]
    events = EventCollector(srv.base, doc_id)
    acknowledged: list[dict] = []
    try:
        for i in range(3):
            a = ada.insert(doc_id, f"<{i}>", 0, newGroup=True)
            acknowledged.append({"revision": a["revision"], "ops": a["ops"]})

        failed, failed_marker = _edit_until_the_store_fails(srv, ada, doc_id, acknowledged)
        assert_error(failed, 503, "storage_failing")

        doc = anon.doc(doc_id)
        assert doc["state"] == "savingError", doc["state"]
        for path in (f"/documents/{doc_id}/text", f"/documents/{doc_id}/edits?since=0",
                     f"/documents/{doc_id}/history", "/documents"):
            r = anon.get(path)
            assert r.status_code == 200, describe(r)
        # Every later change is refused too, whatever its kind.
        assert_error(ada.post(f"/documents/{doc_id}/edits", {"insert": "more", "at": 0}), 503, "storage_failing")
        assert_error(ada.undo(doc_id), 503, "storage_failing")
        assert_error(anon.post(f"/documents/{doc_id}/edits", {"delete": {"from": 0, "to": 1}}), 503,
                     "storage_failing")

        os.remove(srv.data / "filler")
        deadline = time.monotonic() + RECOVERY_WAIT
        while anon.doc(doc_id)["state"] != "normal":
            assert time.monotonic() < deadline, f"still {anon.doc(doc_id)['state']} {RECOVERY_WAIT} s after the disk had room"
            time.sleep(0.2)

        log = anon.changes(doc_id)
        assert [c["revision"] for c in log] == list(range(1, len(log) + 1))
        by_revision = {c["revision"]: c for c in log}
        for a in acknowledged:
            assert by_revision.get(a["revision"], {}).get("ops") == a["ops"], f"acknowledged {a['revision']} lost"
        assert len(log) == len(acknowledged), "the log holds changes that were never acknowledged"
        text = _replay(log)
        assert anon.text(doc_id) == text
        assert failed_marker not in text, "the refused edit is in the text"

        # Edits are accepted again and revisions go on without a gap.
        a = ada.insert(doc_id, "back", 0, newGroup=True)
        assert a["revision"] == len(log) + 1
        assert anon.text(doc_id) == apply_ops(text, a["ops"])
        r = ada.undo(doc_id)
        assert r.status_code == 200, describe(r)
        assert anon.text(doc_id) == text

        deadline = time.monotonic() + 10
        while events.states()[-2:] != ["savingError", "normal"]:
            assert time.monotonic() < deadline, f"SSE state events: {events.states()}"
            time.sleep(0.1)
    finally:
        events.close()


def test_reads_during_a_store_failure_show_only_acknowledged_changes(small_disk_server):
    srv = small_disk_server
    anon = Client(srv.base)
    ada = new_session(srv.base, "Ada")
    doc_id = anon.create_doc(START)["id"]
    acknowledged: list[dict] = []
    a = ada.insert(doc_id, "<0>", 0)
    acknowledged.append({"revision": a["revision"], "ops": a["ops"]})
    failed, failed_marker = _edit_until_the_store_fails(srv, ada, doc_id, acknowledged)
    assert_error(failed, 503, "storage_failing")
    doc = anon.doc(doc_id)
    assert doc["state"] == "savingError"
    log = anon.changes(doc_id)
    assert (doc["revision"], doc["text"]) == (len(log), _replay(log)), \
        f"GET shows revision {doc['revision']} (log: {len(log)}), refused edit in text: {failed_marker in doc['text']}"
    r = anon.get(f"/documents/{doc_id}/text")
    assert r.status_code == 200 and r.text == _replay(log)
