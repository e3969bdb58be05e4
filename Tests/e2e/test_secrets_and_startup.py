"""Issue 38: secrets stay secret (never in the log, never replayed to another anonymous
client), one server per port and per data folder, `--admin-key` with entropy, `/healthz`
failing while a document's write fails, and dead share links leaving the 100-link cap."""

from __future__ import annotations

import subprocess
import time

import pytest
import requests

from tandem_client import Client, assert_error, describe, new_session, unique
from tandem_server import ADMIN_KEY, TandemServer, binary_path, free_port
from test_storage_failure import _edit_until_the_store_fails, small_disk_server  # noqa: F401 (a fixture)

STRONG_KEY = "k3y-Wz9!q7Lm2Rp5"


def run_serve(*args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run([str(binary_path()), "serve", "--host", "127.0.0.1", *args],
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


@pytest.mark.one_node("reads the one process's log")
def test_link_tokens_bearer_tokens_and_the_operator_key_never_reach_the_log_even_at_trace(servers):
    srv = servers(name="redaction", extra_args=("--log-level", "trace", "--admin-key", STRONG_KEY))
    ada = new_session(srv.base, "Ada")
    created = requests.post(f"{srv.base}/documents", json={"text": "secret"}, timeout=10)
    assert created.status_code == 201, describe(created)
    doc_id, owner_token = created.json()["id"], created.json()["ownerLink"]["token"]
    link = ada.post(f"/documents/{doc_id}/links", {"role": "editor"}, headers={"Tandem-Link": owner_token})
    assert link.status_code == 201, describe(link)
    link_token = link.json()["token"]
    for r in (
        requests.get(f"{srv.base}/documents/{doc_id}?link={link_token}", timeout=10),
        requests.get(f"{srv.base}/documents/{doc_id}?x=1&link={owner_token}", timeout=10),
        requests.get(f"{srv.base}/documents/{doc_id}", headers={"Tandem-Link": link_token}, timeout=10),
        requests.get(f"{srv.base}/documents", headers={"Tandem-Admin-Key": STRONG_KEY}, timeout=10),
        requests.get(f"{srv.base}/documents?link=l_wrong.guess", timeout=10),
    ):
        assert r.status_code in (200, 401), describe(r)
    srv.stop()  # flushes the log
    log = srv.log_path.read_text(errors="replace")
    assert f"/documents/{doc_id}?link=REDACTED" in log, "the access log did not log the request at all"
    for secret in (owner_token, link_token, STRONG_KEY, ada.token, "l_wrong.guess"):
        assert secret not in log, f"a secret is in the log: {secret[:6]}…"


def test_an_anonymous_replay_of_an_answer_holding_an_owner_link_is_409_without_the_token(access_server):
    base = access_server.base
    key = f"create-{unique()}"
    title = unique("title")
    first = requests.post(f"{base}/documents", json={"text": "mine", "title": title},
                          headers={"Idempotency-Key": key}, timeout=10)
    assert first.status_code == 201, describe(first)
    token = first.json()["ownerLink"]["token"]
    # Another anonymous client with the same (guessable) key.
    second = requests.post(f"{base}/documents", json={"text": "mine", "title": title},
                           headers={"Idempotency-Key": key}, timeout=10)
    assert_error(second, 409, "idempotent_answer_withheld")
    assert token not in second.text
    # Anonymous documents are nobody's to list: the operator's list is the one with every document.
    listed = requests.get(f"{base}/documents", headers={"Tandem-Admin-Key": ADMIN_KEY}, timeout=10).json()
    assert sum(1 for d in listed if d.get("title") == title) == 1, "the resend made a second document"


def test_a_sessions_replay_still_carries_its_owner_link(base):
    ada = new_session(base, "Ada")
    key = f"create-{unique()}"
    first = ada.post("/documents", {"text": "mine"}, headers={"Idempotency-Key": key})
    assert first.status_code == 201, describe(first)
    again = ada.post("/documents", {"text": "mine"}, headers={"Idempotency-Key": key})
    assert again.status_code == 201, describe(again)
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert again.json()["ownerLink"]["token"] == first.json()["ownerLink"]["token"]


@pytest.mark.one_node("starts a second process on one node's port and data folder")
def test_a_second_server_on_the_same_data_folder_is_refused_and_exits_nonzero(servers):
    srv = servers(name="first-on-data")
    r = run_serve("--port", str(free_port()), "--data", str(srv.data))
    assert r.returncode != 0, r.stderr
    assert "in use by another tandem serve" in r.stderr, r.stderr
    assert requests.get(f"{srv.base}/healthz", timeout=10).status_code == 200


@pytest.mark.one_node("starts a second process on one node's port and data folder")
def test_a_second_server_on_the_same_port_is_refused_and_takes_no_traffic(servers, tmp_path):
    srv = servers(name="first-on-port", extra_args=("--event-loops", "2"))
    r = run_serve("--port", str(srv.port), "--data", str(tmp_path / "other"), "--event-loops", "2")
    assert r.returncode != 0, r.stderr
    assert "address already in use" in r.stderr, r.stderr
    # Every connection still reaches the first server: its documents are the ones listed.
    doc_id = Client(srv.base).create_doc("first")["id"]
    for _ in range(20):
        got = requests.get(f"{srv.base}/documents/{doc_id}", timeout=10)
        assert got.status_code == 200, describe(got)


@pytest.mark.parametrize("key", [" " * 16, "a" * 32, "ab" * 12, "abcdefg" * 3, "\t \n" * 8])
def test_an_operator_key_without_entropy_is_refused_at_start(tmp_path, key):
    r = run_serve("--port", str(free_port()), "--data", str(tmp_path), "--admin-key", key)
    assert r.returncode != 0, r.stderr
    assert "operator key" in r.stderr, r.stderr


def test_revoked_and_expired_links_do_not_count_toward_the_cap(base):
    ada = new_session(base, "Ada")
    doc_id = ada.create_doc("links")["id"]

    def make(**extra) -> requests.Response:
        return ada.post(f"/documents/{doc_id}/links", {"role": "editor", **extra})

    short = make(expiresIn=1)
    assert short.status_code == 201, describe(short)
    ids = []
    for _ in range(98):  # with the document's owner link and the short one: 100 working links
        r = make()
        assert r.status_code == 201, describe(r)
        ids.append(r.json()["id"])
    assert_error(make(), 409, "too_many_links")
    time.sleep(1.5)  # the short one has expired
    r = make()
    assert r.status_code == 201, describe(r)
    assert_error(make(), 409, "too_many_links")
    revoked = ada.delete(f"/documents/{doc_id}/links/{ids[0]}")
    assert revoked.status_code == 204, describe(revoked)
    r = make()
    assert r.status_code == 201, describe(r)
    assert_error(make(), 409, "too_many_links")
    listed = ada.get(f"/documents/{doc_id}/access").json()["links"]
    assert len(listed) <= 100, len(listed)


def test_healthz_is_failing_for_as_long_as_a_documents_last_write_failed(small_disk_server):  # noqa: F811
    srv = small_disk_server
    ada = new_session(srv.base, "Ada")
    anon = Client(srv.base)
    doc_id = anon.create_doc("disk")["id"]
    failed, _ = _edit_until_the_store_fails(srv, ada, doc_id, [])
    assert_error(failed, 503, "storage_failing")
    # Sampled while the document refuses changes: never `ok` in between.
    checked = 0
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        before = anon.doc(doc_id)["state"]
        health = requests.get(f"{srv.base}/healthz", timeout=10)
        after = anon.doc(doc_id)["state"]
        if before == after == "savingError":
            checked += 1
            assert health.status_code == 503 and health.json()["status"] == "failing", describe(health)
        time.sleep(0.1)
    assert checked > 0, "the document never stayed in savingError while /healthz was asked"
