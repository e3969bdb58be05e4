"""Issue 43: in a long document a keystroke rewrites one block of the hidden copy others'
carets are measured in, and only the carets in view are drawn, each where its text is."""
from test_sync import put_caret

PARAGRAPH = ("Paragraph {i}: the quick brown fox jumps over the lazy dog while the committee drafts "
             "its report, and every sentence is long enough to wrap across the editor's width.\n")

# Where a position is in a one-piece copy of the whole text laid out as the textarea is:
# what the drawn caret must agree with.
REFERENCE = r"""
const [pos] = arguments;
const ta = document.getElementById('editor-text');
const cs = getComputedStyle(ta);
const d = document.createElement('div');
for (const p of ['font', 'padding', 'whiteSpace', 'overflowWrap', 'wordBreak', 'tabSize', 'letterSpacing', 'boxSizing'])
  d.style[p] = cs[p];
Object.assign(d.style, { position: 'absolute', left: '0', top: '0', visibility: 'hidden', width: ta.clientWidth + 'px' });
d.append(document.createTextNode(ta.value.slice(0, pos)));
const m = document.createElement('span');
m.textContent = '\u200b';
d.append(m);
ta.parentElement.append(d);
const at = [m.offsetLeft, m.offsetTop];
d.remove();
return at;
"""

CARETS = ("return [...document.querySelectorAll('.remote-caret')].map((c) =>"
          " [c.textContent, parseFloat(c.style.left), parseFloat(c.style.top)])")


def person_at(server, doc_id, name, pos):
    status, s = server.request("POST", "/sessions", {"name": name})
    assert status == 201
    status, _ = server.request("PUT", f"/documents/{doc_id}/selection", {"anchor": pos, "head": pos}, token=s["token"])
    assert status == 200


def placed_right(w, name, pos):
    carets = [c for c in w.js(CARETS) if c[0] == name]
    if len(carets) != 1:
        return False
    x, y = w.js(REFERENCE, pos)
    return abs(carets[0][1] - x) <= 1 and abs(carets[0][2] - y) <= 1


def test_only_carets_in_view_are_drawn_each_where_its_text_is_and_a_keystroke_rewrites_one_block(server, windows):
    text = "".join(PARAGRAPH.format(i=i) for i in range(1500))
    doc = server.create_document("Long", text)
    near = text.index("Paragraph 3:") + len("Paragraph 3: the quick")
    far = text.index("Paragraph 1400:") + len("Paragraph 1400: the")
    person_at(server, doc["id"], "Near", near)
    person_at(server, doc["id"], "Far", far)
    # A document this long opens in the viewport editor (test_viewport_editor.py); the
    # textarea, still the editor of shorter ones, is chosen here to test its mirror.
    a = windows()
    a.driver.get(f"{server.base}/?editor=textarea#/doc/{doc['id']}")
    a.wait_synced()
    a.wait(lambda: a.js("return window.tandem.view.presence.people.length") == 3)
    a.js("window.tandem.view.editor.select(0, 0);")
    a.wait(lambda: [c[0] for c in a.js(CARETS)] == ["Near"], 10, "no caret drawn")
    assert placed_right(a, "Near", near)

    # Typing above both: one text node of the copy changes, nothing is rebuilt.
    a.js("window.__mutations = []; new MutationObserver((ms) => window.__mutations.push(...ms.map((m) => [m.type, m.target])))"
         ".observe(document.querySelector('.mirror'), {subtree: true, childList: true, characterData: true});")
    put_caret(a, 5)
    a.textarea.send_keys("abc")
    a.wait_synced()
    mutations = a.js("return [window.__mutations.length, new Set(window.__mutations.map((m) => m[1])).size,"
                     " window.__mutations.every((m) => m[0] === 'characterData')]")
    assert mutations == [3, 1, True], mutations
    near += 3
    far += 3
    a.wait(lambda: placed_right(a, "Near", near), 10, "the caret did not follow its text")

    # A deletion across many blocks, then the far caret scrolled into view.
    start = text.index("Paragraph 100:")
    end = text.index("Paragraph 160:")
    a.js(f"const t = document.getElementById('editor-text'); t.focus(); t.setSelectionRange({start + 3}, {end + 3});")
    a.textarea.send_keys("\b")
    a.wait_synced()
    far -= end - start
    a.js(f"window.tandem.view.editor.select({far}, {far});")
    a.wait(lambda: [c[0] for c in a.js(CARETS)] == ["Far"], 10, "the far caret is not drawn in view")
    assert placed_right(a, "Far", far), (a.js(CARETS), a.js(REFERENCE, far))
    assert a.text() == server.text(doc["id"])
