"""People and their documents in the browser (issue 39): the home page lists what I own,
what was shared with me and what I opened; an owner shares with a user by sign-in name; a
person with two tabs is one avatar; an account is made in the sign-in dialog where the
server takes sign-ups; only owners and editors are offered a rename."""
import pytest
from selenium.webdriver.common.by import By

from conftest import running_server
from test_share import close_owner_dialog, create_in_browser, js_text, open_share
from test_signin import PASSWORD, new_user, people, shown, sign_in, signed_in_as

SECTIONS = ("mine", "shared", "recent")


def go_home(w):
    w.driver.get(w.server.base + "/#/")
    w.wait(lambda: w.js("return !document.getElementById('list-view').hidden"))


def loaded(w):
    """True once the home page has read the list: every section shows rows or its empty state."""
    return w.js("return arguments[0].every((s) => document.getElementById(`${s}-list`).children.length > 0"
                " || !document.getElementById(`${s}-empty`).hidden)", list(SECTIONS))


def listed(w):
    """{section: [[title, [buttons]]]} as the home page shows them."""
    return w.js("return Object.fromEntries(arguments[0].map((s) => [s, [...document.querySelectorAll(`#${s}-list li`)]"
                ".map((li) => [li.querySelector('.doc-name').textContent,"
                " [...li.querySelectorAll('button')].map((b) => b.textContent)])]))", list(SECTIONS))


def titles(w, section):
    return [title for title, _ in listed(w)[section]]


def reload_home(w):
    w.driver.refresh()
    w.wait(lambda: loaded(w), 10, "the list never loaded")


def signed_in_window(windows, user, display, on=None):
    w = windows(on=on)
    go_home(w)
    sign_in(w, user)
    signed_in_as(w, display)
    w.wait(lambda: loaded(w), 10, "the list never loaded")
    return w


def owner_link(w, doc_id):
    return w.js("return JSON.parse(localStorage.getItem('tandem.links'))[arguments[0]].token", doc_id)


def share_by_name(w, name, role):
    field = w.button("share-user-name")
    field.clear()
    field.send_keys(name)
    w.button("share-user-role").send_keys(role)
    w.button("share-user-submit").click()


def test_a_user_shares_a_private_document_by_name_and_the_other_edits_it_from_shared_with_me(server, windows):
    ada, bea = new_user(server, "Ada Owner"), new_user(server, "Bea Editor")
    a = signed_in_window(windows, ada, "Ada Owner")
    b = signed_in_window(windows, bea, "Bea Editor")
    doc_id, _ = create_in_browser(a, "Ada's plans")
    close_owner_dialog(a)
    # A signed-in user's new document is private: to anyone else it does not exist.
    assert server.request("GET", f"/documents/{doc_id}")[0] == 404
    # Not shared yet: Bea's lists do not show it.
    reload_home(b)
    assert listed(b) == {"mine": [], "shared": [], "recent": []}
    assert [shown(b, f"{s}-empty") for s in SECTIONS] == [True, True, True]

    open_share(a)
    a.allow_console("422")  # the unknown name
    share_by_name(a, "nobody-by-that-name", "Editor")
    a.wait(lambda: js_text(a, "share-user-error") == "No one has the user name “nobody-by-that-name”.", 10,
           js_text(a, "share-user-error"))
    assert a.button("share-user-name").get_attribute("aria-invalid") == "true"
    share_by_name(a, bea, "Editor")
    a.wait(lambda: js_text(a, "share-status") == f"Shared with {bea}: they are now an editor.", 10, js_text(a, "share-status"))
    assert js_text(a, "share-user-error") == ""
    assert a.js("return [...document.querySelectorAll('#share-member-list li')].map((li) =>"
                " [li.querySelector('.share-item-name').textContent, li.querySelector('select').value])") == \
        [["Bea Editor", "editor"]]

    # Bea finds it under "Shared with me", may rename it but not delete it, and edits it.
    reload_home(b)
    assert listed(b) == {"mine": [], "shared": [["Ada's plans", ["Rename"]]], "recent": []}
    b.click("#shared-list a.doc-link")
    b.wait_synced()
    b.type_at(0, "Bea was here. ")
    a.wait(lambda: a.text() == "Bea was here. ", 10, f"a has {a.text()!r}")
    # Ada's own list has it as hers.
    go_home(a)
    a.wait(lambda: loaded(a) and titles(a, "mine") == ["Ada's plans"], 10, f"a lists {listed(a)}")


def test_a_document_opened_with_a_share_link_shows_under_recent(server, windows):
    ada = new_user(server, "Ada Linker")
    a = signed_in_window(windows, ada, "Ada Linker")
    doc_id, _ = create_in_browser(a, "Linked notes")
    close_owner_dialog(a)
    # Locked, not private: GET /documents carries no link, and the server lists a private
    # document only to those who may read it without one.
    owner = {"Tandem-Link": owner_link(a, doc_id)}
    assert server.request("PATCH", f"/documents/{doc_id}", {"access": "locked"}, headers=owner)[0] == 200
    status, link = server.request("POST", f"/documents/{doc_id}/links", {"role": "viewer"}, headers=owner)
    assert status == 201, link
    c = windows()
    c.driver.get(f"{server.base}/#/doc/{doc_id}?link={link['token']}")
    c.wait_synced()
    go_home(c)
    c.wait(lambda: loaded(c), 10, "the list never loaded")
    # A viewer's link: listed under Recent, and nothing to rename or delete.
    assert listed(c) == {"mine": [], "shared": [], "recent": [["Linked notes", []]]}


def test_a_guest_creates_a_document_and_types_in_it_at_once(server, windows):
    g = windows()
    doc_id, _ = create_in_browser(g, "A guest's page")
    close_owner_dialog(g)
    g.wait(lambda: g.js("return document.activeElement.id") == "editor-text")
    g.driver.switch_to.active_element.send_keys("typed at once")
    g.wait_synced()
    # A guest's document stays open: anyone reads it, with no credentials.
    assert server.text(doc_id) == "typed at once"
    go_home(g)
    g.wait(lambda: loaded(g), 10, "the list never loaded")
    assert titles(g, "mine") == ["A guest's page"]


def test_a_user_with_two_tabs_is_one_avatar_in_the_other_persons_window(server, windows):
    ada, grace = new_user(server, "Ada Twotabs"), new_user(server, "Grace Watcher")
    doc = server.create_document("Two tabs", "")
    a = windows().open(doc["id"])
    sign_in(a, ada)
    signed_in_as(a, "Ada Twotabs")
    a.wait_synced()
    # A second tab of Ada's browser: another session of the same user (the login cookie).
    a.driver.switch_to.new_window("tab")
    a.driver.get(f"{server.base}/#/doc/{doc['id']}")
    a.wait_synced()
    signed_in_as(a, "Ada Twotabs")
    g = windows().open(doc["id"])
    sign_in(g, grace)
    signed_in_as(g, "Grace Watcher")
    g.wait_synced()
    # Grace sees both of Ada's tabs' carets, and one Ada.
    g.wait(lambda: g.js("return window.tandem.collab.presence.length") == 2, 10, "Ada's two tabs never showed")
    g.wait(lambda: sorted(people(g)) == ["Ada Twotabs", "Grace Watcher (you)"], 10, f"g sees {people(g)}")
    # And Ada's tab shows herself once.
    a.wait(lambda: sorted(people(a)) == ["Ada Twotabs (you)", "Grace Watcher"], 10, f"a sees {people(a)}")


def test_a_viewer_is_not_offered_a_rename_even_where_they_may_edit_the_text(server, windows):
    ada, vic = new_user(server, "Ada Titles"), new_user(server, "Vic Viewer")
    a = signed_in_window(windows, ada, "Ada Titles")
    doc_id, _ = create_in_browser(a, "Fixed title")
    close_owner_dialog(a)
    link = {"Tandem-Link": owner_link(a, doc_id)}
    # Open: anyone edits its text; Vic is a viewer, so the title is not his to change.
    assert server.request("PATCH", f"/documents/{doc_id}", {"access": "open"}, headers=link)[0] == 200
    status, _ = server.request("POST", f"/documents/{doc_id}/members", {"user": vic, "role": "viewer"}, headers=link)
    assert status == 200
    v = signed_in_window(windows, vic, "Vic Viewer")
    expected = {"mine": [], "shared": [["Fixed title", []]], "recent": []}
    v.wait(lambda: listed(v) == expected, 10, f"v lists {listed(v)}")
    v.click("#shared-list a.doc-link")
    v.wait_synced()
    assert v.js("return [document.getElementById('doc-title').readOnly, document.getElementById('editor-text').readOnly]") == \
        [True, False]


def test_with_signup_off_the_sign_in_dialog_offers_no_account(server, windows):
    w = windows()
    go_home(w)
    w.button("signin-button").click()
    w.wait(lambda: w.js("return document.getElementById('signin-dialog').dataset.signup") == "off", 10, "never asked")
    assert not shown(w, "signup-switch")


@pytest.fixture(scope="module")
def signup_open():
    with running_server("--signup", "open") as s:
        yield s


def fill_sign_up(w, name, display, password):
    for element_id, value in (("signin-user", name), ("signup-display", display), ("signin-password", password)):
        field = w.button(element_id)
        field.clear()
        field.send_keys(value)
    w.button("signin-submit").click()


def test_an_account_made_in_the_sign_in_dialog_is_signed_in_and_stays_after_a_reload(signup_open, windows):
    w = windows(on=signup_open)
    go_home(w)
    w.button("signin-button").click()
    w.wait(lambda: shown(w, "signup-switch"), 10, "no Create account")
    w.button("signup-switch").click()
    assert js_text(w, "signin-heading") == "Create account"
    assert shown(w, "signup-display") and shown(w, "signup-password-hint")
    # Too short a password is said before anything is sent.
    fill_sign_up(w, "newcomer", "Nia Newcomer", "short")
    w.wait(lambda: js_text(w, "signin-error") == "The password needs at least 8 characters.")
    fill_sign_up(w, "newcomer", "Nia Newcomer", PASSWORD)
    signed_in_as(w, "Nia Newcomer")
    w.wait(lambda: loaded(w), 10, "the list never loaded")
    w.driver.refresh()
    w.wait(lambda: loaded(w), 10, "the list never loaded after the reload")
    signed_in_as(w, "Nia Newcomer")
    # The new user's documents are theirs, and private.
    doc_id, _ = create_in_browser(w, "Nia's first")
    close_owner_dialog(w)
    assert signup_open.request("GET", f"/documents/{doc_id}")[0] == 404


def test_a_taken_user_name_is_said_in_the_dialog(signup_open, windows):
    signup_open.add_user("taken-name", PASSWORD)
    w = windows(on=signup_open)
    w.allow_console("409 (Conflict)")
    go_home(w)
    w.button("signin-button").click()
    w.wait(lambda: shown(w, "signup-switch"), 10, "no Create account")
    w.button("signup-switch").click()
    fill_sign_up(w, "Taken-Name", "", PASSWORD)
    w.wait(lambda: js_text(w, "signin-error") == "That user name is taken: choose another.", 10, js_text(w, "signin-error"))
    assert w.js("return window.tandem.api.signedIn") is False
    # Back to signing in: the dialog says so.
    w.button("signup-switch").click()
    assert (js_text(w, "signin-heading"), shown(w, "signup-display")) == ("Sign in", False)
    assert w.driver.find_element(By.ID, "signin-submit").text == "Sign in"
