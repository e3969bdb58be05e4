"""Issue 28, scenario by scenario: owner links, transfer, revocation ending event streams,
private documents leaking nothing, `--default-access`, the document's `access`/`owner`/
`role`/`canEdit`, and the 401s of bad links and keys. The whole table of who may do what is
`test_access_matrix.py`."""

from __future__ import annotations

import contextlib

import statistics
import time
import uuid

import pytest
import requests

import access_model as am
from sse import SSEStream
from tandem_client import Client, assert_error, describe, new_session, unique
from tandem_server import ADMIN_KEY

OPERATOR = {"Tandem-Admin-Key": ADMIN_KEY}


@pytest.fixture
def abase(access_server) -> str:
    return access_server.base


def session(base, name) -> Client:
    return new_session(base, name, as_owner=False)


def anonymous(base) -> Client:
    return Client(base, as_owner=False)


def link_client(base, token) -> Client:
    c = Client(base, as_owner=False)
    c.http.headers["Tandem-Link"] = token
    return c


def create(client: Client, access: str, text: str = "some text") -> dict:
    r = client.post("/documents", {"id": unique("acc"), "text": text, "access": access})
    assert r.status_code == 201, describe(r)
    return r.json()


def grant(owner: Client, doc_id: str, who: Client, role: str):
    r = owner.put(f"/documents/{doc_id}/members/{who.id}", {"role": role})
    assert r.status_code == 200, describe(r)
    return r.json()


def new_link(owner: Client, doc_id: str, role: str, **extra) -> dict:
    r = owner.post(f"/documents/{doc_id}/links", {"role": role, **extra})
    assert r.status_code == 201, describe(r)
    return r.json()


def stream_ends(s: SSEStream, within: float) -> float | None:
    """Seconds until the server closed the stream, or None if it stayed open `within` s."""
    start = time.monotonic()
    while True:
        left = within - (time.monotonic() - start)
        if left <= 0:
            return None
        try:
            s.next_event(timeout=left)
        except ConnectionError:
            return time.monotonic() - start
        except TimeoutError:
            return None


# --- owner links and ownership -----------------------------------------------------------

def test_the_owner_link_is_shown_once_and_outlives_the_session_that_made_it(abase):
    ada, bob = session(abase, "Ada"), session(abase, "Bob")
    d = create(ada, "private")
    token = d["ownerLink"]["token"]
    assert d["owner"] == ada.id and d["ownerLink"]["role"] == "owner"
    # Shown once: never again, not in the access list, not in the document.
    access = ada.get(f"/documents/{d['id']}/access")
    assert access.status_code == 200, describe(access)
    assert token not in access.text and "token" not in access.text, access.text
    for link in access.json()["links"]:
        assert set(link) <= {"id", "role", "created", "expires", "revoked"}, link
    again = ada.get(f"/documents/{d['id']}")
    assert token not in again.text and "ownerLink" not in again.json()
    # The creating session ends; the link still acts as the owner.
    assert ada.delete("/sessions/me").status_code == 204
    owner = link_client(abase, token)
    doc = owner.get(f"/documents/{d['id']}")
    assert doc.status_code == 200 and doc.json()["role"] == "owner", describe(doc)
    assert owner.put(f"/documents/{d['id']}/members/{bob.id}", {"role": "editor"}).status_code == 200
    assert bob.get(f"/documents/{d['id']}").json()["role"] == "editor"
    r = owner.patch(f"/documents/{d['id']}", {"access": "locked"})
    assert r.status_code == 200 and r.json()["access"] == "locked", describe(r)
    # In the URL too, as a browser opens a link.
    r = anonymous(abase).get(f"/documents/{d['id']}/access", params={"link": token})
    assert r.status_code == 200, describe(r)
    r = owner.delete(f"/documents/{d['id']}")
    assert r.status_code == 204, describe(r)


def test_ownership_is_transferred_by_the_owner(abase):
    ada, bob, eve = session(abase, "Ada"), session(abase, "Bob"), session(abase, "Eve")
    d = create(ada, "locked")
    path = f"/documents/{d['id']}"
    assert_error(eve.patch(path, {"owner": eve.id}), 403, "forbidden")
    assert_error(ada.patch(path, {"owner": "no-such-session"}), 422, "unknown_session")
    r = ada.patch(path, {"owner": bob.id})
    assert r.status_code == 200 and r.json()["owner"] == bob.id, describe(r)
    assert bob.get(path).json()["role"] == "owner"
    assert ada.get(path).json()["role"] is None
    assert bob.get(path + "/access").json()["owner"] == bob.id
    # Ada is now a caller like any other in a locked document.
    assert_error(ada.patch(path, {"access": "open"}), 403, "forbidden")
    assert_error(ada.post(path + "/edits", {"insert": "x", "at": 0}), 403, "read_only")
    assert_error(ada.get(path + "/access"), 403, "forbidden")
    r = bob.patch(path, {"access": "open"})
    assert r.status_code == 200 and r.json()["access"] == "open", describe(r)


# --- revocation ends event streams ----------------------------------------------------------

def test_revoking_a_member_ends_its_stream_on_a_private_document(abase):
    ada, bob = session(abase, "Ada"), session(abase, "Bob")
    d = create(ada, "private")
    grant(ada, d["id"], bob, "viewer")
    with SSEStream(abase, f"/documents/{d['id']}/events", headers={"Authorization": f"Bearer {bob.token}"}) as s:
        assert s.status == 200
        ada.insert(d["id"], "seen ", 0)
        assert "seen" in s.next_change(timeout=5).data
        assert ada.delete(f"/documents/{d['id']}/members/{bob.id}").status_code == 204
        took = stream_ends(s, within=2)
        assert took is not None, "the revoked viewer's stream stayed open"
    assert_error(bob.get(f"/documents/{d['id']}"), 404, "not_found")


def test_revoking_a_member_of_a_readable_document_keeps_its_stream(abase):
    ada, bob = session(abase, "Ada"), session(abase, "Bob")
    d = create(ada, "locked")
    grant(ada, d["id"], bob, "editor")
    with SSEStream(abase, f"/documents/{d['id']}/events", headers={"Authorization": f"Bearer {bob.token}"}) as s:
        assert s.status == 200
        assert ada.delete(f"/documents/{d['id']}/members/{bob.id}").status_code == 204
        assert stream_ends(s, within=1.5) is None, "a reader's stream ended though it may still read"
        ada.insert(d["id"], "still here ", 0)
        assert "still here" in s.next_change(timeout=5).data


def test_readers_hear_an_access_event_when_the_owner_changes_the_rules(abase):
    ada, bob = session(abase, "Ada"), session(abase, "Bob")
    d = create(ada, "open")
    with SSEStream(abase, f"/documents/{d['id']}/events", headers={"Authorization": f"Bearer {bob.token}"}) as s:
        assert s.status == 200
        assert ada.patch(f"/documents/{d['id']}", {"access": "locked"}).status_code == 200
        events = []
        deadline = time.monotonic() + 5
        while not any(e.type == "access" for e in events) and time.monotonic() < deadline:
            events.append(s.next_event(timeout=deadline - time.monotonic()))
        access = [e for e in events if e.type == "access"]
        assert len(access) == 1 and access[0].json() == {"access": "locked", "owner": ada.id}
        # What it tells the reader to ask for: its role now.
        doc = bob.get(f"/documents/{d['id']}").json()
        assert (doc["role"], doc["canEdit"]) == (None, False)
        grant(ada, d["id"], bob, "editor")
        e = s.next_event(timeout=5)
        while e.type != "access":
            e = s.next_event(timeout=5)
        assert e.json() == {"access": "locked", "owner": ada.id}
        doc = bob.get(f"/documents/{d['id']}").json()
        assert (doc["role"], doc["canEdit"]) == ("editor", True)


def test_revoking_a_link_ends_the_streams_opened_with_it(abase):
    ada = session(abase, "Ada")
    for access in ("private", "locked"):
        d = create(ada, access)
        link = new_link(ada, d["id"], "viewer")
        with SSEStream(abase, f"/documents/{d['id']}/events?link={link['token']}") as s:
            assert s.status == 200
            ada.insert(d["id"], "seen ", 0)
            assert "seen" in s.next_change(timeout=5).data
            assert ada.delete(f"/documents/{d['id']}/links/{link['id']}").status_code == 204
            assert stream_ends(s, within=2) is not None, f"{access}: the stream of a revoked link stayed open"
        assert_error(anonymous(abase).get(f"/documents/{d['id']}", params={"link": link["token"]}), 401, "invalid_link")


# --- private documents leak nothing ----------------------------------------------------------

def _same_as_unknown(client: Client, method: str, doc_id: str, suffix: str, body=None):
    unknown = "acc-" + uuid.uuid4().hex[:len(doc_id) - 4] if len(doc_id) > 4 else "zz"
    a = client.request(method, f"/documents/{doc_id}{suffix}", json_body=body)
    b = client.request(method, f"/documents/{unknown}{suffix}", json_body=body)
    assert a.status_code == b.status_code == 404, (describe(a), describe(b))
    assert a.headers.get("Content-Type") == b.headers.get("Content-Type")
    assert a.text.replace(doc_id, "<id>") == b.text.replace(unknown, "<id>"), (a.text, b.text)
    assert_error(a, 404, "not_found")


def test_a_private_document_answers_as_an_unknown_id(abase):
    ada = session(abase, "Ada")
    d = create(ada, "private", "the secret plan")
    for caller in (anonymous(abase), session(abase, "Eve")):
        for method, suffix, body in (("GET", "", None), ("GET", "/text", None), ("PATCH", "", {"title": "x"}),
                                     ("DELETE", "", None), ("POST", "/edits", {"insert": "x", "at": 0}),
                                     ("GET", "/history", None), ("GET", "/access", None),
                                     ("POST", "/undo?scope=document", None), ("GET", "/versions", None)):
            _same_as_unknown(caller, method, d["id"], suffix, body)
    assert ada.text(d["id"]) == "the secret plan"


def test_a_private_document_is_not_listed_nor_in_metrics_nor_in_other_streams(abase):
    ada, eve = session(abase, "Ada"), session(abase, "Eve")
    secret = f"secret-{uuid.uuid4().hex[:6]}"
    private = create(ada, "private", secret)
    public = create(ada, "open", "public text")
    for c in (anonymous(abase), eve):
        listed = c.get("/documents")
        assert listed.status_code == 200
        assert private["id"] not in listed.text and secret not in listed.text
    with SSEStream(abase, f"/documents/{public['id']}/events") as s, \
            SSEStream(abase, f"/documents/{public['id']}/events", headers={"Authorization": f"Bearer {eve.token}"}) as s2:
        assert s.status == s2.status == 200
        # Ada works in the private document: edits, a selection, a rename, undo, a save.
        ada.insert(private["id"], secret + "!", 0)
        assert ada.put(f"/documents/{private['id']}/selection", {"anchor": 0, "head": 3}).status_code == 200
        assert ada.patch(f"/documents/{private['id']}", {"title": secret}).status_code == 200
        assert ada.undo(private["id"]).status_code == 200
        assert ada.post(f"/documents/{private['id']}/save").status_code == 201
        eve.get(f"/documents/{private['id']}")
        marker = f"marker-{uuid.uuid4().hex[:6]}"
        ada.insert(public["id"], marker, 0)
        for stream in (s, s2):
            seen = []
            while True:
                ev = stream.next_event(timeout=5)
                seen.append(ev.data)
                if ev.type == "change" and marker in ev.data:
                    break
            text = "\n".join(seen) + "\n".join(stream.comments)
            assert private["id"] not in text and secret not in text, text
    metrics = requests.get(abase + "/metrics", timeout=10).text
    assert private["id"] not in metrics and secret not in metrics


def test_a_private_id_answers_404_as_fast_as_an_unknown_one(abase):
    """The median of 200 interleaved `GET /documents/{id}` for a private id and for an id
    nobody used differ by less than 1 ms (anonymous caller, one keep-alive connection)."""
    ada = session(abase, "Ada")
    d = create(ada, "private", "x" * 10_000)
    probe = requests.Session()
    known, unknown = [], []
    for i in range(220):
        for doc_id, sink in ((d["id"], known), (f"acc-nobody-{uuid.uuid4().hex[:8]}", unknown)):
            t = time.perf_counter()
            r = probe.get(f"{abase}/documents/{doc_id}", timeout=10)
            elapsed = time.perf_counter() - t
            assert r.status_code == 404
            if i >= 20:  # the first ones warm the connection up
                sink.append(elapsed)
    a, b = statistics.median(known), statistics.median(unknown)
    print(f"404 medians: private {a * 1000:.3f} ms, unknown {b * 1000:.3f} ms")
    assert abs(a - b) < 0.001, f"median private {a * 1000:.3f} ms vs unknown {b * 1000:.3f} ms"


# --- the server's default mode ---------------------------------------------------------------

def test_default_access_flag_makes_new_documents_private(servers):
    srv = servers(name="private-default", extra_args=("--default-access", "private"))
    ada = session(srv.base, "Ada")
    r = ada.post("/documents", {"id": unique("acc"), "text": "mine"})
    assert r.status_code == 201, describe(r)
    d = r.json()
    assert d["access"] == "private"
    assert ada.get(f"/documents/{d['id']}").json()["access"] == "private"
    assert_error(anonymous(srv.base).get(f"/documents/{d['id']}"), 404, "not_found")
    assert_error(session(srv.base, "Eve").get(f"/documents/{d['id']}"), 404, "not_found")
    assert d["id"] not in anonymous(srv.base).get("/documents").text
    # An explicit mode still wins.
    assert create(ada, "open")["access"] == "open"


def test_without_the_flag_new_documents_are_open(access_server):
    d = anonymous(access_server.base).post("/documents", {"id": unique("acc")}).json()
    assert d["access"] == "open" and d["owner"] is None


# --- the document as each caller sees it -----------------------------------------------------

def test_the_document_shows_each_caller_its_role(abase):
    owner, other, viewer, editor = (session(abase, n) for n in ("Owner", "Other", "Viewer", "Editor"))
    failures = []
    for mode in am.MODES:
        d = create(owner, mode)
        grant(owner, d["id"], viewer, "viewer")
        grant(owner, d["id"], editor, "editor")
        # A viewer link only where it means something (locked, private): elsewhere its
        # holder would edit like everyone, so it is refused (test_viewer_links_...).
        viewer_link = link_client(abase, new_link(owner, d["id"], "viewer")["token"]) if mode in ("locked", "private") else None
        editor_link = link_client(abase, new_link(owner, d["id"], "editor")["token"])
        operator = anonymous(abase)
        operator.http.headers.update(OPERATOR)
        callers = {
            "anonymous": (anonymous(abase), am.CALLER["anonymous"]),
            "other": (other, am.CALLER["other"]),
            "viewer": (viewer, am.CALLER["viewer"]),
            "editor": (editor, am.CALLER["editor"]),
            "owner": (owner, am.CALLER["owner"]),
            "operator": (operator, am.CALLER["operator"]),
            "viewer link": (viewer_link, am.Caller("viewer link", "viewer", False)),
            "editor link": (editor_link, am.Caller("editor link", "editor", False)),
        }
        for name, (client, c) in callers.items():
            if client is None:
                continue
            r = client.get(f"/documents/{d['id']}")
            if not am.may_read(mode, c):
                if r.status_code != 404:
                    failures.append(f"{mode}/{name}: expected 404, got {describe(r)}")
                continue
            if r.status_code != 200:
                failures.append(f"{mode}/{name}: {describe(r)}")
                continue
            doc = r.json()
            want = {"access": mode, "owner": owner.id, "role": c.role, "canEdit": am.can_edit(mode, c)}
            got = {k: doc.get(k, "<missing>") for k in want}
            if got != want:
                failures.append(f"{mode}/{name}: {got} != {want}")
    assert not failures, "\n".join(failures)


def test_a_viewer_link_is_refused_where_the_address_lets_its_holder_edit_and_the_mode_stays_where_viewer_links_work(abase):
    ada = session(abase, "Ada")
    for mode in ("open", "editable"):
        d = create(ada, mode)
        with unchanged_access(ada, d["id"]):
            assert_error(ada.post(f"/documents/{d['id']}/links", {"role": "viewer"}), 409, "link_grants_less")
        # Editor and owner links are made in every mode.
        for role in ("editor", "owner"):
            assert ada.post(f"/documents/{d['id']}/links", {"role": role}).status_code == 201
    d = create(ada, "locked")
    link = new_link(ada, d["id"], "viewer")
    for mode in ("open", "editable"):
        with unchanged_access(ada, d["id"]):
            assert_error(ada.patch(f"/documents/{d['id']}", {"access": mode}), 409, "viewer_links_work")
    # Private keeps what a viewer link means; once it is revoked, open is fine.
    assert ada.patch(f"/documents/{d['id']}", {"access": "private"}).status_code == 200
    assert ada.delete(f"/documents/{d['id']}/links/{link['id']}").status_code == 204
    assert ada.patch(f"/documents/{d['id']}", {"access": "open"}).json()["access"] == "open"
    # An expired viewer link does not hold the mode either.
    e = create(ada, "locked")
    assert ada.post(f"/documents/{e['id']}/links", {"role": "viewer", "expiresIn": 1}).status_code == 201
    time.sleep(1.2)
    assert ada.patch(f"/documents/{e['id']}", {"access": "editable"}).json()["access"] == "editable"


@contextlib.contextmanager
def unchanged_access(client, doc_id):
    before = client.get(f"/documents/{doc_id}/access").json()
    yield
    assert client.get(f"/documents/{doc_id}/access").json() == before


def test_a_viewer_may_read_but_not_edit(abase):
    ada, bob = session(abase, "Ada"), session(abase, "Bob")
    d = create(ada, "locked", "abc")
    grant(ada, d["id"], bob, "viewer")
    assert bob.text(d["id"]) == "abc"
    for r in (bob.post(f"/documents/{d['id']}/edits", {"insert": "x", "at": 0}),
              bob.request("PUT", f"/documents/{d['id']}/text", data=b"new", headers={"Content-Type": "text/plain"}),
              anonymous(abase).post(f"/documents/{d['id']}/edits", {"insert": "x", "at": 0})):
        assert_error(r, 403, "read_only")
    assert ada.text(d["id"]) == "abc"
    e = create(ada, "editable", "abc")
    assert_error(anonymous(abase).post(f"/documents/{e['id']}/edits", {"insert": "x", "at": 0}), 403, "read_only")
    assert bob.post(f"/documents/{e['id']}/edits", {"insert": "x", "at": 0}).status_code == 200


# --- bad links and keys -------------------------------------------------------------------------

def test_a_garbage_or_foreign_link_grants_nothing(abase):
    ada = session(abase, "Ada")
    d = create(ada, "open")
    p = create(ada, "private")
    for r in (anonymous(abase).get(f"/documents/{d['id']}", headers={"Tandem-Link": "garbage"}),
              anonymous(abase).get(f"/documents/{d['id']}", params={"link": "garbage"}),
              anonymous(abase).get(f"/documents/{p['id']}", headers={"Tandem-Link": "garbage"}),
              ada.get(f"/documents/{d['id']}", headers={"Tandem-Link": "x" * 43})):
        assert_error(r, 401, "invalid_link")
    # A link of another document is valid, and grants nothing here.
    foreign = link_client(abase, new_link(ada, d["id"], "editor")["token"])
    assert_error(foreign.get(f"/documents/{p['id']}"), 404, "not_found")
    l = create(ada, "locked", "abc")
    assert_error(foreign.post(f"/documents/{l['id']}/edits", {"insert": "x", "at": 0}), 403, "read_only")
    assert foreign.post(f"/documents/{d['id']}/edits", {"insert": "x", "at": 0}).status_code == 200


def test_an_expired_link_is_refused(abase):
    ada = session(abase, "Ada")
    d = create(ada, "private")
    link = new_link(ada, d["id"], "editor", expiresIn=1)
    c = link_client(abase, link["token"])
    assert c.get(f"/documents/{d['id']}").status_code == 200
    time.sleep(1.3)
    assert_error(c.get(f"/documents/{d['id']}"), 401, "invalid_link")
    # 1 to 31,536,000 seconds, an integer: anything else is a bad field, and makes no link.
    links = len(ada.get(f"/documents/{d['id']}/access").json()["links"])
    for bad in (0, 31_536_001, -5, 1.5):
        assert_error(ada.post(f"/documents/{d['id']}/links", {"role": "editor", "expiresIn": bad}), 400, "invalid_field")
    assert_error(ada.post(f"/documents/{d['id']}/links", {"role": "owner-ish"}), 400, "invalid_field")
    assert len(ada.get(f"/documents/{d['id']}/access").json()["links"]) == links


def test_a_wrong_admin_key_is_401(abase, base):
    for b in (abase, base):
        for key in ("wrong", ADMIN_KEY + "x", ""):
            r = requests.get(b + "/documents", headers={"Tandem-Admin-Key": key}, timeout=10)
            assert_error(r, 401, "invalid_admin_key")
    # The shared server has no key at all: even the right one is refused there.
    assert_error(requests.get(base + "/documents", headers=OPERATOR, timeout=10), 401, "invalid_admin_key")
    assert requests.get(abase + "/documents", headers=OPERATOR, timeout=10).status_code == 200
