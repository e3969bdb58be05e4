"""A named pasteboard shared with people by their sign-in names, in the clipboard panel: its
owner shares it with Bob, Bob lists it, pastes from it and copies to it, a guest never sees
it, and once its owner stops sharing it leaves Bob's list; a name nobody has is said."""
from selenium.webdriver.support.ui import Select

from test_clipboard import (GENERAL_ABOUT, GONE_404, copy, new_pasteboard, options, paste_at, panel, previews,
                            select_range, token, unique, values, wait_for_panel)
from test_people_lists import signed_in_window
from test_signin import new_user


def people_form(w):
    """The owner's field for sharing with people: None when not offered."""
    return w.js("""
      const $ = (id) => document.getElementById(id);
      if ($('pasteboard-people-form').hidden) return null;
      return {value: $('pasteboard-people-name').value, error: $('pasteboard-people-error').textContent,
              invalid: $('pasteboard-people-name').getAttribute('aria-invalid'),
              everyone: $('pasteboard-everyone-button').hidden ? null : $('pasteboard-everyone-button').textContent};
    """)


def share_with(w, names):
    field = w.button("pasteboard-people-name")
    field.clear()
    field.send_keys(names)
    w.button("pasteboard-people-submit").click()


def test_its_owner_shares_a_pasteboard_with_a_person_by_name_and_stops(server, windows):
    ada, bob = new_user(server, "Ada Lovelace"), new_user(server, "Bob Builder")
    start = "words for Bob\n"
    doc = server.create_document("Pasteboard people", start)
    a = signed_in_window(windows, ada, "Ada Lovelace").open(doc["id"])
    b = signed_in_window(windows, bob, "Bob Builder").open(doc["id"])
    c = windows().open(doc["id"])  # a guest: a person of their own
    for w in (a, b, c):
        wait_for_panel(w)
    board = unique("ada-bob")
    new_pasteboard(a, board)
    assert people_form(a) == {"value": "", "error": "", "invalid": "false", "everyone": None}
    copy(a, 0, 5)
    a.wait(lambda: previews(a) == ["words"], 10)
    assert server.request("GET", f"/pasteboards/{board}", token=token(b))[0] == 404

    # Ada shares it with Bob by his sign-in name: the panel names him.
    share_with(a, bob)
    a.wait(lambda: panel(a)["audience"] == "You and Bob Builder", 10, panel(a))
    assert panel(a) == {"name": board, "title": f"Pasteboard “{board}”", "audience": "You and Bob Builder",
                        "share": "Stop sharing",
                        "about": "You shared it with Bob Builder: they can see it, paste from it and copy to it."
                                 " Only you can change who it is shared with."}
    assert people_form(a) == {"value": bob, "error": "", "invalid": "false", "everyone": "Share with everyone"}
    a.wait(lambda: [board, f"{board} (you and Bob Builder)"] in options(a), 10, options(a))
    status, pb = server.request("GET", f"/pasteboards/{board}", token=token(a))
    assert status == 200 and pb["shared"] == "people", (status, pb)
    assert [e["name"] for e in pb["sharedWith"]] == ["Bob Builder"], pb
    assert pb["sharedWith"][0]["person"] == "user:" + b.js("return window.tandem.api.session.user"), pb

    # Bob hears of it and lists it, named after who shared it; he may not change who sees it.
    b.wait(lambda: [board, f"{board} (you and Ada Lovelace)"] in options(b), 10, f"Bob lists {options(b)}")
    Select(b.button("pasteboard-select")).select_by_value(board)
    b.wait(lambda: panel(b)["name"] == board and previews(b) == ["words"], 10)
    assert panel(b) == {"name": board, "title": f"Pasteboard “{board}”", "audience": "You and Ada Lovelace",
                        "share": None,
                        "about": "Ada Lovelace shared it with you: you can see it, paste from it and copy to it."
                                 " Only Ada Lovelace can change who it is shared with."}
    assert people_form(b) is None
    # He pastes from it...
    paste_at(b, len(start))
    b.wait(lambda: server.text(doc["id"]) == start + "words", 10, server.text(doc["id"]))
    b.wait_synced()
    # ...and copies to it: Ada's panel shows what he copied.
    copy(b, 10, 13)
    b.wait(lambda: previews(b) == ["Bob"], 10)
    a.wait(lambda: previews(a) == ["Bob"], 10, "Ada never saw what Bob copied")
    status, bobs = server.request("GET", "/pasteboards/general", token=token(b))
    assert status == 200 and bobs["changeCount"] == 0, bobs

    # The guest never sees it, asked again or not.
    c.driver.execute_async_script("window.tandem.view.clipboard.refreshList().then(() => arguments[0]())")
    assert board not in values(c)
    assert server.request("GET", f"/pasteboards/{board}", token=token(c))[0] == 404
    assert board not in [p["name"] for p in server.request("GET", "/pasteboards", token=token(c))[1]]

    # Ada stops sharing: back to only her, and Bob's window loses it.
    b.allow_console(GONE_404)
    a.button("pasteboard-share-button").click()
    a.wait(lambda: panel(a)["audience"] == "Only you" and panel(a)["share"] == "Share with everyone", 10, panel(a))
    a.wait(lambda: [board, f"{board} (only you)"] in options(a), 10)
    assert people_form(a)["everyone"] is None
    assert server.request("GET", f"/pasteboards/{board}", token=token(b))[0] == 404
    select_range(b, 0, 0)
    select_range(b, 5, 5)
    b.wait(lambda: panel(b)["name"] == "general" and board not in values(b), 10, "Bob still lists the pasteboard")
    assert panel(b) == {"name": "general", "title": "Your clipboard", "audience": "Only you",
                        "about": GENERAL_ABOUT, "share": None}
    assert server.request("DELETE", f"/pasteboards/{board}", token=token(a))[0] == 204


def test_a_name_nobody_has_is_said_and_nothing_is_shared(server, windows):
    bob = new_user(server, "Bob Builder")
    w = windows().open(server.create_document("Unknown people", "x")["id"])
    wait_for_panel(w)
    board = unique("nobody")
    new_pasteboard(w, board)
    # Not a sign-in name at all: said before anything is sent.
    share_with(w, "not a name!")
    w.wait(lambda: people_form(w)["error"]
           == "“name!” is not a sign-in name: they have letters, digits and . _ - @ only.", 10, people_form(w))
    # A name nobody has: the server's 422 unknown_user, said under the field.
    w.allow_console("422")
    share_with(w, "nobody-by-that-name")
    w.wait(lambda: people_form(w)["error"] == "No one has the user name “nobody-by-that-name”. Nothing was shared.",
           10, people_form(w))
    assert people_form(w)["invalid"] == "true"
    # With someone who exists beside it: nothing is shared, not even with him.
    share_with(w, f"{bob}, nobody-by-that-name")
    w.wait(lambda: "nobody-by-that-name" in people_form(w)["error"] and people_form(w)["error"] != "", 10)
    status, pb = server.request("GET", f"/pasteboards/{board}", token=token(w))
    assert status == 200 and pb["shared"] == "none" and pb["sharedWith"] == [], (status, pb)
    assert panel(w)["audience"] == "Only you" and panel(w)["share"] == "Share with everyone"
    # Typing clears what was said; a name that exists shares it.
    share_with(w, bob)
    w.wait(lambda: panel(w)["audience"] == "You and Bob Builder", 10, panel(w))
    assert people_form(w)["error"] == "" and people_form(w)["invalid"] == "false"
    # From there, everyone stays one click away.
    w.button("pasteboard-everyone-button").click()
    w.wait(lambda: panel(w)["audience"] == "Everyone" and panel(w)["share"] == "Stop sharing", 10, panel(w))
    assert people_form(w)["everyone"] is None
    status, pb = server.request("GET", f"/pasteboards/{board}", token=token(w))
    assert status == 200 and pb["shared"] == "everyone" and pb["sharedWith"] == [], (status, pb)
    assert server.request("DELETE", f"/pasteboards/{board}", token=token(w))[0] == 204
