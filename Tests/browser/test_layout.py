"""Issue 43: the header and toolbar from a 320 px phone to a 1280 px desktop with 20 people in
the document: avatars collapse into "+N", nothing leaves the screen, the title stays
readable, the status is in words, and every text reads at 4.5:1 or more (WCAG AA)."""
import pytest

from test_phone import FITS

PEOPLE = 20

# Every visible text of the app bar, the toolbar and the name flags with the contrast it
# has on what is behind it (backgrounds composited up the tree, as they are painted).
CONTRASTS = r"""
const parse = (c) => {
  let m = /^rgba?\(([^)]*)\)/.exec(c);
  if (m) { const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; }
  m = /^color\(srgb ([^)]*)\)/.exec(c);
  if (m) { const p = m[1].split(/[\s\/]+/).filter(Boolean).map(Number); return [p[0] * 255, p[1] * 255, p[2] * 255, p.length > 3 ? p[3] : 1]; }
  return null;
};
const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat(1);
const backdrop = (e) => {
  const layers = [];
  for (let n = e; n && n.nodeType === 1; n = n.parentElement) {
    const bg = parse(getComputedStyle(n).backgroundColor);
    if (bg && bg[3] > 0) { layers.push(bg); if (bg[3] >= 1) break; }
  }
  return layers.reverse().reduce((under, top) => over(top, under), [255, 255, 255, 1]);
};
const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
  .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
const out = [];
for (const e of document.querySelectorAll('.appbar *, .toolbar *, .remote-label')) {
  const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
  if (!own) continue;
  const r = e.getBoundingClientRect();
  const flag = e.classList.contains('remote-label');
  if (!flag && (!e.getClientRects().length || getComputedStyle(e).visibility === 'hidden' || r.width < 2 || r.height < 2)) continue;
  const bg = backdrop(e);
  const fg = over(parse(getComputedStyle(e).color), bg);
  out.push([e.id || e.className || e.tagName, e.textContent.trim().slice(0, 20), Math.round(ratio(fg, bg) * 100) / 100]);
}
return out;
"""


def people_here(server, doc_id, n):
    """n people in the document besides the windows: sessions with a selection each."""
    for i in range(n):
        status, s = server.request("POST", "/sessions", {"name": f"Person {i + 1:02d}"})
        assert status == 201
        status, _ = server.request("PUT", f"/documents/{doc_id}/selection", {"anchor": i, "head": i}, token=s["token"])
        assert status == 200


def set_width(w, width, height):
    w.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                             {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 500})


@pytest.fixture
def crowded(server):
    """A document with 19 people in it; the window opening it is the 20th (a window's
    session stays listed after it closes, its selection kept: one document per test)."""
    doc = server.create_document("Quarterly planning notes", "".join(f"Line {i} of the plan.\n" for i in range(40)))
    people_here(server, doc["id"], PEOPLE - 1)
    return doc


@pytest.mark.parametrize("width, height", [(320, 640), (390, 844), (768, 1024), (1024, 768), (1280, 860)])
def test_the_header_fits_with_twenty_people_at_every_width(server, windows, crowded, width, height):
    w = windows()
    set_width(w, width, height)
    w.open(crowded["id"])
    w.wait(lambda: w.js("return window.tandem.view.presence.people.length") == PEOPLE, 10,
           f"not everyone is listed: {w.js('return window.tandem.view.presence.people.length')}")
    avatars = w.js("return [...document.querySelectorAll('#people li')].map((l) => l.textContent)")
    # Some avatars, then "+N" for the rest, N counted exactly; the rest are named for
    # screen readers.
    shown = len(avatars) - 1
    assert shown >= 1, avatars
    assert avatars[-1].startswith(f"+{PEOPLE - shown}and {PEOPLE - shown} more: "), avatars
    w.screenshot(f"header-{width}")
    assert w.js(FITS) == [], w.js(FITS)
    # The title stays readable: at least "Quarterly" is shown whole.
    title = w.js("const t = document.getElementById('doc-title'); const c = document.createElement('canvas').getContext('2d');"
                 " c.font = getComputedStyle(t).font; return [t.clientWidth, c.measureText('Quarterly').width];")
    assert title[0] >= title[1] + 8, title
    # The connection and the save state in words, on every screen.
    for element_id, words in (("sync-status", "Online"), ("save-status", "Saved")):
        shown_words = w.js(f"const e = document.getElementById('{element_id}'); const r = e.getBoundingClientRect();"
                           " return Math.ceil(r.width) >= e.scrollWidth && parseFloat(getComputedStyle(e).fontSize) >= 11 ? e.textContent : null")
        assert shown_words == words, (element_id, shown_words)


def test_every_text_in_the_header_toolbar_and_name_flags_reads_at_4_5_to_1(server, windows, crowded):
    w = windows().open(crowded["id"])
    w.wait(lambda: w.js("return document.querySelectorAll('.remote-caret').length") > 0)
    low = [c for c in w.js(CONTRASTS) if c[2] < 4.5]
    assert low == [], low
    # Avatars too (the ones shown): the palette's light colours get black text.
    assert w.js("return document.querySelectorAll('#people li.avatar:not(.more)').length") >= 3
