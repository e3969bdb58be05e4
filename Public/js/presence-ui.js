// Who is here: avatars in the app bar, one per person (as many as the bar has room for,
// then "+N"), and their carets and selections in the text, one per tab.
import { $, el, initials } from './ui.js';
import { freeGuestName } from './api.js';
import { textOn } from './contrast.js';

/**
 * One entry per person: a user's sessions (tabs, devices; the same non-null `user`) are
 * one person, shown once, by the session `me` when it is one of them, else by the first;
 * a guest's session is a person of its own. Pure, in the order given.
 */
export function perPerson(people, me) {
  const byUser = new Map();
  const out = [];
  for (const p of people) {
    if (p.user === null || p.user === undefined) { out.push(p); continue; }
    const seen = byUser.get(p.user);
    if (seen === undefined) { byUser.set(p.user, out.length); out.push(p); }
    else if (p.id === me) out[seen] = p;
  }
  return out;
}

/**
 * The avatars to show of `people` (me first) when `max` fit: all of them, or max − 1 and
 * the rest counted in a "+N". Pure: {shown, more}.
 */
export function collapse(people, me, max) {
  const sorted = people.slice().sort((a, b) => (a.id === me ? -1 : b.id === me ? 1 : 0));
  if (sorted.length <= max) return { shown: sorted, more: [] };
  const keep = Math.max(0, max - 1);
  return { shown: sorted.slice(0, keep), more: sorted.slice(keep) };
}

export class PresenceUI {
  constructor(view) {
    this.view = view;
    this.people = [];
    this.known = new Map(); // session id → name, kept for the history panel
    this.max = 0;
    // How many fit is the stylesheet's to say (--avatars-max, by the width of the screen).
    window.addEventListener('resize', () => { if (this.maxAvatars() !== this.max) this.renderAvatars(); });
  }

  maxAvatars() {
    const n = parseInt(getComputedStyle($('#people')).getPropertyValue('--avatars-max'), 10);
    return Number.isFinite(n) && n > 0 ? n : 5;
  }

  renderAvatars() {
    const me = this.view.api.session && this.view.api.session.id;
    const ul = $('#people');
    this.max = this.maxAvatars();
    const { shown, more } = collapse(perPerson(this.people, me), me, this.max);
    // A caret moving sends everyone again: the list is rebuilt only when it would differ.
    const key = JSON.stringify([me, shown.map((p) => [p.id, p.name, p.color]), more.map((p) => [p.id, p.name])]);
    if (key === this.shownKey && ul.childNodes.length) return;
    this.shownKey = key;
    const items = shown.map((p) => {
      const label = p.id === me ? `${p.name} (you)` : p.name;
      return el('li', { class: p.id === me ? 'avatar me' : 'avatar', style: `--who:${p.color};--who-text:${textOn(p.color)}`, title: label },
        el('span', { 'aria-hidden': 'true', text: initials(p.name) }),
        el('span', { class: 'visually-hidden', text: label }));
    });
    if (more.length) {
      const names = more.map((p) => (p.id === me ? `${p.name} (you)` : p.name)).join(', ');
      items.push(el('li', { class: 'avatar more', title: names },
        el('span', { 'aria-hidden': 'true', text: `+${more.length}` }),
        el('span', { class: 'visually-hidden', text: `and ${more.length} more: ${names}` })));
    }
    ul.replaceChildren(...items);
  }

  async open() {
    try {
      const list = await this.view.api.get(`${this.view.base}/presence`);
      if (this.view.collab) { this.view.collab.onPresence(list); }
    } catch { /* the stream brings it too */ }
  }

  names() { return this.known; }

  update(people, moved = []) {
    this.view.editor.markMoved(moved);
    this.people = people;
    const renamed = people.some((p) => this.known.has(p.id) && this.known.get(p.id) !== p.name);
    for (const p of people) this.known.set(p.id, p.name);
    // "Undo Ada's Typing" and the history panel name people: a new name shows there too.
    const history = this.view.history;
    if (renamed && history.state) history.render(history.state);
    const me = this.view.api.session && this.view.api.session.id;
    this.renderAvatars();
    this.render();
    this.avoidNameClash(people, me);
  }

  /**
   * Two guests both called "Ada (guest)" cannot tell whose caret is whose: the one with the
   * later session id takes another guest name. A name someone chose is left alone, and so
   * is a signed-in user's (their tabs are one person, named after the account).
   */
  async avoidNameClash(people, me) {
    const api = this.view.api;
    const mine = people.find((p) => p.id === me);
    if (!mine || !api.hasGuestName || api.signedIn || this.renaming) return;
    if (!people.some((p) => p.id !== me && p.name === mine.name && p.id < me)) return;
    const name = freeGuestName(new Set(people.map((p) => p.name)));
    if (!name) return;
    this.renaming = true;
    try { await api.renameSession(name, { remember: false }); } catch { /* keep the old one */ }
    this.renaming = false;
  }

  /** Redraws others' selections (after any change, since positions move). */
  render() {
    const c = this.view.collab;
    if (!c) return;
    this.view.editor.setOthers(c.othersLocal());
  }
}
