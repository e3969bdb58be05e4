"""One node on PostgreSQL (issue 30, first step): `tandem serve --database URL` keeps every
durable thing in PostgreSQL, and a restart, graceful or `kill -9`, finds what was
acknowledged, undo histories included. Each server gets a schema of its own."""

from __future__ import annotations

import threading
import uuid

import pytest
import requests

from postgres_env import DATABASE, needs_postgres
from tandem_client import new_session, unique

pytestmark = needs_postgres()


@pytest.fixture
def pg_server(servers):
    schema = "e2e_" + uuid.uuid4().hex[:12]
    return servers(name=schema, extra_args=("--database", DATABASE, "--database-schema", schema))


def test_healthz_names_the_database(pg_server):
    r = requests.get(pg_server.base + "/healthz", timeout=10)
    assert r.status_code == 200
    assert (r.json()["database"], r.json()["store"]) == ("postgresql", "ok")


def test_edits_undo_and_saves_survive_a_restart(pg_server):
    ada, grace = new_session(pg_server.base, "Ada"), new_session(pg_server.base, "Grace")
    doc = unique("pg")
    assert ada.post("/documents", {"id": doc, "text": ""}).status_code == 201
    ada.insert(doc, "Hello from Ada. ", 0)
    grace.insert(doc, "Hi from Grace.", 16)
    assert grace.post(f"/documents/{doc}/history/groups").status_code == 200
    grace.insert(doc, " One.", 30)
    grace.insert(doc, " Two.", 35)
    assert grace.delete(f"/documents/{doc}/history/groups").status_code == 200
    assert ada.post(f"/documents/{doc}/save").status_code == 201
    assert ada.undo(doc).status_code == 200
    before = ada.get(f"/documents/{doc}").json()

    pg_server.restart()
    ada.base = grace.base = pg_server.base  # a new port: the store is what carries over

    after = ada.get(f"/documents/{doc}").json()
    assert after["text"] == before["text"] == "Hi from Grace. One. Two."
    assert after["revision"] == before["revision"]
    assert ada.get(f"/documents/{doc}/versions").json()[0]["number"] == 1
    # The undo histories came back from the journal stored in PostgreSQL.
    assert ada.history(doc)["canRedo"] is True
    assert grace.history(doc)["canUndo"] is True
    r = grace.undo(doc)
    assert r.status_code == 200, r.text
    assert grace.text(doc) == "Hi from Grace."
    assert ada.post(f"/documents/{doc}/redo").status_code == 200
    assert ada.text(doc) == "Hello from Ada. Hi from Grace."


def test_nothing_acknowledged_is_lost_to_a_kill(pg_server):
    doc = unique("pg-kill")
    writers = [new_session(pg_server.base, f"W{i}") for i in range(4)]
    assert writers[0].post("/documents", {"id": doc}).status_code == 201
    acknowledged: list[str] = []
    lock = threading.Lock()
    stop = threading.Event()

    def type_into(client, tag):
        n = 0
        while not stop.is_set():
            word = f"[{tag}{n}]"
            try:
                r = client.post(f"/documents/{doc}/edits", {"insert": word, "at": 0})
            except Exception:
                return
            if r.status_code != 200:
                return
            with lock:
                acknowledged.append(word)
            n += 1

    threads = [threading.Thread(target=type_into, args=(c, i)) for i, c in enumerate(writers)]
    for t in threads:
        t.start()
    while len(acknowledged) < 200:
        pass
    pg_server.kill()
    stop.set()
    for t in threads:
        t.join(timeout=15)
    pg_server.start()
    writers[0].base = pg_server.base
    text = writers[0].text(doc)
    missing = [w for w in acknowledged if w not in text]
    assert not missing, f"{len(missing)} acknowledged edits lost, e.g. {missing[:3]}"
    edits = writers[0].get(f"/documents/{doc}/edits", params={"since": 0}).json()
    assert [c["revision"] for c in edits] == list(range(1, len(edits) + 1))
