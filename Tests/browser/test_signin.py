"""Signing in and out in the browser (issue 39): the sign-in dialog, the user's name and
menu, a login that survives a reload and a new tab, sign-out back to a guest, and a server
that takes no guests."""
import itertools
import re

import pytest
from selenium.webdriver.common.by import By

from conftest import running_server

PASSWORD = "correct horse battery"
_names = itertools.count(1)


def new_user(server, display):
    """A local account, added as the operator does; its sign-in name is unique to the test."""
    name = f"user{next(_names)}-{display.split()[0].lower()}"
    server.add_user(name, PASSWORD, display)
    return name


def shown(w, element_id):
    return w.js("const e = document.getElementById(arguments[0]); return !!e && e.checkVisibility();", element_id)


def sign_in(w, name, password=PASSWORD):
    if not w.js("return document.getElementById('signin-dialog').open"):
        w.button("signin-button").click()
    w.wait(lambda: w.js("return document.getElementById('signin-dialog').open"), 10, "no sign-in dialog")
    user = w.button("signin-user")
    user.clear()
    user.send_keys(name)
    w.button("signin-password").send_keys(password)
    w.button("signin-submit").click()


def signed_in_as(w, display):
    w.wait(lambda: w.js("const s = window.tandem.api.session; return !!s && !!s.user")
           and not w.js("return document.getElementById('signin-dialog').open"), 10, "never signed in")
    assert w.js("return document.getElementById('account-name').textContent") == display
    assert shown(w, "account-button") and not shown(w, "signin-button")
    assert w.js("return window.tandem.api.session.name") == display


def is_guest(w):
    s = w.js("return window.tandem.api.session")
    return bool(s) and not s.get("user") and shown(w, "signin-button") and not shown(w, "account")


def people(w):
    return w.js("return [...document.querySelectorAll('#people li')].map((l) => l.title)")


def test_two_people_sign_in_in_two_windows_and_see_each_others_names(server, windows):
    ada, grace = new_user(server, "Ada Lovelace"), new_user(server, "Grace Hopper")
    doc = server.create_document("Signed in", "")
    a = windows().open(doc["id"])
    b = windows().open(doc["id"])
    # Guests first: typing needs no sign-in.
    assert is_guest(a) and is_guest(b)
    guest_session = a.js("return window.tandem.api.session.id")
    sign_in(a, ada)
    signed_in_as(a, "Ada Lovelace")
    sign_in(b, grace)
    signed_in_as(b, "Grace Hopper")
    a.wait_synced()
    b.wait_synced()
    # A new session of the user; the guest one was ended.
    assert a.js("return window.tandem.api.session.id") != guest_session
    b.wait(lambda: sorted(people(b)) == ["Ada Lovelace", "Grace Hopper (you)"], 10, f"b sees {people(b)}")
    a.wait(lambda: sorted(people(a)) == ["Ada Lovelace (you)", "Grace Hopper"], 10, f"a sees {people(a)}")
    # The menu says who is signed in.
    a.button("account-button").click()
    a.wait(lambda: shown(a, "account-menu"))
    assert a.js("return document.getElementById('account-menu').innerText").split("\n")[0] == "Signed in as Ada Lovelace"
    a.driver.find_element(By.TAG_NAME, "body").send_keys("\ue00c")  # Escape
    a.wait(lambda: not shown(a, "account-menu"))
    # Each types as themself.
    a.type_at(0, "from Ada")
    b.wait(lambda: b.text() == "from Ada")
    assert server.text(doc["id"]) == "from Ada"


def test_a_signed_in_browser_stays_signed_in_after_a_reload_and_in_a_new_tab(server, windows):
    ada = new_user(server, "Ada Reloaded")
    doc = server.create_document("Reload", "")
    a = windows().open(doc["id"])
    sign_in(a, ada)
    signed_in_as(a, "Ada Reloaded")
    user = a.js("return window.tandem.api.session.user")
    session = a.js("return window.tandem.api.session.id")
    a.driver.refresh()
    a.wait_synced()
    signed_in_as(a, "Ada Reloaded")
    assert a.js("return window.tandem.api.session.id") == session  # the tab keeps its session
    # A new tab of the same browser: a new session, of the same user (the login cookie).
    a.driver.switch_to.new_window("tab")
    a.driver.get(f"{server.base}/#/doc/{doc['id']}")
    a.wait_synced()
    signed_in_as(a, "Ada Reloaded")
    assert a.js("return window.tandem.api.session.user") == user
    assert a.js("return window.tandem.api.session.id") != session
    a.type_at(0, "new tab")
    assert server.text(doc["id"]) == "new tab"


def test_signing_out_returns_to_a_guest_and_a_reload_stays_signed_out(server, windows):
    ada = new_user(server, "Ada Leaving")
    doc = server.create_document("Sign out", "")
    a = windows().open(doc["id"])
    sign_in(a, ada)
    signed_in_as(a, "Ada Leaving")
    a.wait_synced()
    user_session = a.js("return window.tandem.api.session")
    a.button("account-button").click()
    a.wait(lambda: shown(a, "signout-button"))
    a.button("signout-button").click()
    a.wait(lambda: is_guest(a), 10, "not a guest after signing out")
    a.wait_synced()
    assert a.js("return window.tandem.api.session.name").endswith(" (guest)")
    assert a.js("return localStorage.getItem('tandem.login')") is None
    # The user's session has ended.
    status, _ = server.request("GET", "/users/me", token=user_session["token"])
    assert status == 401
    # The guest types at once.
    a.type_at(0, "guest again")
    assert server.text(doc["id"]) == "guest again"
    a.driver.refresh()
    a.wait_synced()
    assert is_guest(a)
    # A new tab too: the login is gone (and nothing was refused: a clean console).
    a.driver.switch_to.new_window("tab")
    a.driver.get(f"{server.base}/#/doc/{doc['id']}")
    a.wait_synced()
    assert is_guest(a)


def test_a_wrong_password_is_said_and_changes_nothing(server, windows):
    ada = new_user(server, "Ada Mistyped")
    doc = server.create_document("Wrong", "")
    a = windows().open(doc["id"])
    a.allow_console("401 (Unauthorized)")
    session = a.js("return window.tandem.api.session.id")
    sign_in(a, ada, "not the password")
    a.wait(lambda: a.js("return document.getElementById('signin-error').textContent") == "Wrong user name or password.",
           10, "no error shown")
    assert a.js("return document.getElementById('signin-dialog').open")
    assert a.js("return window.tandem.api.session.id") == session
    assert a.js("return localStorage.getItem('tandem.login')") is None
    # Cancel: still the same guest, still typing.
    a.button("signin-cancel").click()
    a.wait(lambda: not a.js("return document.getElementById('signin-dialog').open"))
    assert is_guest(a)
    a.type_at(0, "still me")
    assert server.text(doc["id"]) == "still me"
    # Then the right one works.
    sign_in(a, ada)
    signed_in_as(a, "Ada Mistyped")


def test_too_many_wrong_passwords_say_when_to_try_again(server, windows):
    ada = new_user(server, "Ada Locked")
    # The account may fail 10 times; then it is refused before any check.
    for _ in range(10):
        status, body = server.request("POST", "/sessions", {"user": ada, "password": "wrong password"})
        assert status == 401, body
    doc = server.create_document("Too many", "")
    a = windows().open(doc["id"])
    a.allow_console("429 (Too Many Requests)")
    sign_in(a, ada)
    a.wait(lambda: a.js("return document.getElementById('signin-error').textContent") != "", 10, "no error shown")
    error = a.js("return document.getElementById('signin-error').textContent")
    assert re.fullmatch(r"Too many attempts\. Try again in \d+ seconds?\.", error), error
    assert is_guest(a)


@pytest.fixture(scope="module")
def members_only():
    with running_server("--guests", "off") as s:
        yield s


def test_with_guests_off_the_page_asks_to_sign_in_and_then_edits(members_only, windows):
    ada = new_user(members_only, "Ada Member")
    # A document made by a user (a guest may make none here).
    status, s = members_only.request("POST", "/sessions", {"user": ada, "password": PASSWORD})
    assert status == 201, s
    status, doc = members_only.request("POST", "/documents", {"title": "Members", "text": ""}, token=s["token"])
    assert status == 201, doc
    a = windows(on=members_only)
    a.allow_console("403 (Forbidden)")
    a.driver.get(f"{members_only.base}/#/doc/{doc['id']}")
    a.wait(lambda: a.js("return document.getElementById('signin-dialog').open"), 10, "no sign-in dialog")
    assert shown(a, "signin-about") and not shown(a, "signin-cancel")
    assert a.js("return document.getElementById('signin-about').textContent") == \
        "This server is for people with an account: sign in to go on."
    assert a.js("return window.tandem.api.session") is None
    sign_in(a, ada)
    signed_in_as(a, "Ada Member")
    a.wait_synced()
    a.type_at(0, "members only")
    status, now = members_only.request("GET", f"/documents/{doc['id']}", token=s["token"])
    assert status == 200 and now["text"] == "members only"
    # Signing out there asks to sign in again, and shows no document.
    a.button("account-button").click()
    a.wait(lambda: shown(a, "signout-button"))
    a.button("signout-button").click()
    a.wait(lambda: a.js("return document.getElementById('signin-dialog').open"), 10, "no sign-in dialog after signing out")
    assert not shown(a, "doc-view")
    assert a.js("return window.tandem.api.session") is None
