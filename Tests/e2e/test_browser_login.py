"""Staying signed in in a browser (issue 39): a sign-in sent with `Tandem-Login: cookie` also
sets an HttpOnly, SameSite=Strict cookie holding a login (never the tab's session token); with
that header, `POST /sessions` starts a new session of the user from the cookie (a reload, a new
tab), and `DELETE /sessions/me` signs the browser out. Without the header the cookie is never
read, so a form or script on another site cannot use it."""

from __future__ import annotations

import time

import requests

from tandem_client import assert_error, describe, unique
from test_accounts import PASSWORD, add_user, tandem_user

LOGIN = {"Tandem-Login": "cookie"}


def browser_sign_in(base: str, name: str) -> tuple[requests.Session, dict]:
    browser = requests.Session()
    r = browser.post(base + "/sessions", json={"user": name, "password": PASSWORD}, headers=LOGIN, timeout=30)
    assert r.status_code == 201, describe(r)
    return browser, r.json()


def test_a_browser_stays_signed_in_across_tabs_until_it_signs_out(servers):
    srv = servers(name="browser-login")
    name = unique("ada")
    add_user(srv, name, "Ada")
    browser, first = browser_sign_in(srv.base, name)
    cookie = first_cookie = browser.cookies.get("tandem_login", path="/sessions")
    assert cookie and cookie != first["token"] and first["token"].split(".")[0] not in cookie
    set_cookie = [c for c in browser.cookies if c.name == "tandem_login"][0]
    assert set_cookie.path == "/sessions" and set_cookie.has_nonstandard_attr("HttpOnly")
    # A new tab: a new session of the same user, from the cookie alone.
    r = browser.post(srv.base + "/sessions", headers=LOGIN, timeout=30)
    assert r.status_code == 201, describe(r)
    tab = r.json()
    assert tab["user"] == first["user"] and tab["id"] != first["id"] and tab["name"] == "Ada"
    # Without the header the cookie is not read: a guest session, as from another site.
    r = browser.post(srv.base + "/sessions", timeout=30)
    assert r.status_code == 201 and "user" not in r.json(), describe(r)
    # Signing out ends the tab's session and the login, and the browser forgets the cookie.
    r = browser.delete(srv.base + "/sessions/me", headers={**LOGIN, "Authorization": f"Bearer {tab['token']}"}, timeout=30)
    assert r.status_code == 204, describe(r)
    assert "Max-Age=0" in r.headers["Set-Cookie"]
    assert browser.cookies.get("tandem_login", path="/sessions") is None
    gone = requests.post(srv.base + "/sessions", headers=LOGIN, cookies={"tandem_login": first_cookie}, timeout=30)
    assert_error(gone, 401, "signed_out")
    # The first tab's own session goes on until it ends.
    assert requests.get(srv.base + "/users/me", headers={"Authorization": f"Bearer {first['token']}"}, timeout=30).status_code == 200


def test_a_sign_in_without_the_header_sets_no_cookie_and_a_password_change_ends_the_login(servers):
    srv = servers(name="browser-login-passwd")
    name = unique("bob")
    add_user(srv, name)
    r = requests.post(srv.base + "/sessions", json={"user": name, "password": PASSWORD}, timeout=30)
    assert r.status_code == 201 and "Set-Cookie" not in r.headers, describe(r)
    browser, _ = browser_sign_in(srv.base, name)
    assert tandem_user(srv, "passwd", name, password="another good password").returncode == 0
    deadline = time.monotonic() + 10
    while True:
        r = browser.post(srv.base + "/sessions", headers=LOGIN, timeout=30)
        if r.status_code != 201 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert_error(r, 401, "signed_out")
