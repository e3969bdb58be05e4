// Who is here: avatars in the app bar, and their carets and selections in the text.
import { $, el, initials } from './ui.js';

export class PresenceUI {
  constructor(view) {
    this.view = view;
    this.people = [];
    this.known = new Map(); // session id → name, kept for the history panel
  }

  async open() {
    try {
      const list = await this.view.api.get(`${this.view.base}/presence`);
      if (this.view.collab) { this.view.collab.onPresence(list); }
    } catch { /* the stream brings it too */ }
  }

  names() { return this.known; }

  update(people) {
    this.people = people;
    for (const p of people) this.known.set(p.id, p.name);
    const me = this.view.api.session && this.view.api.session.id;
    const ul = $('#people');
    ul.textContent = '';
    const sorted = people.slice().sort((a, b) => (a.id === me ? -1 : b.id === me ? 1 : 0));
    for (const p of sorted) {
      const label = p.id === me ? `${p.name} (you)` : p.name;
      ul.append(el('li', { class: p.id === me ? 'avatar me' : 'avatar', style: `--who:${p.color}`, title: label },
        el('span', { 'aria-hidden': 'true', text: initials(p.name) }),
        el('span', { class: 'visually-hidden', text: label })));
    }
    this.render();
  }

  /** Redraws others' selections (after any change, since positions move). */
  render() {
    const c = this.view.collab;
    if (!c) return;
    this.view.editor.setOthers(c.othersLocal());
  }
}
