"""The access contract of docs/API.md ("Access: owners, modes, roles, share links") as plain
Python: which operation class a request is, and the one status a caller gets for it in each
mode. No I/O here; `test_access_matrix.py` checks the server against it cell by cell, and
`tandem_client.py` uses `classify` to act as the owner on owner-only requests.

The rules, in the order a request meets them:

1. Credentials first: a link that is unknown, revoked or expired is `401 invalid_link`.
2. A private document the caller may not read does not exist: `404 not_found`, exactly as
   for an unknown id (whatever else is wrong with the request).
3. The operation's class decides: refused is `403` (`read_only` for an edit by someone who
   may only read, `forbidden` otherwise). The table is read before the route's own needs:
   an anonymous `undo?scope=session` in an `editable` document is the table's "anonymous:
   403", not "scope=session needs a session".
4. A request that needs a session (`scope=session`, a selective undo, `select`, a
   selection, undo groups) without one is `401 session_required`: in an `open` document,
   or for the operator, who holds the owner's role but no session.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable
from urllib.parse import parse_qs

MODES = ("open", "editable", "locked", "private")

# Callers of the matrix. `role` is the role the caller holds in the document (the operator
# counts as owner); `session` whether it sends a session token; `bad_link` a link that is
# revoked or expired (any role: it grants nothing and is refused first).
CALLERS = ("anonymous", "other", "viewer", "editor", "owner", "revoked_link", "expired_link", "operator")


@dataclass(frozen=True)
class Caller:
    name: str
    role: str | None
    session: bool
    bad_link: bool = False


CALLER = {
    "anonymous": Caller("anonymous", None, False),
    "other": Caller("other", None, True),
    "viewer": Caller("viewer", "viewer", True),
    "editor": Caller("editor", "editor", True),
    "owner": Caller("owner", "owner", True),
    "revoked_link": Caller("revoked_link", None, False, bad_link=True),
    "expired_link": Caller("expired_link", None, False, bad_link=True),
    "operator": Caller("operator", "owner", False),
}

# Operation classes (the rows of the contract's table).
READ = "read"
EDIT = "edit"
RENAME = "rename"
OWN_HISTORY = "own-history"
OTHERS_WORK = "others-work"
OWNER = "owner"
NOT_DOCUMENT = "not-a-document route"

OWNER_DOCUMENT_FIELDS = frozenset({"access", "owner", "secure", "editingDisabled", "levelsOfUndo"})


def _scope(query: dict, has_session: bool) -> str:
    """`scope` as the server reads it: the default is `session` with a token, else `document`."""
    s = query.get("scope")
    if s in ("session", "document"):
        return s
    return "session" if has_session else "document"


def _undo_class(query, body, has_session):
    if "group" in query:
        return EDIT  # a selective undo of one's own group
    return EDIT if _scope(query, has_session) == "session" else OTHERS_WORK


def _patch_document_class(query, body, has_session):
    fields = set(body or {})
    if fields & OWNER_DOCUMENT_FIELDS:
        return OWNER
    return RENAME if "title" in fields else EDIT


def _patch_history_class(query, body, has_session):
    if _scope(query, has_session) == "session":
        return OWN_HISTORY
    return OWNER if "levelsOfUndo" in (body or {}) else OTHERS_WORK


def _clear_history_class(query, body, has_session):
    return OWN_HISTORY if _scope(query, has_session) == "session" else OWNER


def _history_needs_session(query, body):
    return query.get("scope") == "session"


def _undo_needs_session(query, body):
    return query.get("scope") == "session" or "group" in query


@dataclass(frozen=True)
class Route:
    method: str
    path: str            # the template as /openapi.json spells it
    operation_id: str
    classify: Callable[[dict, dict | None, bool], str]
    # Does the request need a session whatever the document? (`query`, `body`) → bool
    needs_session: Callable[[dict, dict | None], bool] = lambda q, b: False


def _const(cls):
    return lambda q, b, s: cls


_always = lambda q, b: True  # noqa: E731

ROUTES: tuple[Route, ...] = (
    Route("GET", "/documents/{id}", "getDocument", _const(READ)),
    Route("DELETE", "/documents/{id}", "deleteDocument", _const(OWNER)),
    Route("PATCH", "/documents/{id}", "updateDocument", _patch_document_class),
    Route("GET", "/documents/{id}/text", "getDocumentText", _const(READ)),
    Route("PUT", "/documents/{id}/text", "replaceDocumentText", _const(EDIT)),
    Route("POST", "/documents/{id}/edits", "edit", _const(EDIT)),
    Route("GET", "/documents/{id}/edits", "listEdits", _const(READ)),
    Route("GET", "/documents/{id}/events", "documentEvents", _const(READ)),
    Route("PUT", "/documents/{id}/selection", "setSelection", _const(READ), _always),
    Route("GET", "/documents/{id}/presence", "presence", _const(READ)),
    Route("POST", "/documents/{id}/undo", "undo", _undo_class, _undo_needs_session),
    Route("POST", "/documents/{id}/redo", "redo", _undo_class, _undo_needs_session),
    Route("GET", "/documents/{id}/history", "getHistory", _const(READ), _history_needs_session),
    Route("PATCH", "/documents/{id}/history", "updateHistory", _patch_history_class, _history_needs_session),
    Route("DELETE", "/documents/{id}/history", "clearHistory", _clear_history_class, _history_needs_session),
    Route("POST", "/documents/{id}/history/groups", "beginUndoGrouping", _const(EDIT), _always),
    Route("DELETE", "/documents/{id}/history/groups", "endUndoGrouping", _const(EDIT), _always),
    Route("POST", "/documents/{id}/history/registration/disable", "disableUndoRegistration", _const(EDIT), _always),
    Route("POST", "/documents/{id}/history/registration/enable", "enableUndoRegistration", _const(EDIT), _always),
    Route("POST", "/documents/{id}/save", "save", _const(EDIT)),
    Route("GET", "/documents/{id}/versions", "listVersions", _const(READ)),
    Route("GET", "/documents/{id}/versions/{n}/text", "getVersionText", _const(READ)),
    Route("GET", "/documents/{id}/versions/{n}/diff", "diffVersions", _const(READ)),
    Route("GET", "/documents/{id}/authorship", "getAuthorship", _const(READ)),
    Route("POST", "/documents/{id}/versions/{n}/revert", "revertToVersion", _const(EDIT)),
    Route("PATCH", "/documents/{id}/versions/{n}", "nameVersion", _const(EDIT)),
    Route("DELETE", "/documents/{id}/versions/{n}", "deleteVersion", _const(OWNER)),
    Route("POST", "/documents/{id}/cut", "cut", _const(EDIT)),
    Route("POST", "/documents/{id}/copy", "copy", _const(READ)),
    Route("POST", "/documents/{id}/paste", "paste", _const(EDIT)),
    Route("POST", "/documents/{id}/delete", "delete", _const(EDIT)),
    Route("POST", "/documents/{id}/select", "select", _const(READ), _always),
    Route("POST", "/documents/{id}/selectAll", "selectAll", _const(READ), _always),
    Route("GET", "/documents/{id}/actions", "canPerformActions", _const(READ)),
    Route("GET", "/documents/{id}/access", "getAccess", _const(OWNER)),
    Route("PUT", "/documents/{id}/members/{session}", "setMember", _const(OWNER)),
    Route("POST", "/documents/{id}/members", "shareWithUser", _const(OWNER)),
    Route("DELETE", "/documents/{id}/members/{session}", "removeMember", _const(OWNER)),
    Route("POST", "/documents/{id}/links", "createLink", _const(OWNER)),
    Route("DELETE", "/documents/{id}/links/{linkId}", "revokeLink", _const(OWNER)),
)


def template_key(method: str, path: str) -> tuple[str, str]:
    """(METHOD, path with every parameter written `{}`): parameter names may differ."""
    return method.upper(), re.sub(r"\{[^}]*\}", "{}", path)


ROUTE_BY_KEY = {template_key(r.method, r.path): r for r in ROUTES}

_PATTERNS = [(re.compile("^" + re.sub(r"\\\{[^}]*\\\}", "([^/]+)", re.escape(r.path)) + "$"), r) for r in ROUTES]


def route_of(method: str, path: str) -> tuple[Route, str] | None:
    """The document route a concrete path is, and the document id it names; None for others."""
    for pattern, route in _PATTERNS:
        if route.method == method.upper():
            m = pattern.match(path)
            if m:
                return route, m.group(1)
    return None


def query_dict(query: str | dict | None) -> dict:
    if query is None:
        return {}
    if isinstance(query, dict):
        return {k: str(v) for k, v in query.items() if v is not None}
    return {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}


def classify(method: str, path: str, query=None, body=None, has_session: bool = False) -> str:
    """The operation class of a concrete request (`path` without its query)."""
    found = route_of(method, path)
    if found is None:
        return NOT_DOCUMENT
    route, _ = found
    return route.classify(query_dict(query), body if isinstance(body, dict) else None, has_session)


# --- the table ---------------------------------------------------------------------------

def may_read(mode: str, c: Caller) -> bool:
    return mode != "private" or c.role in ("viewer", "editor", "owner")


def may(cls: str, mode: str, c: Caller) -> bool:
    """The contract's table, for a caller who may read the document."""
    if cls == READ:
        return may_read(mode, c)
    if cls == EDIT:
        if mode == "open":
            return True
        if mode == "editable":
            return c.session or c.role in ("editor", "owner")
        return c.role in ("editor", "owner")
    if cls == OWN_HISTORY:
        # "any session" / "a session that is a member": whoever may read, with a session
        # (the route needs one: without it is 401, see `expected`).
        return may_read(mode, c)
    if cls == OTHERS_WORK:
        return mode == "open" or c.role in ("editor", "owner")
    if cls == RENAME:
        # The title is how a document is listed and found: only people the owner named.
        return c.role in ("editor", "owner")
    if cls == OWNER:
        return c.role == "owner"
    raise ValueError(cls)


@dataclass(frozen=True)
class Expected:
    status: int
    code: str | None          # the error code, None for a success
    codes: frozenset = frozenset()  # acceptable codes when the contract allows more than one

    def accepts_code(self, code: str | None) -> bool:
        if self.code is None and not self.codes:
            return True
        return code == self.code or code in self.codes


def expected(route: Route, query: dict, body, mode: str, caller: str, success: int) -> Expected:
    """The one status (and error code) `caller` gets for this request in a document of `mode`."""
    c = CALLER[caller]
    if c.bad_link:
        return Expected(401, "invalid_link")
    if not may_read(mode, c):
        return Expected(404, "not_found")
    needs_session = route.needs_session(query, body) and not c.session
    cls = route.classify(query, body, c.session)
    if may(cls, mode, c):
        return Expected(401, "session_required") if needs_session else Expected(success, None)
    if needs_session:
        # What it may not do is unclear when it could not do it at all: either code.
        return Expected(403, None, frozenset({"forbidden", "read_only"}))
    if cls == EDIT:
        return Expected(403, "read_only")
    if cls == OTHERS_WORK:
        # Undoing another's change is not an edit of one's own: `forbidden`, though a
        # server that calls it `read_only` for someone who may only read is not wrong.
        return Expected(403, None, frozenset({"forbidden", "read_only"}))
    return Expected(403, "forbidden")


def can_edit(mode: str, caller: Caller) -> bool:
    """The document JSON's `canEdit` for the caller."""
    return may_read(mode, caller) and may(EDIT, mode, caller)
