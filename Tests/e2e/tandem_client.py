"""A thin client for Tandem's REST API plus the assertions every test shares."""

from __future__ import annotations

import contextlib
import itertools
import json
import uuid

import requests

import access_model

TIMEOUT = 15  # seconds; no request of the suite should ever take this long

ERROR_CODES = {
    "nothing_to_undo", "nothing_to_redo", "not_found", "unauthorized", "invalid_json",
    "length_mismatch", "position_out_of_range", "splits_surrogate_pair", "group_not_open",
    "revision_trimmed", "editing_disabled", "precondition_failed", "unsupported_media_type",
}

_counter = itertools.count(1)

# Each document's owner link (`ownerLink.token` of `POST /documents`) and the session that
# created it, by document id, from every answer a Client saw. Deleting, locking, capping
# every session's history and the like are the owner's alone (docs/API.md, "Access"): a
# Client that is not the creator sends the owner link on exactly those requests, so tests
# written before owners existed keep their meaning. `Client(..., as_owner=False)` never does.
OWNER_LINKS: dict[str, tuple[str, str | None]] = {}


def unique(prefix: str = "doc") -> str:
    return f"{prefix}-{next(_counter)}-{uuid.uuid4().hex[:8]}"


class Client:
    """One caller: anonymous, or a session when it holds a token. Not shared across threads."""

    def __init__(self, base: str, token: str | None = None, session: dict | None = None,
                 as_owner: bool = True):
        self.base = base
        self.token = token
        self.session = session or {}
        self.as_owner = as_owner
        self.http = requests.Session()

    @property
    def id(self) -> str:
        return self.session["id"]

    def headers(self, extra: dict | None = None) -> dict:
        h = {}
        if self.token:
            h["Authorization"] = f"Bearer {self.token}"
        if extra:
            h.update(extra)
        return h

    def request(self, method: str, path: str, *, json_body=None, data=None, headers=None,
                params=None, timeout=TIMEOUT) -> requests.Response:
        h = self.headers(headers)
        if json_body is not None:
            data = json.dumps(json_body).encode()
            h.setdefault("Content-Type", "application/json")
        if self.as_owner:
            self._owner_link(method, path, params, json_body, h)
        r = self.http.request(method, self.base + path, data=data, headers=h, params=params,
                              timeout=timeout, allow_redirects=False)
        self._remember_owner(method, path, r)
        return r

    def _owner_link(self, method, path, params, json_body, h) -> None:
        """Adds the document's owner link to an owner-only request of a non-creator."""
        if "Tandem-Link" in h or "Tandem-Admin-Key" in h:
            return
        bare, _, query = path.partition("?")
        found = access_model.route_of(method, bare)
        if found is None:
            return
        q = access_model.query_dict(query)
        q.update(access_model.query_dict(params))
        if found[0].classify(q, json_body, bool(self.token)) not in (access_model.OWNER, access_model.RENAME):
            return
        link = OWNER_LINKS.get(found[1])
        if link and (link[1] is None or link[1] != self.session.get("id")):
            h["Tandem-Link"] = link[0]

    def _remember_owner(self, method, path, r) -> None:
        bare = path.partition("?")[0]
        if method.upper() == "POST" and bare == "/documents" and r.status_code == 201:
            try:
                body = r.json()
                OWNER_LINKS[body["id"]] = (body["ownerLink"]["token"], self.session.get("id"))
            except (ValueError, KeyError, TypeError):
                pass
        elif method.upper() == "DELETE" and r.status_code == 204:
            found = access_model.route_of(method, bare)
            if found and found[0].operation_id == "deleteDocument":
                OWNER_LINKS.pop(found[1], None)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.request("POST", path, json_body=body, **kw)

    def put(self, path, body=None, **kw):
        return self.request("PUT", path, json_body=body, **kw)

    def patch(self, path, body=None, **kw):
        return self.request("PATCH", path, json_body=body, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)

    # --- documents -------------------------------------------------------------------

    def create_doc(self, text: str = "", title: str | None = None, doc_id: str | None = None,
                   access: str | None = None) -> dict:
        body = {"id": doc_id or unique(), "text": text}
        if title is not None:
            body["title"] = title
        if access is not None:
            body["access"] = access
        r = self.post("/documents", body)
        assert r.status_code == 201, describe(r)
        return r.json()

    def doc(self, doc_id: str) -> dict:
        r = self.get(f"/documents/{doc_id}")
        assert r.status_code == 200, describe(r)
        return r.json()

    def text(self, doc_id: str) -> str:
        return self.doc(doc_id)["text"]

    def edit(self, doc_id: str, body: dict, headers=None) -> dict:
        r = self.post(f"/documents/{doc_id}/edits", body, headers=headers)
        assert r.status_code == 200, describe(r)
        return r.json()

    def insert(self, doc_id: str, text: str, at: int, **extra) -> dict:
        return self.edit(doc_id, {"insert": text, "at": at, **extra})

    def undo(self, doc_id: str, scope: str | None = None) -> requests.Response:
        return self.post(f"/documents/{doc_id}/undo", params={"scope": scope} if scope else None)

    def redo(self, doc_id: str, scope: str | None = None) -> requests.Response:
        return self.post(f"/documents/{doc_id}/redo", params={"scope": scope} if scope else None)

    def history(self, doc_id: str, scope: str | None = None) -> dict:
        r = self.get(f"/documents/{doc_id}/history", params={"scope": scope} if scope else None)
        assert r.status_code == 200, describe(r)
        return r.json()

    def changes(self, doc_id: str, since: int = 0) -> list[dict]:
        """Every change after `since`, following pages if the server pages its answer."""
        out: list[dict] = []
        while True:
            r = self.get(f"/documents/{doc_id}/edits", params={"since": since})
            assert r.status_code == 200, describe(r)
            page = change_list(r.json())
            if not page:
                return out
            out += page
            since = page[-1]["revision"]


def change_list(body) -> list[dict]:
    """The list of changes of a `GET …/edits` answer (a JSON array per the contract)."""
    if isinstance(body, list):
        return body
    for key in ("changes", "edits"):
        if isinstance(body, dict) and isinstance(body.get(key), list):
            return body[key]
    raise AssertionError(f"GET …/edits did not answer a list of changes: {body!r}")


def new_session(base: str, name: str | None = None, as_owner: bool = True) -> Client:
    r = requests.post(base + "/sessions", data=json.dumps({"name": name} if name else {}),
                      headers={"Content-Type": "application/json"}, timeout=TIMEOUT)
    assert r.status_code == 201, describe(r)
    body = r.json()
    return Client(base, token=body["token"], session=body, as_owner=as_owner)


def describe(r: requests.Response) -> str:
    body = r.text if len(r.text) < 600 else r.text[:600] + "…"
    return f"{r.request.method} {r.request.url} → {r.status_code} {body}"


def assert_error(r: requests.Response, status: int, code: str | None = None) -> dict:
    """The contract's error shape: `{"error": {"code", "message"}}` with the one status the
    contract names for it."""
    assert r.status_code == status, f"expected {status}: {describe(r)}"
    ctype = r.headers.get("Content-Type", "")
    assert ctype.startswith("application/json"), f"error is not JSON ({ctype!r}): {describe(r)}"
    body = r.json()
    assert isinstance(body, dict) and isinstance(body.get("error"), dict), describe(r)
    err = body["error"]
    assert isinstance(err.get("code"), str) and err["code"], describe(r)
    assert isinstance(err.get("message"), str) and err["message"], describe(r)
    if code is not None:
        assert err["code"] == code, f"expected code {code!r}: {describe(r)}"
    return err


@contextlib.contextmanager
def unchanged(client: Client, doc_id: str):
    """Asserts that whatever happens inside leaves the document's revision and text as they were."""
    before = client.doc(doc_id)
    yield before
    after = client.doc(doc_id)
    assert after["revision"] == before["revision"], f"revision moved: {before['revision']} → {after['revision']}"
    assert after["text"] == before["text"], f"text changed: {before['text']!r} → {after['text']!r}"
