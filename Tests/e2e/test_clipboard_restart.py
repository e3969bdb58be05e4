"""Pasteboards and the store: persistent ones survive a restart or a crash with their items
and changeCount, others do not; a cut the store refuses leaves the pasteboard alone; and
the size limit answers 413 before the HTTP body limit does."""

from __future__ import annotations

import base64
import time

import pytest

from tandem_client import Client, assert_error, describe, new_session
from tandem_server import ON_POSTGRES, TandemServer
from test_storage_failure import RECOVERY_WAIT, _fill, small_disk_server  # noqa: F401 (a fixture)

PNG = bytes(range(256)) * 3  # arbitrary bytes; they must come back exactly
# The default representation limit (docs/API.md): the largest that still fits in the 8 MiB
# body limit as base64 inside JSON.
LIMIT = ((8 << 20) - 4096) // 4 * 3


def _pasteboard(client: Client, name: str) -> dict:
    r = client.get(f"/pasteboards/{name}")
    assert r.status_code == 200, describe(r)
    return r.json()


def _fill_pasteboards(srv: TandemServer) -> tuple[Client, dict]:
    """general with two items, a persistent named one with text and PNG, a transient one."""
    ada = new_session(srv.base, "Ada")
    items = [[{"type": "text/plain", "string": "héllo 😀"}, {"type": "text/html", "string": "<b>héllo</b>"}],
             [{"type": "image/png", "base64": base64.b64encode(PNG).decode()}]]
    r = ada.put("/pasteboards/general/items", items)
    assert r.status_code == 200, describe(r)
    r = ada.post("/pasteboards", {"name": "team-notes", "persistent": True})
    assert r.status_code == 201, describe(r)
    for _ in range(3):
        r = ada.request("POST", "/pasteboards/team-notes/items", data="a note".encode(),
                        headers={"Content-Type": "text/plain"})
        assert r.status_code == 200, describe(r)
    r = ada.request("POST", "/pasteboards/team-notes/items", data=PNG, headers={"Content-Type": "image/png"})
    assert r.status_code == 200, describe(r)
    r = ada.post("/pasteboards", {"name": "scratch"})
    assert r.status_code == 201, describe(r)
    assert ada.put("/pasteboards/scratch/items", [[{"type": "text/plain", "string": "gone"}]]).status_code == 200
    before = {name: _pasteboard(ada, name) for name in ("general", "team-notes")}
    return ada, before


@pytest.mark.timeout(60)
@pytest.mark.parametrize("stop", ["restart", "kill"])
def test_persistent_pasteboards_survive_and_others_do_not(servers, stop):
    srv = servers(name=f"pasteboards-{stop}")
    ada, before = _fill_pasteboards(srv)
    assert before["team-notes"]["changeCount"] == 4 and before["general"]["changeCount"] >= 1
    if stop == "kill":
        srv.kill()  # every write above was acknowledged, so it is on disk
        srv.start()
    else:
        srv.restart()
    anon = Client(srv.base)
    ada = Client(srv.base, token=ada.token, session=ada.session)  # the port is new
    for name, was in before.items():
        now = _pasteboard(ada, name)
        assert now["items"] == was["items"], name
        assert now["changeCount"] == was["changeCount"], name
        assert now["persistent"] is True
    # The bytes come back exactly, with their type.
    r = ada.get("/pasteboards/team-notes/items/3")
    assert r.status_code == 200 and r.content == PNG, describe(r)
    assert r.headers["X-Pasteboard-Type"] == "public.png"
    # Still Ada's alone.
    assert_error(anon.get("/pasteboards/team-notes/items/3"), 404)
    r = ada.get("/pasteboards/general/items/0")
    assert r.status_code == 200 and r.content.decode() == "héllo 😀", describe(r)
    if srv.on_postgres and ON_POSTGRES:
        # On PostgreSQL every node must find it, so it is stored: it goes with its owner's
        # session (docs/API.md), not with one node's process.
        r = ada.get("/pasteboards/scratch")
        assert r.status_code == 200 and r.json()["persistent"] is False, describe(r)
    else:
        # The transient one went with the process.
        assert_error(ada.get("/pasteboards/scratch"), 404)
    # Ada's token still works after the restart and she still owns her pasteboard.
    r = ada.patch("/pasteboards/team-notes", {"persistent": False, "shared": "everyone"})
    assert r.status_code == 200, describe(r)
    bob = new_session(srv.base, "Bob")
    assert_error(bob.delete("/pasteboards/team-notes"), 403, "not_owner")
    # Writing goes on counting from where it was.
    r = ada.request("PUT", "/pasteboards/general/items", data=b"next", headers={"Content-Type": "text/plain"})
    assert r.status_code == 200, describe(r)
    assert r.json()["changeCount"] == before["general"]["changeCount"] + 1


def test_a_pasteboard_copy_survives_kill_9(servers):
    """A copy onto general is acknowledged only once stored."""
    srv = servers(name="copy-kill")
    ada = new_session(srv.base, "Ada")
    doc_id = ada.create_doc("copy me please")["id"]
    r = ada.post(f"/documents/{doc_id}/copy", {"from": 0, "to": 7})
    assert r.status_code == 200, describe(r)
    count = r.json()["changeCount"]
    r = ada.post(f"/documents/{doc_id}/cut", {"from": 7, "to": 14})
    assert r.status_code == 200, describe(r)
    assert r.json()["changeCount"] == count + 1
    srv.kill()
    srv.start()
    ada = Client(srv.base, token=ada.token, session=ada.session)
    general = _pasteboard(ada, "general")
    assert general["changeCount"] == count + 1
    assert general["items"] == [[{"type": "public.utf8-plain-text", "string": " please"}]]
    assert ada.text(doc_id) == "copy me"


def test_an_item_beyond_the_size_limit_is_413_pasteboard_too_large(base):
    """The representation limit sits below the HTTP body limit (8 MiB by default), so the
    pasteboard's own 413 is what a client meets, for raw bytes and for base64 in JSON."""
    anon = Client(base)
    name = f"big-{time.monotonic_ns()}"
    ada = new_session(base, "Ada")
    assert ada.post("/pasteboards", {"name": name, "shared": "everyone"}).status_code == 201
    before = _pasteboard(anon, name)["changeCount"]
    big = b"\x89" * (7 << 20)  # under the body limit, over the pasteboard's
    err = assert_error(anon.request("PUT", f"/pasteboards/{name}/items", data=big,
                                    headers={"Content-Type": "image/png"}), 413, "pasteboard_too_large")
    assert "byte" in err["message"] or "large" in err["message"]
    # One byte over the limit is still a body that fits once base64-encoded in JSON.
    over = base64.b64encode(b"\x01" * (LIMIT + 1)).decode()
    assert_error(anon.put(f"/pasteboards/{name}/items", [[{"type": "image/png", "base64": over}]]), 413, "pasteboard_too_large")
    assert _pasteboard(anon, name)["changeCount"] == before
    # Exactly the limit goes in, raw and as base64.
    r = anon.request("PUT", f"/pasteboards/{name}/items", data=b"\x02" * LIMIT, headers={"Content-Type": "image/png"})
    assert r.status_code == 200, describe(r)
    at = base64.b64encode(b"\x03" * LIMIT).decode()
    r = anon.put(f"/pasteboards/{name}/items", [[{"type": "image/png", "base64": at}]])
    assert r.status_code == 200, describe(r)
    assert len(anon.get(f"/pasteboards/{name}/items/0").content) == LIMIT


def test_a_text_type_holding_bytes_that_are_not_utf8_is_served_as_bytes(base):
    anon = Client(base)
    name = f"bytes-{time.monotonic_ns()}"
    ada = new_session(base, "Ada")
    assert ada.post("/pasteboards", {"name": name}).status_code == 201
    items = [[{"type": "public.utf8-plain-text", "base64": base64.b64encode(b"\xfd\xfe").decode()}],
             [{"type": "public.utf8-plain-text", "string": "héllo"}],
             [{"type": "application/json", "base64": base64.b64encode(b"{\xff}").decode()}]]
    assert ada.put(f"/pasteboards/{name}/items", {"items": items}).status_code == 200
    raw = ada.get(f"/pasteboards/{name}/items/0")
    assert raw.status_code == 200 and raw.content == b"\xfd\xfe"
    assert raw.headers["Content-Type"] == "application/octet-stream", raw.headers
    assert raw.headers["X-Pasteboard-Type"] == "public.utf8-plain-text", raw.headers
    text = ada.get(f"/pasteboards/{name}/items/1")
    assert text.headers["Content-Type"] == "text/plain; charset=utf-8" and text.content == "héllo".encode()
    assert ada.get(f"/pasteboards/{name}/items/2").headers["Content-Type"] == "application/octet-stream"


@pytest.mark.timeout(120)
def test_a_cut_the_store_refuses_leaves_the_pasteboard_alone(small_disk_server):
    """Cuts onto a non-persistent pasteboard until the full disk refuses one: the refused cut
    (503) must leave the pasteboard exactly as the last acknowledged cut left it, with no
    event, and the document's actions then say cut and paste are unavailable."""
    srv = small_disk_server
    ada = new_session(srv.base, "Ada")
    # Distinct 4,000-character blocks: each cut takes one and carries it in its change.
    blocks = [f"{i:04d}" + "x" * 3996 for i in range(60)]
    doc_id = ada.create_doc("".join(blocks))["id"]
    r = ada.post("/pasteboards", {"name": "clip"})
    assert r.status_code == 201, describe(r)
    r = ada.request("PUT", "/pasteboards/clip/items", data=b"before", headers={"Content-Type": "text/plain"})
    assert r.status_code == 200, describe(r)
    count = r.json()["changeCount"]
    last = "before"

    filler = srv.data / "filler"
    _fill(filler)
    refused = None
    for i in range(len(blocks)):
        r = ada.post(f"/documents/{doc_id}/cut", {"from": 0, "to": 4000, "pasteboard": "clip"})
        if r.status_code == 503:
            refused = r
            break
        assert r.status_code == 200, describe(r)
        assert r.json()["changeCount"] == count + 1
        count += 1
        last = blocks[i]
    assert refused is not None, "the store never failed"
    assert_error(refused, 503)
    clip = _pasteboard(ada, "clip")
    assert clip["changeCount"] == count, "a refused cut changed the pasteboard"
    assert ada.get("/pasteboards/clip/items/0").text == last
    assert ada.doc(doc_id)["state"] == "savingError"

    r = ada.put(f"/documents/{doc_id}/selection", {"anchor": 0, "head": 3})
    assert r.status_code == 200, describe(r)
    actions = ada.get(f"/documents/{doc_id}/actions", params={"pasteboard": "clip"}).json()
    assert (actions["cut"], actions["paste"], actions["delete"]) == (False, False, False), actions
    assert actions["copy"] is True  # reading still works
    assert_error(ada.post(f"/documents/{doc_id}/cut", {"pasteboard": "clip"}), 503)
    assert _pasteboard(ada, "clip")["changeCount"] == count
    # Undo-state changes that cannot be stored are refused before they change anything.
    history = ada.history(doc_id)
    assert_error(ada.post(f"/documents/{doc_id}/history/groups"), 503)
    assert_error(ada.patch(f"/documents/{doc_id}/history", {"actionName": "Renamed"}), 503)
    assert_error(ada.delete(f"/documents/{doc_id}/history"), 503)
    assert ada.history(doc_id) == history

    filler.unlink()
    deadline = time.monotonic() + RECOVERY_WAIT
    while ada.doc(doc_id)["state"] != "normal":
        assert time.monotonic() < deadline, "no recovery"
        time.sleep(0.2)
    text = ada.text(doc_id)
    r = ada.post(f"/documents/{doc_id}/cut", {"from": 0, "to": 4, "pasteboard": "clip"})
    assert r.status_code == 200, describe(r)
    assert _pasteboard(ada, "clip")["changeCount"] == count + 1
    assert ada.get("/pasteboards/clip/items/0").text == text[:4]
