// Who wrote what: a toolbar toggle that tints each run of text by its author, and a legend
// naming them. Runs come from GET …/authorship at some revision; until the next fetch they
// are carried to the text on screen through the changes since (collab.fromRevision, then
// toLocal), and fetched again, throttled, after changes. Editors ask only for the runs in
// their view, so a long document costs what its screenful costs.
import { $, el, toast } from './ui.js';
import { tintAlpha, fallbackColor } from './authorship-colors.js';

const KEY = 'tandem.authorship';
const QUIET_MS = 600; // refetch once changes pause this long…
const MAX_WAIT_MS = 2500; // …or at the latest this long after the first change not yet fetched

export class AuthorshipUI {
  constructor(view) {
    this.view = view;
    this.on = localStorage.getItem(KEY) === 'on';
    this.runs = null; // the server's runs, at this.at
    this.at = -1;
    this.authors = new Map(); // id → {name, color, user}
    this.mapped = null; // {revision, runs} carried to the current server text
    this.timer = null;
    this.firstDirty = 0;
    this.asked = 0;
    this.button = $('#authorship-button');
    this.legend = $('#authorship-legend');
    this.button.addEventListener('click', () => this.toggle(!this.on));
    // Settings has the switch too: on a phone the toolbar has no room for the button.
    const box = $('#settings-authorship');
    $('#settings-button').addEventListener('click', () => { box.checked = this.on; });
    $('#settings-dialog').addEventListener('close', (e) => {
      if (e.target.returnValue === 'ok' && box.checked !== this.on) this.toggle(box.checked);
    });
    const tints = { active: () => this.on && !!this.runs, runs: (from, to) => this.runsIn(from, to) };
    for (const ed of view.editors) ed.tints = tints;
    this.show();
  }

  toggle(on) {
    this.on = on;
    localStorage.setItem(KEY, on ? 'on' : 'off');
    this.show();
    if (on) this.fetch(); else this.redraw();
  }

  show() {
    this.button.setAttribute('aria-pressed', String(this.on));
    this.legend.hidden = !this.on || !this.view.collab;
  }

  /** A document was opened: what was known is for another text. */
  open() {
    clearTimeout(this.timer);
    this.timer = null;
    this.runs = null;
    this.mapped = null;
    this.authors = new Map();
    this.legend.textContent = '';
    this.show();
    if (this.on) this.fetch();
  }

  close() {
    clearTimeout(this.timer);
    this.timer = null;
    this.runs = null;
    this.legend.hidden = true;
  }

  /** The text changed (anyone's change, on the server): fetch again soon, once for a burst. */
  changed() {
    this.mapped = null;
    if (!this.on) return;
    const now = Date.now();
    if (!this.timer) this.firstDirty = now;
    clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(QUIET_MS, this.firstDirty + MAX_WAIT_MS - now));
    this.timer = setTimeout(() => { this.timer = null; this.fetch(); }, wait);
    this.redraw(); // the runs as carried through the change, until the fetch
  }

  async fetch() {
    const view = this.view;
    const c = view.collab;
    if (!c) return;
    const ask = ++this.asked;
    let res;
    try {
      res = await view.api.get(`${view.base}/authorship`);
    } catch (e) {
      if (e.status !== 404 && e.status !== 0) toast(`Could not load who wrote what: ${e.message}`, { kind: 'error' });
      return;
    }
    if (view.collab !== c || ask !== this.asked || !this.on) return;
    for (const a of res.authors || []) this.authors.set(a.id, a);
    this.runs = res.runs || [];
    this.at = res.revision;
    this.mapped = null;
    // An answer ahead of the stream is drawn once the stream gets there.
    if (this.at > c.revision) c.whenReached(this.at).then(() => this.redraw(), () => {});
    this.renderLegend();
    this.redraw();
  }

  redraw() { for (const ed of this.view.editors) ed.scheduleRender(); }

  /** A person's name and colour as the legend and the tints show them. */
  authorOf(id) {
    const a = this.authors.get(id) || {};
    // A signed-in person is one author in every tab (`user:<id>`); a guest is their session.
    const s = this.view.api.session;
    const mine = !!s && (id === s.id || (!!s.user && (id === `user:${s.user}` || a.user === s.user)));
    const name = a.name || this.view.presence.names().get(id) || 'Someone who left';
    const color = a.color || fallbackColor(id);
    return { id, name: mine ? `${name} (you)` : name, color, alpha: tintAlpha(color) };
  }

  /** The runs carried to the current server text (cached until the next change). */
  serverRuns() {
    const c = this.view.collab;
    if (!c || !this.runs || this.at > c.revision) return [];
    if (this.mapped && this.mapped.revision === c.revision) return this.mapped.runs;
    const runs = [];
    for (const r of this.runs) {
      if (!r.author) continue;
      const m = this.at === c.revision ? r : c.fromRevision(r, this.at);
      if (m.from < m.to) runs.push({ from: m.from, to: m.to, author: r.author });
    }
    this.mapped = { revision: c.revision, runs };
    return runs;
  }

  /** Runs of known authors in [from, to) of the text on screen, each with its colour and tint. */
  runsIn(from, to) {
    const c = this.view.collab;
    if (!c) return [];
    const out = [];
    const people = new Map();
    for (const r of this.serverRuns()) {
      const a = c.toLocal(r.from);
      const b = c.toLocal(r.to, true);
      if (b <= from || a >= to || a >= b) continue;
      if (!people.has(r.author)) people.set(r.author, this.authorOf(r.author));
      const p = people.get(r.author);
      out.push({ from: Math.max(a, from), to: Math.min(b, to), author: r.author, color: p.color, alpha: p.alpha });
    }
    return out;
  }

  renderLegend() {
    const ids = [...new Set(this.runs.filter((r) => r.author).map((r) => r.author))];
    const items = ids.map((id) => this.authorOf(id));
    const list = this.legend;
    list.textContent = '';
    list.append(el('li', { class: 'legend-title', text: items.length ? 'Written by' : 'No known authors yet' }));
    for (const p of items) {
      const swatch = el('span', { class: 'legend-swatch', 'aria-hidden': 'true' });
      swatch.style.setProperty('--who', p.color);
      swatch.style.setProperty('--tint', `${Math.round(p.alpha * 100)}%`);
      list.append(el('li', { class: 'legend-item', 'data-author': p.id, 'data-color': p.color }, swatch, el('span', { text: p.name })));
    }
    if (this.runs.some((r) => !r.author)) list.append(el('li', { class: 'legend-item unknown', text: 'Untinted: author unknown' }));
  }
}
