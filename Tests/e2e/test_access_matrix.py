"""Issue 28's table: every document route the server serves (read from its own
`/openapi.json`, so a new route cannot be missed) × every caller × every access mode, each
cell asserting the one status `access_model.py` derives from docs/API.md ("Access"), and,
when the request is refused, that the owner sees nothing changed.

A cell is one fresh document in the mode, owned by a session, with whatever the request
needs to succeed for its owner (an edit to undo, a saved version, an open group, a link, a
member). The callers: anonymous, another session, a viewer and an editor (members), the
owner, a revoked and an expired editor link (`Tandem-Link`), and the operator
(`Tandem-Admin-Key`). Cells run in parallel on one server; all failing cells of a mode are
reported in one assertion.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable

import pytest
import requests

import access_model as am
from tandem_server import ADMIN_KEY

WORKERS = 8
TEXT = "hello world"
# Cut, copy and paste go through a pasteboard everyone shares: what they may do to the
# document is this matrix's; whose a clipboard is, test_clipboard_privacy.py's.
TEAM_BOARD = "matrix-team"

# Every route of /openapi.json that names no document, with where it is checked.
# The user the owner shares with by name (`POST …/members`).
MATRIX_USER = "matrix-member"

NOT_DOCUMENT_ROUTES = {
    ("POST", "/sessions"), ("GET", "/sessions/me"), ("PATCH", "/sessions/me"), ("DELETE", "/sessions/me"),
    ("POST", "/sessions/me/renew"),
    ("DELETE", "/sessions/{}"), ("GET", "/users/me"), ("POST", "/users"), ("GET", "/accounts"),
    ("POST", "/documents"), ("GET", "/documents"),
    ("GET", "/pasteboards"), ("POST", "/pasteboards"), ("GET", "/pasteboards/events"),
    ("GET", "/pasteboards/{}"), ("PATCH", "/pasteboards/{}"), ("DELETE", "/pasteboards/{}"),
    ("PUT", "/pasteboards/{}/items"), ("POST", "/pasteboards/{}/items"), ("GET", "/pasteboards/{}/items/{}"),
    ("GET", "/healthz"), ("POST", "/ping"), ("GET", "/metrics"), ("GET", "/openapi.json"),
}


# --- the cases: one valid request per route (several where the class depends on it) ------

@dataclass(frozen=True)
class Case:
    method: str
    path: str                      # the template, as /openapi.json spells it
    variant: str = ""
    query: dict = field(default_factory=dict)       # values may name a cell parameter: "{group}"
    body: dict | Callable | None = None              # a dict, or params → dict
    raw: bytes | None = None                         # a text/plain body
    steps: tuple[str, ...] = ()                      # preconditions, see Matrix.step
    success: int = 200
    sse: bool = False
    pasteboard: bool = False                         # touches TEAM_BOARD: run one at a time

    @property
    def key(self):
        return am.template_key(self.method, self.path)

    @property
    def name(self):
        return f"{self.method} {self.path}" + (f" [{self.variant}]" if self.variant else "")


S, D = {"scope": "session"}, {"scope": "document"}
H = "/documents/{id}/history"
CASES: tuple[Case, ...] = (
    Case("GET", "/documents/{id}"),
    Case("DELETE", "/documents/{id}", success=204),
    Case("PATCH", "/documents/{id}", "title", body={"title": "Renamed"}),
    Case("PATCH", "/documents/{id}", "access", body=lambda p: {"access": p["other_mode"]}),
    Case("PATCH", "/documents/{id}", "owner", body=lambda p: {"owner": p["third"]}),
    Case("PATCH", "/documents/{id}", "secure", body={"secure": True}),
    Case("PATCH", "/documents/{id}", "editingDisabled", body={"editingDisabled": True}),
    Case("PATCH", "/documents/{id}", "levelsOfUndo", body={"levelsOfUndo": 7}),
    Case("GET", "/documents/{id}/text"),
    Case("PUT", "/documents/{id}/text", raw=b"replaced text"),
    Case("POST", "/documents/{id}/edits", body={"insert": "x", "at": 0}),
    Case("GET", "/documents/{id}/edits", query={"since": "0"}),
    Case("GET", "/documents/{id}/events", sse=True),
    Case("PUT", "/documents/{id}/selection", body={"anchor": 0, "head": 1}),
    Case("GET", "/documents/{id}/presence"),
    Case("POST", "/documents/{id}/undo", "scope=session", query=S, steps=("caller_edit",)),
    Case("POST", "/documents/{id}/undo", "scope=document", query=D, steps=("owner_edit",)),
    Case("POST", "/documents/{id}/undo", "default scope", steps=("owner_edit", "caller_edit")),
    Case("POST", "/documents/{id}/undo", "group=", query={"group": "{group}"}, steps=("owner_edit", "caller_edit")),
    Case("POST", "/documents/{id}/undo", "nested", query={"nested": "true"}, steps=("owner_edit", "caller_edit")),
    Case("POST", "/documents/{id}/redo", "scope=session", query=S, steps=("caller_edit", "caller_undo")),
    Case("POST", "/documents/{id}/redo", "scope=document", query=D, steps=("owner_edit", "owner_undo")),
    Case("GET", H, "scope=document", query=D),
    Case("GET", H, "scope=session", query=S),
    Case("PATCH", H, "scope=session levelsOfUndo", query=S, body={"levelsOfUndo": 5}),
    Case("PATCH", H, "scope=document actionName", query=D, body={"actionName": "Bold"}, steps=("owner_edit",)),
    Case("PATCH", H, "scope=document levelsOfUndo", query=D, body={"levelsOfUndo": 5}),
    Case("DELETE", H, "scope=session", query=S),
    Case("DELETE", H, "scope=document", query=D, steps=("owner_edit",)),
    Case("POST", "/documents/{id}/history/groups"),
    Case("DELETE", "/documents/{id}/history/groups", steps=("caller_group",)),
    Case("POST", "/documents/{id}/history/registration/disable"),
    Case("POST", "/documents/{id}/history/registration/enable", steps=("caller_disable",)),
    Case("POST", "/documents/{id}/save", success=201),
    Case("GET", "/documents/{id}/versions"),
    Case("GET", "/documents/{id}/versions/{n}/text", steps=("save",)),
    Case("GET", "/documents/{id}/versions/{n}/diff", steps=("save",)),
    Case("GET", "/documents/{id}/authorship"),
    Case("POST", "/documents/{id}/versions/{n}/revert", steps=("save", "owner_edit")),
    Case("PATCH", "/documents/{id}/versions/{n}", body={"name": "Named"}, steps=("save",)),
    Case("DELETE", "/documents/{id}/versions/{n}", steps=("save",), success=204),
    Case("POST", "/documents/{id}/cut", body={"from": 0, "to": 1, "pasteboard": TEAM_BOARD}, pasteboard=True),
    Case("POST", "/documents/{id}/copy", body={"from": 0, "to": 1, "pasteboard": TEAM_BOARD}, pasteboard=True),
    Case("POST", "/documents/{id}/paste", body={"from": 0, "to": 0, "pasteboard": TEAM_BOARD}, pasteboard=True),
    Case("POST", "/documents/{id}/delete", body={"from": 0, "to": 1}),
    Case("POST", "/documents/{id}/select", body={"from": 0, "to": 1}),
    Case("POST", "/documents/{id}/selectAll"),
    Case("GET", "/documents/{id}/actions"),
    Case("GET", "/documents/{id}/access"),
    Case("PUT", "/documents/{id}/members/{session}", body={"role": "viewer"}, steps=("third",)),
    Case("DELETE", "/documents/{id}/members/{session}", steps=("third_member",), success=204),
    Case("POST", "/documents/{id}/members", body={"user": MATRIX_USER, "role": "viewer"}),
    Case("POST", "/documents/{id}/links", body={"role": "editor"}, success=201),
    Case("DELETE", "/documents/{id}/links/{linkId}", steps=("link",), success=204),
)

OTHER_MODE = {"open": "locked", "editable": "private", "locked": "open", "private": "editable"}


# --- HTTP -------------------------------------------------------------------------------

_local = threading.local()


def _http() -> requests.Session:
    s = getattr(_local, "session", None)
    if s is None:
        s = _local.session = requests.Session()
    return s


def call(base, method, path, headers=None, body=None, raw=None, params=None, stream=False):
    h = dict(headers or {})
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        h["Content-Type"] = "application/json"
    elif raw is not None:
        data = raw
        h["Content-Type"] = "text/plain; charset=utf-8"
    return _http().request(method, base + path, headers=h, data=data, params=params, timeout=15,
                           stream=stream, allow_redirects=False)


def error_code(r) -> str | None:
    try:
        return r.json()["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return None


def brief(r) -> str:
    text = r.text if len(r.text) < 200 else r.text[:200] + "…"
    return f"{r.status_code} {text}"


class World:
    """The server and the sessions every cell shares."""

    def __init__(self, base: str):
        self.base = base
        self.sessions = {}
        for name in ("owner", "other", "viewer", "editor", "third"):
            r = requests.post(base + "/sessions", json={"name": f"matrix {name}"}, timeout=15)
            assert r.status_code == 201, brief(r)
            self.sessions[name] = r.json()
        r = call(base, "POST", "/pasteboards", self.auth("third"), body={"name": TEAM_BOARD, "shared": "everyone"})
        assert r.status_code == 201, brief(r)
        r = call(base, "PUT", f"/pasteboards/{TEAM_BOARD}/items", body=[[{"type": "text/plain", "string": "pasted"}]])
        assert r.status_code == 200, brief(r)

    def auth(self, name) -> dict:
        return {"Authorization": "Bearer " + self.sessions[name]["token"]}

    def sid(self, name) -> str:
        return self.sessions[name]["id"]


@pytest.fixture(scope="module")
def world(access_server) -> World:
    # The user `POST …/members` shares with, by name.
    from test_accounts import tandem_user
    made = tandem_user(access_server, "add", MATRIX_USER, password="matrix member password")
    assert made.returncode == 0 or "exists" in made.stderr, made.stderr
    return World(access_server.base)


# --- one cell ---------------------------------------------------------------------------

@dataclass
class Cell:
    case: Case
    mode: str
    caller: str
    doc: str = ""
    params: dict = field(default_factory=dict)
    headers: dict = field(default_factory=dict)
    expires_at: float = 0.0
    failures: list = field(default_factory=list)

    @property
    def where(self):
        return f"{self.case.name} / {self.mode} / {self.caller}"


class SetupError(Exception):
    pass


class Matrix:
    def __init__(self, world: World):
        self.w = world
        self.base = world.base
        self.pasteboard_lock = threading.Lock()

    def owner(self, cell, method, path, body=None, want=200, params=None):
        r = call(self.base, method, path.format(**cell.params), self.w.auth("owner"), body=body, params=params)
        if r.status_code != want:
            raise SetupError(f"setup {method} {path}: {brief(r)}")
        return r

    def as_caller(self, cell, method, path, body=None, params=None):
        return call(self.base, method, path.format(**cell.params), cell.headers, body=body, params=params)

    def step(self, cell: Cell, name: str):
        c = am.CALLER[cell.caller]
        if name == "owner_edit":
            r = self.owner(cell, "POST", "/documents/{id}/edits", {"insert": "o", "at": 0, "newGroup": True})
            cell.params.setdefault("group", r.json()["revision"])
        elif name == "owner_undo":
            self.owner(cell, "POST", "/documents/{id}/undo", params=S)
        elif name == "caller_edit" and c.session:
            # The caller's own change; refused where it may not edit (then so is what follows).
            r = self.as_caller(cell, "POST", "/documents/{id}/edits", {"insert": "c", "at": 0, "newGroup": True})
            if r.status_code == 200:
                cell.params["group"] = r.json()["revision"]
                cell.params["caller_edited"] = True
        elif name == "caller_undo" and cell.params.get("caller_edited"):
            r = self.as_caller(cell, "POST", "/documents/{id}/undo", params=S)
            if r.status_code != 200:
                raise SetupError(f"setup: the caller's own undo: {brief(r)}")
        elif name == "caller_group" and c.session:
            self.as_caller(cell, "POST", "/documents/{id}/history/groups")
        elif name == "caller_disable" and c.session:
            self.as_caller(cell, "POST", "/documents/{id}/history/registration/disable")
        elif name == "save":
            cell.params["n"] = self.owner(cell, "POST", "/documents/{id}/save", want=201).json()["number"]
        elif name == "third":
            cell.params["session"] = self.w.sid("third")
        elif name == "third_member":
            cell.params["session"] = self.w.sid("third")
            self.owner(cell, "PUT", "/documents/{id}/members/{session}", {"role": "viewer"})
        elif name == "link":
            cell.params["linkId"] = self.owner(cell, "POST", "/documents/{id}/links", {"role": "editor"}, want=201).json()["id"]

    def prepare(self, cell: Cell) -> Cell:
        try:
            self._prepare(cell)
        except SetupError as e:
            cell.failures.append(f"{cell.where}: {e}")
        except requests.RequestException as e:
            cell.failures.append(f"{cell.where}: setup: {e.__class__.__name__}: {e}")
        return cell

    def _prepare(self, cell: Cell):
        doc = f"m-{uuid.uuid4().hex[:12]}"
        cell.doc = doc
        cell.params.update(id=doc, other_mode=OTHER_MODE[cell.mode], third=self.w.sid("third"))
        self.owner(cell, "POST", "/documents", {"id": doc, "text": TEXT, "access": cell.mode}, want=201)
        caller = cell.caller
        if caller in ("viewer", "editor"):
            self.owner(cell, "PUT", "/documents/{id}/members/" + self.w.sid(caller), {"role": caller})
        if caller in ("other", "viewer", "editor", "owner"):
            cell.headers = self.w.auth(caller)
        elif caller == "operator":
            cell.headers = {"Tandem-Admin-Key": ADMIN_KEY}
        elif caller == "revoked_link":
            link = self.owner(cell, "POST", "/documents/{id}/links", {"role": "editor"}, want=201).json()
            self.owner(cell, "DELETE", "/documents/{id}/links/" + link["id"], want=204)
            cell.headers = {"Tandem-Link": link["token"]}
        for name in cell.case.steps:
            self.step(cell, name)
        cell.params.setdefault("group", 1)
        # No autosave may land between the snapshots: what the steps changed is saved now.
        if self.owner(cell, "GET", "/documents/{id}").json().get("hasUnsavedChanges"):
            self.owner(cell, "POST", "/documents/{id}/save", want=201)
        if caller == "expired_link":
            link = self.owner(cell, "POST", "/documents/{id}/links", {"role": "editor", "expiresIn": 1}, want=201).json()
            cell.expires_at = time.monotonic() + 1.25
            cell.headers = {"Tandem-Link": link["token"]}

    def snapshot(self, cell: Cell) -> dict:
        """The owner's view of everything a refused request must leave alone."""
        auth = self.w.auth("owner")
        d = f"/documents/{cell.doc}"
        views = {"document": (d, None), "history": (d + "/history", D), "access": (d + "/access", None),
                 "versions": (d + "/versions", None), "presence": (d + "/presence", None),
                 "edits": (d + "/edits", {"since": "0"})}
        if cell.case.pasteboard:
            views["team pasteboard"] = (f"/pasteboards/{TEAM_BOARD}", None)
        out = {}
        for name, (path, params) in views.items():
            r = call(self.base, "GET", path, auth, params=params)
            try:
                out[name] = (r.status_code, r.json())
            except ValueError:
                out[name] = (r.status_code, r.text)
        return out

    def request(self, cell: Cell, doc: str | None = None):
        case = cell.case
        params = dict(cell.params, id=doc or cell.doc)
        path = case.path.format(**params)
        query = {k: str(v).format(**params) for k, v in case.query.items()} or None
        body = case.body(params) if callable(case.body) else case.body
        headers = dict(cell.headers)
        if case.sse:
            headers["Accept"] = "text/event-stream"
            r = call(self.base, case.method, path, headers, params=query, stream=True)
            if r.status_code < 400:
                r.close()
            return r
        return call(self.base, case.method, path, headers, body=body, raw=case.raw, params=query)

    def execute(self, cell: Cell) -> Cell:
        if cell.failures:
            return cell
        try:
            if cell.case.pasteboard:
                with self.pasteboard_lock:
                    self._execute(cell)
            else:
                self._execute(cell)
        except requests.RequestException as e:
            cell.failures.append(f"{cell.where}: {e.__class__.__name__}: {e}")
        return cell

    def _execute(self, cell: Cell):
        case = cell.case
        route = am.ROUTE_BY_KEY.get(case.key)
        if route is None:
            cell.failures.append(f"{cell.where}: no route of access_model.py for it")
            return
        params = dict(cell.params)
        query = {k: str(v).format(**params) for k, v in case.query.items()}
        body = case.body(params) if callable(case.body) else case.body
        want = am.expected(route, query, body, cell.mode, cell.caller, case.success)
        wait = cell.expires_at - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        before = self.snapshot(cell) if want.status >= 400 else None
        r = self.request(cell)
        code = error_code(r) if r.status_code >= 400 else None
        if r.status_code != want.status or (want.status >= 400 and not want.accepts_code(code)):
            wanted = want.code or "|".join(sorted(want.codes)) or ""
            cell.failures.append(f"{cell.where}: expected {want.status} {wanted} got {brief(r)}")
        if before is not None and r.status_code >= 400:
            after = self.snapshot(cell)
            changed = [k for k in before if before[k] != after.get(k)]
            if changed:
                cell.failures.append(f"{cell.where}: refused ({r.status_code}) but changed "
                                     + "; ".join(f"{k}: {before[k]} → {after.get(k)}" for k in changed))
        if want.status == 404 and r.status_code == 404:
            # A private document is, to this caller, an id nobody ever used.
            unknown = "m-" + uuid.uuid4().hex[:12]
            u = self.request(cell, doc=unknown)
            mine = r.text.replace(cell.doc, "<id>")
            theirs = u.text.replace(unknown, "<id>")
            if (u.status_code, mine) != (404, theirs):
                cell.failures.append(f"{cell.where}: 404 differs from an unknown id's: {mine!r} vs {u.status_code} {theirs!r}")


# --- the tests --------------------------------------------------------------------------

def _served(base) -> dict:
    spec = requests.get(base + "/openapi.json", timeout=15).json()
    out = {}
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            if method.upper() in ("GET", "PUT", "POST", "PATCH", "DELETE"):
                out[am.template_key(method, path)] = (path, op.get("operationId"))
    return out


def test_every_served_route_has_a_matrix_entry(access_server):
    """Generated from the router's own list: a route without an entry here fails."""
    served = _served(access_server.base)
    cased = {c.key for c in CASES}
    problems = []
    for key, (path, op) in sorted(served.items()):
        if key in NOT_DOCUMENT_ROUTES:
            continue
        if not path.startswith("/documents/{"):
            problems.append(f"{key[0]} {path} ({op}): a route neither in the matrix nor in NOT_DOCUMENT_ROUTES")
            continue
        if key not in cased:
            problems.append(f"{key[0]} {path} ({op}): no matrix case (test_access_matrix.CASES)")
        if key not in am.ROUTE_BY_KEY:
            problems.append(f"{key[0]} {path} ({op}): no operation class (access_model.ROUTES)")
    for key in sorted(cased | set(am.ROUTE_BY_KEY)):
        if key not in served:
            problems.append(f"{key[0]} {key[1]}: in the contract's matrix but not served (not in /openapi.json)")
    assert not problems, "\n".join(problems)


@pytest.mark.timeout(400)
@pytest.mark.parametrize("mode", am.MODES)
def test_access_matrix(world, mode):
    m = Matrix(world)
    cells = [Cell(case, mode, caller) for case in CASES for caller in am.CALLERS]
    with ThreadPoolExecutor(WORKERS) as pool:
        cells = list(pool.map(m.prepare, cells))
        latest = max(c.expires_at for c in cells)
        if latest > time.monotonic():
            time.sleep(latest - time.monotonic())
        cells = list(pool.map(m.execute, cells))
    failures = [f for c in cells for f in c.failures]
    assert not failures, f"{len(failures)} of {len(cells)} cells in mode {mode!r}:\n" + "\n".join(failures)


# --- routes that are not a document's ----------------------------------------------------

def _ids(r) -> set[str]:
    body = r.json()
    items = body if isinstance(body, list) else body["documents"]
    return {x["id"] for x in items}


def test_the_list_shows_each_caller_what_it_owns_was_given_or_opened_and_may_read(world):
    base = world.base
    docs = {}
    for mode in am.MODES:
        r = call(base, "POST", "/documents", world.auth("owner"), body={"id": f"list-{mode}-{uuid.uuid4().hex[:8]}", "access": mode})
        assert r.status_code == 201, brief(r)
        docs[mode] = r.json()["id"]
        for role in ("viewer", "editor"):
            r = call(base, "PUT", f"/documents/{docs[mode]}/members/{world.sid(role)}", world.auth("owner"), body={"role": role})
            assert r.status_code == 200, brief(r)
    anon_private = call(base, "POST", "/documents", body={"id": f"list-anon-{uuid.uuid4().hex[:8]}", "access": "private"})
    assert anon_private.status_code == 201, brief(anon_private)
    link = call(base, "POST", f"/documents/{docs['open']}/links", world.auth("owner"), body={"role": "editor"}).json()
    assert call(base, "DELETE", f"/documents/{docs['open']}/links/{link['id']}", world.auth("owner")).status_code == 204
    mine = set(docs.values()) | {anon_private.json()["id"]}
    # Another session opens the open document and tries the private one: only what it read is its.
    assert call(base, "GET", f"/documents/{docs['open']}", world.auth("other")).status_code == 200
    assert call(base, "GET", f"/documents/{docs['private']}", world.auth("other")).status_code == 404
    wanted = {"anonymous": {}, "other": {docs["open"]: None},
              "viewer": {d: "viewer" for d in docs.values()}, "editor": {d: "editor" for d in docs.values()},
              "owner": {d: "owner" for d in docs.values()},
              "operator": {**{d: None for d in docs.values()}, anon_private.json()["id"]: None}}
    callers = {"anonymous": {}, "other": world.auth("other"), "viewer": world.auth("viewer"),
               "editor": world.auth("editor"), "owner": world.auth("owner"),
               "operator": {"Tandem-Admin-Key": ADMIN_KEY}}
    failures = []
    for caller, headers in callers.items():
        # An opening is noted a moment after it is answered.
        deadline = time.monotonic() + 5
        while True:
            r = call(base, "GET", "/documents", headers)
            got = {x["id"]: x["role"] for x in r.json() if x["id"] in mine} if r.status_code == 200 else None
            if got == wanted[caller] or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        if r.status_code != 200:
            failures.append(f"{caller}: {brief(r)}")
        elif got != wanted[caller]:
            failures.append(f"{caller}: lists {got}, expected {wanted[caller]}")
    opened = [x for x in call(base, "GET", "/documents", world.auth("other")).json() if x["id"] == docs["open"]]
    if not opened or not isinstance(opened[0]["opened"], (int, float)):
        failures.append(f"other: the open document's entry says when it was opened: {opened}")
    r = call(base, "GET", "/documents", {"Tandem-Link": link["token"]})
    if r.status_code != 401 or error_code(r) != "invalid_link":
        failures.append(f"revoked link: expected 401 invalid_link, got {brief(r)}")
    assert not failures, "\n".join(failures)


def test_creating_answers_the_owner_link_and_the_mode(world):
    base = world.base
    for headers, owner in (({}, None), (world.auth("owner"), world.sid("owner"))):
        r = call(base, "POST", "/documents", headers, body={"id": f"new-{uuid.uuid4().hex[:8]}"})
        assert r.status_code == 201, brief(r)
        d = r.json()
        assert d["access"] == "open", d          # the server's default without --default-access
        assert d["owner"] == owner, d
        link = d["ownerLink"]
        assert link["role"] == "owner" and isinstance(link["id"], str) and link["id"], d
        assert isinstance(link["token"], str) and len(link["token"]) >= 32, d
        for mode in am.MODES:
            r = call(base, "POST", "/documents", headers, body={"id": f"new-{uuid.uuid4().hex[:8]}", "access": mode})
            assert r.status_code == 201 and r.json()["access"] == mode, brief(r)
    r = call(base, "POST", "/documents", body={"id": f"new-{uuid.uuid4().hex[:8]}", "access": "secret"})
    assert r.status_code == 400 and error_code(r) == "invalid_field", brief(r)


def test_ending_another_session_is_the_operators(world):
    base = world.base
    victim = requests.post(base + "/sessions", json={"name": "victim"}, timeout=15).json()
    vauth = {"Authorization": "Bearer " + victim["token"]}
    path = f"/sessions/{victim['id']}"
    for headers, status, code in (({}, 403, None), (world.auth("other"), 403, None), (vauth, 403, None),
                                  ({"Tandem-Admin-Key": ADMIN_KEY + "x"}, 401, "invalid_admin_key"),
                                  ({"Tandem-Admin-Key": ""}, 401, "invalid_admin_key")):
        r = call(base, "DELETE", path, headers)
        assert r.status_code == status, f"{headers}: {brief(r)}"
        if code:
            assert error_code(r) == code, brief(r)
        assert call(base, "GET", "/sessions/me", vauth).status_code == 200, "the session ended on a refusal"
    r = call(base, "DELETE", path, {"Tandem-Admin-Key": ADMIN_KEY})
    assert r.status_code == 204, brief(r)
    assert call(base, "GET", "/sessions/me", vauth).status_code == 401
    r = call(base, "DELETE", path, {"Tandem-Admin-Key": ADMIN_KEY})
    assert r.status_code == 404, brief(r)


@pytest.mark.parametrize("method,path", [("GET", "/healthz"), ("GET", "/metrics"), ("GET", "/openapi.json"),
                                         ("GET", "/documents"), ("GET", "/pasteboards"), ("POST", "/documents"),
                                         ("GET", "/sessions/me"), ("POST", "/pasteboards")])
def test_a_wrong_key_or_a_dead_link_is_401_on_every_other_route(world, method, path):
    base = world.base
    before = _ids(call(base, "GET", "/documents", {"Tandem-Admin-Key": ADMIN_KEY}))
    for headers, code in (({"Tandem-Admin-Key": "wrong"}, "invalid_admin_key"),
                          ({"Tandem-Link": "no-such-link-" + uuid.uuid4().hex}, "invalid_link")):
        h = dict(headers, **world.auth("other"))
        body = {"id": f"never-{uuid.uuid4().hex[:8]}"} if path == "/documents" else ({} if method == "POST" else None)
        r = call(base, method, path, h, body=body)
        assert r.status_code == 401 and error_code(r) == code, f"{headers}: {brief(r)}"
    assert _ids(call(base, "GET", "/documents", {"Tandem-Admin-Key": ADMIN_KEY})) == before, "a document was made"
