"""Local accounts (issue 39): the operator adds people with `tandem user`, they sign in with
`POST /sessions {"user","password"}`, their sessions belong to them (`GET /users/me`), and
removing an account or changing its password ends its sessions on every node, open streams
included. Guessing is slowed per account and per address."""

from __future__ import annotations

import os
import subprocess
import time

import pytest
import requests

from sse import SSEStream
from tandem_client import Client, assert_error, describe, new_session, unique
from tandem_server import ON_POSTGRES, binary_path
from test_access_ends import stream_ends

PASSWORD = "correct horse battery"


def tandem_user(srv, *args: str, password: str | None = None) -> subprocess.CompletedProcess:
    """`tandem user …` against the server's own store, as its operator would run it."""
    where = (["--database", os.environ["TANDEM_TEST_DATABASE_URL"], "--database-schema", srv.schema]
             if ON_POSTGRES and srv.on_postgres else ["--data", str(srv.data)])
    return subprocess.run([str(binary_path()), "user", *args, *where], input=(password + "\n") if password is not None else "",
                          capture_output=True, text=True, timeout=60)


def add_user(srv, name: str, display: str | None = None, password: str = PASSWORD) -> None:
    extra = ["--display-name", display] if display else []
    r = tandem_user(srv, "add", name, *extra, password=password)
    assert r.returncode == 0, r.stderr


def sign_in(base: str, user: str, password: str = PASSWORD) -> requests.Response:
    return requests.post(base + "/sessions", json={"user": user, "password": password}, timeout=30)


def signed_in(base: str, user: str, password: str = PASSWORD) -> Client:
    r = sign_in(base, user, password)
    assert r.status_code == 201, describe(r)
    body = r.json()
    return Client(base, token=body["token"], session=body)


def test_a_person_added_by_the_operator_signs_in_and_their_sessions_are_theirs(servers):
    srv = servers(name="accounts")
    name = unique("ada")
    add_user(srv, name.upper(), "Ada Lovelace")
    listed = tandem_user(srv, "list")
    assert listed.returncode == 0 and f"{name}\t" in listed.stdout, listed
    # Names are compared ignoring case; each sign-in is a session of its own (a tab).
    one, two = signed_in(srv.base, name), signed_in(srv.base, name.capitalize())
    assert one.session["name"] == "Ada Lovelace" and one.session["user"] == two.session["user"]
    assert one.session["id"] != two.session["id"]
    me = one.get("/users/me")
    assert me.status_code == 200, describe(me)
    assert me.json() == {"id": one.session["user"], "name": name, "displayName": "Ada Lovelace", "guest": False,
                         "session": one.session["id"]}
    # Presence shows the person's name.
    doc = one.create_doc("hello", access="open")["id"]
    assert one.put(f"/documents/{doc}/selection", {"anchor": 1, "head": 2}).status_code == 200
    assert "Ada Lovelace" in [p["name"] for p in Client(srv.base).get(f"/documents/{doc}/presence").json()]
    # A guest's session is no user's; without a session there is no one to ask about.
    guest = new_session(srv.base, "Visitor")
    assert guest.get("/users/me").json() == {"id": None, "name": None, "displayName": "Visitor", "guest": True,
                                             "session": guest.session["id"]}
    assert_error(Client(srv.base).get("/users/me"), 401, "session_required")
    # Sign-ins survive a restart, as sessions do.
    srv.restart()
    again = Client(srv.base, token=one.token, session=one.session)
    assert again.get("/users/me").json()["name"] == name


def test_a_wrong_password_and_an_unknown_name_get_the_same_answer(servers):
    srv = servers(name="accounts-wrong")
    name = unique("bob")
    add_user(srv, name)
    for user, password in ((name, "not the password"), (unique("nobody"), PASSWORD), (name, PASSWORD + " ")):
        assert_error(sign_in(srv.base, user, password), 401, "invalid_credentials")
    for body in ({"user": name}, {"password": PASSWORD}, {"user": name, "password": PASSWORD, "name": "Someone else"},
                 {"user": 5, "password": PASSWORD}):
        r = requests.post(srv.base + "/sessions", json=body, timeout=30)
        assert_error(r, 400, "invalid_field")
    assert signed_in(srv.base, name).get("/users/me").status_code == 200


@pytest.mark.one_node("the throttles are counted by each process")
def test_guessing_one_accounts_password_is_throttled_before_any_check(servers):
    srv = servers(name="accounts-throttle")
    name = unique("carl")
    add_user(srv, name)
    for _ in range(10):
        assert_error(sign_in(srv.base, name, "guess guess"), 401, "invalid_credentials")
    r = sign_in(srv.base, name, PASSWORD)
    assert_error(r, 429, "rate_limited")
    assert 1 <= int(r.headers["Retry-After"]) <= 60, r.headers
    # Other accounts are not held up by it.
    other = unique("dora")
    add_user(srv, other)
    assert sign_in(srv.base, other).status_code == 201


@pytest.mark.one_node("the per-client limits are counted by each process")
def test_failed_sign_ins_count_toward_the_addresss_auth_limit(servers):
    srv = servers(name="accounts-auth-limit", extra_args=("--rate-limit", "auth=3/60"))
    name = unique("erin")
    add_user(srv, name)
    for user in (unique("x"), unique("y"), unique("z")):
        assert_error(sign_in(srv.base, user, "guess guess"), 401, "invalid_credentials")
    # The address is now refused any credential, a bearer token included.
    r = Client(srv.base, token="s_abc." + "A" * 43).get("/sessions/me")
    assert_error(r, 429, "rate_limited")


def test_removing_an_account_or_changing_its_password_ends_its_sessions_and_streams(servers):
    srv = servers(name="accounts-remove")
    name, other = unique("fay"), unique("gus")
    add_user(srv, name)
    add_user(srv, other)
    fay, gus = signed_in(srv.base, name), signed_in(srv.base, other)
    doc = fay.create_doc("x")["id"]
    with SSEStream(srv.base, f"/documents/{doc}/events", headers={"Authorization": f"Bearer {fay.token}"}) as s:
        assert s.status == 200
        r = tandem_user(srv, "passwd", name, password="a brand new password")
        assert r.returncode == 0, r.stderr
        assert stream_ends(s, within=5), "the stream outlived the password change"
    assert_error(fay.get("/users/me"), 401, "unauthorized")
    assert_error(sign_in(srv.base, name), 401, "invalid_credentials")
    fay = signed_in(srv.base, name, "a brand new password")
    r = tandem_user(srv, "remove", name)
    assert r.returncode == 0, r.stderr
    deadline = time.monotonic() + 5
    while fay.get("/users/me").status_code != 401:
        assert time.monotonic() < deadline, "the removed account's session lived on"
        time.sleep(0.2)
    assert_error(sign_in(srv.base, name, "a brand new password"), 401, "invalid_credentials")
    # Another account is untouched.
    assert gus.get("/users/me").json()["name"] == other
    assert "no user named" in tandem_user(srv, "remove", name).stderr


def test_the_command_line_refuses_bad_names_and_short_passwords_and_a_taken_name(servers):
    srv = servers(name="accounts-cli")
    name = unique("hal")
    for args, password, said in ((("add", "has space"), PASSWORD, "a user name is"),
                                 (("add", name), "short", "a password is"),
                                 (("add", name), None, "standard input")):
        r = tandem_user(srv, *args, password=password)
        assert r.returncode != 0 and said in r.stderr, r
    add_user(srv, name)
    r = tandem_user(srv, "add", name.upper(), password=PASSWORD)
    assert r.returncode != 0 and "exists" in r.stderr, r


def test_signing_up_is_off_unless_the_operator_opens_it(base):
    r = requests.post(base + "/users", json={"name": unique("eve"), "password": PASSWORD}, timeout=30)
    assert_error(r, 403, "signup_off")


def test_with_signup_open_a_person_makes_an_account_and_is_signed_in(servers):
    srv = servers(name="signup", extra_args=("--signup", "open", "--guests", "off"))
    name = unique("eve")
    r = requests.post(srv.base + "/users", json={"name": name, "password": PASSWORD, "displayName": "Eve"}, timeout=30)
    assert r.status_code == 201, describe(r)
    eve = Client(srv.base, token=r.json()["token"], session=r.json())
    me = eve.get("/users/me").json()
    assert (me["name"], me["displayName"], me["guest"]) == (name, "Eve", False)
    # The account is a real one: it signs in again, also with guests off.
    assert signed_in(srv.base, name).get("/users/me").json()["id"] == me["id"]
    # A taken name (compared ignoring case), a bad name or a short password change nothing.
    assert_error(requests.post(srv.base + "/users", json={"name": name.upper(), "password": PASSWORD}, timeout=30), 409, "name_taken")
    assert_error(requests.post(srv.base + "/users", json={"name": "a b", "password": PASSWORD}, timeout=30), 400, "invalid_field")
    assert_error(requests.post(srv.base + "/users", json={"name": unique("x"), "password": "short"}, timeout=30), 400, "invalid_field")
    assert_error(requests.post(srv.base + "/users", json={"name": unique("x"), "password": PASSWORD, "admin": True}, timeout=30),
                 400, "invalid_field")
    listed = tandem_user(srv, "list")
    assert listed.returncode == 0 and listed.stdout.count("\n") == 1, listed.stdout
