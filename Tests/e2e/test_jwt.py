"""An embedding application's signed tokens (issue 39): with `--auth-jwt-key` (Ed25519 or P-256)
or `--auth-jwt-secret` (HS256), `POST /sessions {"jwt"}` starts a session of the user the token
names, with the document roles its `tandem` claim grants, until its `exp` unless renewed with
`POST /sessions/me/renew`. The tests make their own keys and sign their own tokens (JWS by
hand, a few lines with the `cryptography` package), as an application would."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import tempfile
import time
from pathlib import Path

import pytest
import requests
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from sse import SSEStream
from tandem_client import Client, assert_error, describe, new_session, unique
from test_access_ends import stream_ends
from test_secrets_and_startup import run_serve

ED_KEY = ed25519.Ed25519PrivateKey.generate()
P256_KEY = ec.generate_private_key(ec.SECP256R1())
SECRET = b"a shared secret of well over thirty-two bytes"


def public_pem(key) -> str:
    return key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


# The Ed25519 key is given as a file (as an operator would); the P-256 one as PEM text.
KEY_DIR = Path(tempfile.mkdtemp(prefix="tandem-jwt-"))
ED_PEM_FILE = KEY_DIR / "app-ed25519.pem"
ED_PEM_FILE.write_text(public_pem(ED_KEY))


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def sign(alg: str, claims: dict, key=None, header: dict | None = None) -> str:
    """A JWS compact token: base64url(header).base64url(claims).base64url(signature)."""
    head = header if header is not None else {"alg": alg, "typ": "JWT"}
    signing_input = (b64(json.dumps(head).encode()) + "." + b64(json.dumps(claims).encode())).encode()
    if alg == "EdDSA":
        signature = (key or ED_KEY).sign(signing_input)
    elif alg == "ES256":
        r, s = decode_dss_signature((key or P256_KEY).sign(signing_input, ec.ECDSA(hashes.SHA256())))
        signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    elif alg == "HS256":
        signature = hmac.new(key if key is not None else SECRET, signing_input, hashlib.sha256).digest()
    else:
        signature = b""
    return signing_input.decode() + "." + b64(signature)


def claims(sub: str, name: str = "Ada Lovelace", expires_in: float = 600, **more) -> dict:
    return {"sub": sub, "name": name, "exp": int(time.time() + expires_in), "iat": int(time.time()), **more}


def sign_in(base: str, token: str) -> requests.Response:
    return requests.post(base + "/sessions", json={"jwt": token}, timeout=30)


def client_of(base: str, token: str) -> Client:
    r = sign_in(base, token)
    assert r.status_code == 201, describe(r)
    return Client(base, token=r.json()["token"], session=r.json())


@pytest.fixture
def ed_server(servers):
    # No leeway: a token's session ends at its exp to the second, so the tests need not wait.
    return servers(name="jwt-ed25519", extra_args=("--auth-jwt-key", str(ED_PEM_FILE), "--auth-jwt-leeway", "0",
                                                    "--signup", "open", "--rate-limit", "auth=5/60"))


KINDS = {
    "EdDSA": dict(extra_args=("--auth-jwt-key", str(ED_PEM_FILE))),
    "ES256": dict(env={"TANDEM_AUTH_JWT_KEY": public_pem(P256_KEY)}),
    "HS256": dict(env={"TANDEM_AUTH_JWT_SECRET": SECRET.decode()}),
}


@pytest.mark.parametrize("alg", list(KINDS))
def test_each_kind_of_key_signs_in_the_user_its_token_names(servers, alg):
    srv = servers(name=f"jwt-{alg.lower()}", **KINDS[alg])
    assert requests.get(srv.base + "/accounts", timeout=10).json()["tokens"] is True
    sub = unique("app-user")
    ada = client_of(srv.base, sign(alg, claims(sub)))
    assert ada.session["expires"] > time.time() + 500, ada.session
    me = ada.get("/users/me")
    assert me.status_code == 200, describe(me)
    assert (me.json()["name"], me.json()["displayName"], me.json()["guest"]) == (f"jwt:{sub}", "Ada Lovelace", False)
    # The same subject again is the same user, and the display name follows the token's.
    again = client_of(srv.base, sign(alg, claims(sub, name="Ada King")))
    assert again.session["user"] == me.json()["id"] and again.id != ada.id
    assert again.get("/users/me").json()["displayName"] == "Ada King"
    assert again.session["name"] == "Ada King"


def test_grants_open_private_documents_and_nothing_else(ed_server):
    owner = new_session(ed_server.base, "Owner")
    granted = owner.post("/documents", {"id": unique("plan"), "text": "plan", "access": "private"}).json()["id"]
    other = owner.post("/documents", {"id": unique("other"), "text": "other", "access": "private"}).json()["id"]
    viewer = client_of(ed_server.base, sign("EdDSA", claims(unique("viewer"), tandem={"documents": {granted: "viewer"}})))
    assert viewer.get(f"/documents/{granted}").json()["text"] == "plan"
    assert_error(viewer.post(f"/documents/{granted}/edits", {"insert": "!", "at": 4}), 403)
    # No grant, no membership: a private document does not exist to it.
    assert_error(viewer.get(f"/documents/{other}"), 404, "not_found")
    # "*" grants in every document; the highest grant wins.
    editor = client_of(ed_server.base, sign("EdDSA", claims(unique("editor"), tandem={"documents": {"*": "editor", granted: "viewer"}})))
    r = editor.post(f"/documents/{other}/edits", {"insert": "!", "at": 5})
    assert r.status_code == 200, describe(r)
    assert editor.text(other) == "other!"
    # Ownership is not grantable: the token is refused, it does not sign in with less.
    assert_error(sign_in(ed_server.base, sign("EdDSA", claims(unique("x"), tandem={"documents": {granted: "owner"}}))),
                 401, "invalid_token")


def test_a_tokens_subject_never_signs_in_to_a_local_account_of_that_name(ed_server):
    name = unique("ada")
    r = requests.post(ed_server.base + "/users", json={"name": name, "password": "correct horse battery"}, timeout=30)
    assert r.status_code == 201, describe(r)
    local = r.json()["user"]
    token_user = client_of(ed_server.base, sign("EdDSA", claims(name))).session["user"]
    assert token_user != local
    # Nor does the token user's name sign in with a password.
    assert_error(requests.post(ed_server.base + "/sessions", json={"user": f"jwt:{name}", "password": "correct horse battery"},
                               timeout=30), 401, "invalid_credentials")


def test_the_session_and_its_event_stream_end_when_the_token_expires(ed_server):
    owner = new_session(ed_server.base, "Owner")
    doc = owner.post("/documents", {"id": unique("ends"), "text": "x", "access": "private"}).json()["id"]
    ada = client_of(ed_server.base, sign("EdDSA", claims(unique("ada"), expires_in=3, tandem={"documents": {doc: "viewer"}})))
    with SSEStream(ed_server.base, f"/documents/{doc}/events", headers=ada.headers()) as s:
        assert s.status == 200
        assert stream_ends(s, within=8), "the stream outlived the token"
    assert_error(ada.get("/sessions/me"), 401, "unauthorized")
    # The expired token itself signs in no more.
    assert_error(sign_in(ed_server.base, sign("EdDSA", claims("late", expires_in=-1))), 401, "token_expired")


def test_a_renewal_keeps_the_session_and_its_undo_and_replaces_the_grants(ed_server):
    owner = new_session(ed_server.base, "Owner")
    doc = owner.post("/documents", {"id": unique("renew"), "text": "", "access": "private"}).json()["id"]
    sub = unique("ada")
    ada = client_of(ed_server.base, sign("EdDSA", claims(sub, expires_in=3, tandem={"documents": {doc: "editor"}})))
    ada.insert(doc, "hello", 0)
    r = ada.post("/sessions/me/renew", {"jwt": sign("EdDSA", claims(sub, expires_in=600, tandem={"documents": {doc: "editor"}}))})
    assert r.status_code == 200, describe(r)
    assert r.json()["id"] == ada.id and r.json()["expires"] > time.time() + 500
    time.sleep(4)
    # Past the first token's exp: the same session, token and undo context.
    assert ada.get("/sessions/me").status_code == 200
    assert ada.undo(doc).status_code == 200
    assert owner.text(doc) == ""
    # Another subject's token renews nothing; a bad token is 401; a guest has nothing to renew.
    assert_error(ada.post("/sessions/me/renew", {"jwt": sign("EdDSA", claims(unique("bob")))}), 403, "token_subject_mismatch")
    assert_error(ada.post("/sessions/me/renew", {"jwt": "not.a.token"}), 401, "invalid_token")
    assert_error(owner.post("/sessions/me/renew", {"jwt": sign("EdDSA", claims(sub))}), 403, "not_a_token_session")
    # A renewal without the grant shuts the document to the session, its stream included.
    with SSEStream(ed_server.base, f"/documents/{doc}/events", headers=ada.headers()) as s:
        assert s.status == 200
        r = ada.post("/sessions/me/renew", {"jwt": sign("EdDSA", claims(sub))})
        assert r.status_code == 200, describe(r)
        assert stream_ends(s, within=3), "the stream outlived the grant"
    assert_error(ada.get(f"/documents/{doc}"), 404)


def test_a_restarted_server_keeps_a_token_sessions_grants_and_expiry(servers):
    srv = servers(name="jwt-restart", extra_args=("--auth-jwt-key", str(ED_PEM_FILE), "--auth-jwt-leeway", "0"))
    owner = new_session(srv.base, "Owner")
    doc = owner.post("/documents", {"id": unique("kept"), "text": "kept", "access": "private"}).json()["id"]
    ada = client_of(srv.base, sign("EdDSA", claims(unique("ada"), expires_in=6, tandem={"documents": {doc: "viewer"}})))
    srv.restart()
    ada = Client(srv.base, token=ada.token, session=ada.session)  # the same token, on the new port
    r = ada.get(f"/documents/{doc}")
    assert r.status_code == 200, describe(r)
    time.sleep(max(0.0, ada.session["expires"] - time.time()) + 1.5)
    assert_error(ada.get(f"/documents/{doc}"), 401, "unauthorized")


@pytest.mark.one_node("the per-client limits are counted by each process")
def test_confused_forged_and_malformed_tokens_are_refused_and_counted(ed_server):
    sub = unique("mallory")
    pem = ED_PEM_FILE.read_bytes()
    refused = [
        sign("HS256", claims(sub), key=pem),                                 # HS256 keyed with the public key
        sign("none", claims(sub)),                                           # alg none
        sign("ES256", claims(sub)),                                          # another algorithm
        sign("EdDSA", claims(sub), key=ed25519.Ed25519PrivateKey.generate()),  # another key
        sign("EdDSA", claims(sub)) + ".e30",                                 # an extra part
    ]
    for token in refused:
        assert_error(sign_in(ed_server.base, token), 401, "invalid_token")
    # Five refusals (auth=5/60): the next try is not even checked.
    r = sign_in(ed_server.base, sign("EdDSA", claims(sub)))
    assert_error(r, 429, "rate_limited")
    assert int(r.headers["Retry-After"]) >= 1


def test_a_jwt_is_refused_where_none_is_configured(base):
    assert_error(sign_in(base, sign("EdDSA", claims("ada"))), 403, "jwt_off")


def test_a_server_refuses_to_start_with_a_short_secret_or_two_keys():
    r = run_serve("--port", "0", "--auth-jwt-secret", "x" * 31)
    assert r.returncode != 0 and "at least 32 bytes" in r.stderr, r.stderr
    r = run_serve("--port", "0", "--auth-jwt-secret", "x" * 32, "--auth-jwt-key", str(ED_PEM_FILE))
    assert r.returncode != 0 and "give one key" in r.stderr, r.stderr
    r = run_serve("--port", "0", "--auth-jwt-key", str(ED_PEM_FILE), "--auth-header", "X-User", "--trusted-proxy", "127.0.0.1")
    assert r.returncode != 0 and "choose one way" in r.stderr, r.stderr
    private = KEY_DIR / "private.pem"
    private.write_bytes(ED_KEY.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                             serialization.NoEncryption()))
    r = run_serve("--port", "0", "--auth-jwt-key", str(private))
    assert r.returncode != 0 and "not a PEM public key" in r.stderr, r.stderr
