"""No event loop waits on the store (issue 40): with store work slowed down for real, `/healthz`
and another document's edits, on the same and only event loop (`--event-loops 1`), keep a
p99 of 10 ms, while the slowed requests wait off the loop and complete correctly afterwards.

What "slow" means differs by store:
- PostgreSQL: a second connection holds `ACCESS EXCLUSIVE` locks on `idempotency_keys` and
  `versions`, so an idempotency key's claim and every version read wait until it commits.
  Neither table is on a plain edit's path (the writer appends changes and the cluster feed).
  Not fired here, because they would stop every edit (findings of issue 40): a save (its
  sequenced unit reads the newest version number on the single writer connection), the sweeps
  of expired keys (each minute, on the writer; the server is fresh, its first sweep is a
  minute away), a document created on another node (the sync that loads it reads its newest
  version, and every request waits for the sync).
- SQLite: another process's locks never stop SQLite's readers (WAL), and stop every write
  alike, so the server is started with the test-only fault `TANDEM_FAULT_SLOW_VERSION_READS`
  (`FaultInjection` in TandemStore): each read of saved versions takes seconds, as behind a
  slow disk. The first save after loading reads the newest version number; the list reads them.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time

import requests

from tandem_client import Client, describe, new_session
from tandem_server import ON_POSTGRES

GOAL = 0.010  # seconds: p99 of /healthz and of another document's edits (issue 40's goal, printed)
# What the test asserts: far below the seconds the slowed work is held, so a loop that waited
# on it fails, while a machine whose other suites take the cores (CI's, two cores) does not.
# The goal itself is a figure to read, as every speed here is, not a timed assertion.
BOUND = 0.250
MEASURED = 200
ROUNDS = 5
WARM_UP = 30
# SQLite: how long each slowed version read takes; long enough for every round of the
# measurement to end while the slowed requests are still waiting.
SQLITE_SLOW = 10.0


def p99(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


class Pending(threading.Thread):
    """One slowed request, sent on a connection of its own; `response` once answered."""

    def __init__(self, client: Client, method: str, path: str, body=None, headers=None):
        super().__init__(daemon=True)
        self.client, self.method, self.path, self.body, self.headers = client, method, path, body, headers
        self.response: requests.Response | None = None
        self.error: Exception | None = None
        self.answered_at = 0.0

    def run(self):
        try:
            self.response = self.client.request(self.method, self.path, json_body=self.body, headers=self.headers, timeout=60)
        except Exception as e:  # noqa: BLE001 (reported by the test)
            self.error = e
        self.answered_at = time.monotonic()


class TableLocks:
    """A psql session holding `ACCESS EXCLUSIVE` on tables of `schema` until `release`."""

    def __init__(self, url: str, schema: str, tables: list[str]):
        self.url, self.schema, self.tables = url, schema, tables
        self.process = subprocess.Popen(["psql", "-q", "-X", "-v", "ON_ERROR_STOP=1", url],
                                        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        names = ", ".join(f'"{schema}".{t}' for t in tables)
        self.process.stdin.write(f"BEGIN;\nLOCK TABLE {names} IN ACCESS EXCLUSIVE MODE;\n")
        self.process.stdin.flush()
        self.wait_for(lambda: self.count(granted=True) >= len(tables), "the locks were not taken")

    def count(self, granted: bool) -> int:
        sql = ("SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
               "JOIN pg_namespace n ON n.oid = c.relnamespace "
               f"WHERE n.nspname = '{self.schema}' AND c.relname IN ({', '.join(repr(t) for t in self.tables)}) "
               f"AND l.granted = {'true' if granted else 'false'}")
        out = subprocess.run(["psql", "-X", "-A", "-t", "-c", sql, self.url], capture_output=True, text=True, check=True)
        return int(out.stdout.strip())

    def wait_for(self, condition, failure: str, timeout: float = 10):
        deadline = time.monotonic() + timeout
        while not condition():
            assert self.process.poll() is None, f"psql ended: {self.process.stderr.read()}"
            assert time.monotonic() < deadline, failure
            time.sleep(0.05)

    def release(self):
        if self.process.poll() is None:
            self.process.stdin.write("COMMIT;\n")
            self.process.stdin.close()
            self.process.wait(timeout=10)


def measure(base: str, editor: Client, doc: str, count: int) -> tuple[list[float], list[float]]:
    """`count` round trips of /healthz and `count` edits of `doc`, alternating, each on its
    own keep-alive connection; every one must succeed."""
    health = requests.Session()
    health_times: list[float] = []
    edit_times: list[float] = []
    for i in range(count):
        start = time.perf_counter()
        r = health.get(base + "/healthz", timeout=10)
        health_times.append(time.perf_counter() - start)
        assert r.status_code == 200, describe(r)
        start = time.perf_counter()
        r = editor.post(f"/documents/{doc}/edits", {"insert": "x", "at": 0})
        edit_times.append(time.perf_counter() - start)
        assert r.status_code == 200, describe(r)
    return health_times, edit_times


def figures(name: str, times: list[float]) -> str:
    ordered = sorted(times)
    return (f"{name}: {len(times)}, p50 {ordered[len(ordered) // 2] * 1000:.2f} ms, "
            f"p99 {p99(times) * 1000:.2f} ms, max {ordered[-1] * 1000:.2f} ms")


def test_the_loop_answers_while_store_work_is_slow(servers):
    env = {} if ON_POSTGRES else {"TANDEM_FAULT_SLOW_VERSION_READS": str(SQLITE_SLOW)}
    srv = servers(name="slow-store", extra_args=("--event-loops", "1"), env=env)
    base = srv.base
    ada = new_session(base, "Ada")
    slow_doc = ada.create_doc("slow", title="slowed")["id"]
    fast_doc = ada.create_doc("", title="measured")["id"]
    editor = Client(base, token=ada.token, session=ada.session)

    def own_connection() -> Client:
        return Client(base, token=ada.token, session=ada.session)

    locks: TableLocks | None = None
    if ON_POSTGRES:
        # A version to read, saved before the lock (a save would wait on the writer).
        r = ada.post(f"/documents/{slow_doc}/save", {})
        assert r.status_code == 201, describe(r)
    measure(base, editor, fast_doc, WARM_UP)

    try:
        if ON_POSTGRES:
            locks = TableLocks(os.environ["TANDEM_TEST_DATABASE_URL"], srv.schema, ["idempotency_keys", "versions"])
            slowed = [
                Pending(own_connection(), "POST", f"/documents/{slow_doc}/edits", {"insert": "kept ", "at": 0},
                        headers={"Idempotency-Key": "slow-claim"}),
                Pending(own_connection(), "GET", f"/documents/{slow_doc}/versions"),
                Pending(own_connection(), "GET", f"/documents/{slow_doc}/versions/1/text"),
            ]
        else:
            slowed = [
                Pending(own_connection(), "POST", f"/documents/{slow_doc}/save", {}),
                Pending(own_connection(), "GET", f"/documents/{slow_doc}/versions"),
            ]
        fired = time.monotonic()
        for p in slowed:
            p.start()
            time.sleep(0.1)  # in this order: the list comes after the save
        if locks is not None:
            # The claim and a version read are waiting for the locks in the database.
            locks.wait_for(lambda: locks.count(granted=False) >= 2, "the slowed requests never reached the locked tables")
        else:
            time.sleep(0.3)

        # Up to ROUNDS rounds, the first that meets the goal counts: this machine's other
        # work may slow one round, but a loop that waited on the store would fail every one.
        rounds: list[tuple[list[float], list[float]]] = []
        for _ in range(ROUNDS):
            rounds.append(measure(base, editor, fast_doc, MEASURED))
            if max(p99(rounds[-1][0]), p99(rounds[-1][1])) <= GOAL:
                break
        measured_for = time.monotonic() - fired
        waiting = [p for p in slowed if p.is_alive()]
        for i, (health_times, edit_times) in enumerate(rounds):
            print(f"\n{'postgres' if ON_POSTGRES else 'sqlite'} round {i + 1}: {figures('/healthz', health_times)}; "
                  f"{figures('edits', edit_times)}")
        print(f"slowed requests still waiting after {measured_for:.1f} s: {len(waiting)} of {len(slowed)}")
        # The measurement ran while every slowed request waited: otherwise it proves nothing.
        assert len(waiting) == len(slowed), [(p.method, p.path, p.response and describe(p.response)) for p in slowed]
        health_times, edit_times = min(rounds, key=lambda r: max(p99(r[0]), p99(r[1])))
        print(f"goal {GOAL * 1000:.0f} ms p99 {'met' if max(p99(health_times), p99(edit_times)) <= GOAL else 'missed'}: "
              f"{figures('/healthz', health_times)}; {figures('edits', edit_times)}")
        assert p99(health_times) <= BOUND, figures("/healthz", health_times)
        assert p99(edit_times) <= BOUND, figures("edits", edit_times)
    finally:
        if locks is not None:
            locks.release()

    for p in slowed:
        p.join(timeout=60)
        assert not p.is_alive() and p.error is None, (p.method, p.path, p.error)
    # The slowed requests complete correctly once the store answers.
    answers = [p.response for p in slowed]
    if ON_POSTGRES:
        edit, listed, text = answers
        assert edit.status_code == 200, describe(edit)
        assert listed.status_code == 200 and [v["number"] for v in listed.json()] == [1], describe(listed)
        assert text.status_code == 200 and text.text == "slow", describe(text)
        # The key was claimed and answered: a resend is the same answer, replayed, not applied twice.
        again = own_connection().post(f"/documents/{slow_doc}/edits", {"insert": "kept ", "at": 0},
                                      headers={"Idempotency-Key": "slow-claim"})
        assert again.status_code == 200 and again.headers.get("Idempotent-Replayed") == "true", describe(again)
        assert again.json() == edit.json()
        assert ada.text(slow_doc) == "kept slow"
    else:
        save, listed = answers
        assert save.status_code == 201 and save.json()["number"] == 1, describe(save)
        assert listed.status_code == 200 and [v["number"] for v in listed.json()] == [1], describe(listed)
    assert ada.text(fast_doc) == "x" * (WARM_UP + MEASURED * len(rounds))
