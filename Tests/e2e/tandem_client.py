"""A thin client for Tandem's REST API plus the assertions every test shares."""

from __future__ import annotations

import contextlib
import itertools
import json
import uuid

import requests

TIMEOUT = 15  # seconds; no request of the suite should ever take this long

ERROR_CODES = {
    "nothing_to_undo", "nothing_to_redo", "not_found", "unauthorized", "invalid_json",
    "length_mismatch", "position_out_of_range", "splits_surrogate_pair", "group_not_open",
    "revision_trimmed", "editing_disabled", "precondition_failed", "unsupported_media_type",
}

_counter = itertools.count(1)


def unique(prefix: str = "doc") -> str:
    return f"{prefix}-{next(_counter)}-{uuid.uuid4().hex[:8]}"


class Client:
    """One caller: anonymous, or a session when it holds a token. Not shared across threads."""

    def __init__(self, base: str, token: str | None = None, session: dict | None = None):
        self.base = base
        self.token = token
        self.session = session or {}
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
        return self.http.request(method, self.base + path, data=data, headers=h, params=params,
                                 timeout=timeout, allow_redirects=False)

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

    def create_doc(self, text: str = "", title: str | None = None, doc_id: str | None = None) -> dict:
        body = {"id": doc_id or unique(), "text": text}
        if title is not None:
            body["title"] = title
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


def new_session(base: str, name: str | None = None) -> Client:
    r = requests.post(base + "/sessions", data=json.dumps({"name": name} if name else {}),
                      headers={"Content-Type": "application/json"}, timeout=TIMEOUT)
    assert r.status_code == 201, describe(r)
    body = r.json()
    return Client(base, token=body["token"], session=body)


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
