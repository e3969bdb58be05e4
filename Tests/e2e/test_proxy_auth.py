"""A trusted reverse proxy's header (issue 39): with `--auth-header`, a `--trusted-proxy` peer
names the signed-in user; `POST /sessions` from it starts that user's session (the user is
made on first sight), a session used with the header must be that user's, and the same header
from any other peer is ignored. The tests' requests come from 127.0.0.1: trusted when the
server trusts 127.0.0.1/32, untrusted when it trusts only 10.0.0.0/8."""

from __future__ import annotations

import requests

from tandem_client import Client, assert_error, describe, unique

HEADER = "X-Remote-User"


def session_as(base: str, user: str | None, **body) -> requests.Response:
    headers = {HEADER: user} if user is not None else {}
    return requests.post(base + "/sessions", json=body or None, headers=headers, timeout=30)


def test_a_trusted_proxys_header_signs_the_person_in(servers):
    srv = servers(name="proxy-trusted", extra_args=("--trusted-proxy", "127.0.0.1/32", "--auth-header", HEADER, "--guests", "off"))
    name = unique("ada")
    r = session_as(srv.base, name.upper())
    assert r.status_code == 201, describe(r)
    ada = Client(srv.base, token=r.json()["token"], session=r.json())
    ada.http.headers[HEADER] = name  # as the proxy adds it to every request
    me = ada.get("/users/me")
    assert me.status_code == 200, describe(me)
    assert (me.json()["name"], me.json()["guest"]) == (name, False)
    # The same person again is the same user, with a session of their own (another tab).
    again = session_as(srv.base, name).json()
    assert again["user"] == me.json()["id"] and again["id"] != ada.session["id"]
    # The token alone, or under another person's header, is not enough once the proxy names
    # someone else: a token left in a browser stops working.
    doc = ada.create_doc("hers")["id"]
    bob = unique("bob")
    r = requests.get(f"{srv.base}/documents/{doc}", headers={"Authorization": f"Bearer {ada.token}", HEADER: bob}, timeout=30)
    assert_error(r, 401, "proxy_user_mismatch")
    # A user the proxy made has no password: it signs in no other way.
    assert_error(requests.post(srv.base + "/sessions", json={"user": name, "password": "anything at all"}, timeout=30),
                 401, "invalid_credentials")
    # A header that is no user name is refused, and a name given with it too.
    assert_error(session_as(srv.base, "not a name"), 400, "invalid_proxy_user")
    assert_error(session_as(srv.base, name, name="Someone"), 400, "invalid_field")
    # Guests are off: without the header there is no way in but signing in.
    assert_error(session_as(srv.base, None), 403, "guests_off")


def test_the_header_from_an_untrusted_peer_is_ignored(servers):
    srv = servers(name="proxy-untrusted", extra_args=("--trusted-proxy", "10.0.0.0/8", "--auth-header", HEADER))
    r = session_as(srv.base, unique("mallory"))
    assert r.status_code == 201, describe(r)
    guest = Client(srv.base, token=r.json()["token"], session=r.json())
    assert guest.get("/users/me").json()["guest"] is True
    # Nor does it break a session: it is not read at all.
    r = requests.get(srv.base + "/users/me", headers={"Authorization": f"Bearer {guest.token}", HEADER: "someone"}, timeout=30)
    assert r.status_code == 200, describe(r)
