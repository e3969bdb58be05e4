// The home page: the caller's documents in three lists (My documents, Shared with me,
// Recent), each row opening it; create (keeping the new document's owner link; the editor
// has the focus once it is open), rename where the caller is owner or editor, delete where
// it owns, with a few seconds to take the deletion back.
import { $, el, ago, plural, toast } from './ui.js';
import { enc } from './api.js';
import { OwnerLinkUI } from './owner-link-ui.js';

const UNDO_DELETE_MS = 8000;
const RANK = { viewer: 1, editor: 2, owner: 3 };
const ROLE_NAMES = { editor: 'Editor', viewer: 'Viewer' };

/**
 * What the caller may do with `d`: the list's `role` (its session's), or the role of the
 * link this browser holds for it when higher, since a rename or delete sends that link too.
 * Asking the document itself would count as opening it, so the list never does.
 */
export function roleOf(d, link) {
  const listed = RANK[d.role] ? d.role : null;
  const held = link && RANK[link.role] ? link.role : null;
  if (!held) return listed;
  return !listed || RANK[held] > RANK[listed] ? held : listed;
}

/**
 * The role `d` is listed by: the list's, or owner where this browser holds the owner link
 * (made here, in another tab). A share link someone sent is not a role given to me: what it
 * opened stays under Recent.
 */
export function placeOf(d, link) {
  if (link && link.role === 'owner') return 'owner';
  return RANK[d.role] ? d.role : null;
}

/** A time as the server writes it (seconds since 1970, or an ISO date) in milliseconds; 0 for none. */
function timeOf(t) {
  if (typeof t === 'number') return t < 1e12 ? t * 1000 : t;
  const ms = Date.parse(t);
  return Number.isFinite(ms) ? ms : 0;
}

const newest = (key) => (a, b) => timeOf(b[key]) - timeOf(a[key]);

/**
 * `docs` (each with its `role` as placeOf gives it) sorted into the three lists, each
 * document in one: what I own, what was given to me (editor, viewer), and Recent: only the
 * others, those I opened with no role of mine (a share link, an open document), newest
 * opened first, so that no document shows twice. Pure: {mine, shared, recent}.
 */
export function sections(docs) {
  const mine = docs.filter((d) => d.role === 'owner').sort(newest('modified'));
  const shared = docs.filter((d) => d.role === 'editor' || d.role === 'viewer').sort(newest('modified'));
  const recent = docs.filter((d) => !RANK[d.role]).sort(newest('opened'));
  return { mine, shared, recent };
}

export class ListView {
  /** `focusEditor()` puts the focus in the open document's text. */
  constructor(api, { focusEditor = () => {} } = {}) {
    this.api = api;
    this.focusEditor = focusEditor;
    this.ownerLink = new OwnerLinkUI();
    this.section = $('#list-view');
    this.reads = 0; // refreshes started: only the latest one shows what it read
    this.deleting = new Map(); // id → {doc, timer}: deleted once the time to undo is over
    $('#create-form').addEventListener('submit', (e) => { e.preventDefault(); this.create(); });
    // Leaving the page ends the time to undo: the deletions go now.
    window.addEventListener('pagehide', () => { for (const id of [...this.deleting.keys()]) this.deleteNow(id, { keepalive: true }); });
  }

  async show() {
    this.section.hidden = false;
    document.title = 'Documents · Tandem';
    await this.refresh();
  }

  hide() { this.section.hidden = true; }

  async refresh() {
    const read = ++this.reads;
    let docs = [];
    try {
      docs = await this.api.get('/documents');
      if (!Array.isArray(docs)) docs = docs.documents || [];
    } catch (e) {
      if (read === this.reads) toast(`Could not load the documents: ${e.message}`, { kind: 'error' });
    }
    if (read !== this.reads) return;
    const lists = sections(docs.map((d) => {
      const link = this.api.links.get(d.id);
      return { ...d, role: placeOf(d, link), may: roleOf(d, link) };
    }));
    for (const [name, list] of Object.entries(lists)) {
      $(`#${name}-list`).replaceChildren(...list.map((d) => this.row(d, name)));
      $(`#${name}-empty`).hidden = list.length > 0;
    }
  }

  row(d, section) {
    const title = d.title || 'Untitled';
    const li = el('li', { class: 'doc-row', 'data-id': d.id });
    if (this.deleting.has(d.id)) return this.deletingRow(li, d);
    const when = section === 'recent' && d.opened ? `opened ${ago(d.opened)}` : d.modified ? `edited ${ago(d.modified)}` : '';
    const meta = [ROLE_NAMES[d.role], plural(d.length || 0, 'character'), when].filter(Boolean).join(' · ');
    const link = el('a', { class: 'doc-link', href: `#/doc/${enc(d.id)}` },
      el('span', { class: 'doc-name', text: title }),
      el('span', { class: 'doc-meta', text: meta }));
    const actions = el('span', { class: 'doc-actions' });
    if (d.may === 'owner' || d.may === 'editor') {
      actions.append(el('button', { type: 'button', class: 'button small quiet', 'aria-label': `Rename “${title}”`, text: 'Rename',
        onclick: () => this.startRename(li, d) }));
    }
    if (d.may === 'owner') {
      actions.append(el('button', { type: 'button', class: 'button small quiet danger', 'aria-label': `Delete “${title}”`, text: 'Delete',
        onclick: () => this.deleteSoon(d) }));
    }
    li.append(link, actions);
    return li;
  }

  /** Deletes `d` once the time to undo is over; the row says so and offers Undo meanwhile. */
  deleteSoon(d) {
    if (this.deleting.has(d.id)) return;
    const timer = setTimeout(() => this.deleteNow(d.id), UNDO_DELETE_MS);
    this.deleting.set(d.id, { doc: d, timer });
    const li = document.querySelector(`.doc-list li[data-id="${CSS.escape(d.id)}"]`);
    if (li) {
      li.textContent = '';
      this.deletingRow(li, d);
      li.querySelector('button').focus();
    }
  }

  deletingRow(li, d) {
    const title = d.title || 'Untitled';
    li.classList.add('deleting');
    li.append(el('span', { class: 'doc-deleting', role: 'status', text: `“${title}” will be deleted in a few seconds.` }),
      el('button', { type: 'button', class: 'button small', text: 'Undo', 'aria-label': `Undo deleting “${title}”`,
        onclick: () => this.undoDelete(d.id) }));
    return li;
  }

  undoDelete(id) {
    const pending = this.deleting.get(id);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.deleting.delete(id);
    toast(`“${pending.doc.title || 'Untitled'}” was not deleted.`);
    if (!this.section.hidden) this.refresh();
  }

  async deleteNow(id, { keepalive = false } = {}) {
    const pending = this.deleting.get(id);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.deleting.delete(id);
    try {
      await this.api.del(`/documents/${enc(id)}`, keepalive ? { keepalive } : undefined);
      if (!keepalive) toast(`Deleted “${pending.doc.title || 'Untitled'}”.`);
    } catch (e) {
      if (e.status !== 404) toast(`Could not delete “${pending.doc.title || 'Untitled'}”: ${e.message}`, { kind: 'error' });
    }
    if (!this.section.hidden && !keepalive) this.refresh();
  }

  startRename(li, d) {
    const input = el('input', { type: 'text', class: 'rename-input', value: d.title || '', 'aria-label': 'New title', maxlength: '200' });
    const form = el('form', { class: 'rename-form' }, input,
      el('button', { type: 'submit', class: 'button small primary', text: 'Save' }),
      el('button', { type: 'button', class: 'button small quiet', text: 'Cancel', onclick: () => this.refresh() }));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      try {
        await this.api.patch(`/documents/${enc(d.id)}`, { title: input.value.trim() });
      } catch (err) {
        toast(`Rename failed: ${err.message}`, { kind: 'error' });
      }
      this.refresh();
    });
    input.addEventListener('keydown', (e) => { if (e.key === 'Escape') this.refresh(); });
    li.textContent = '';
    li.append(form);
    input.focus();
    input.select();
  }

  async create() {
    const input = $('#create-title');
    const title = input.value.trim() || 'Untitled document';
    try {
      const doc = await this.api.post('/documents', { title });
      input.value = '';
      // Shown this once: this browser keeps it, so every tab here stays the owner.
      const owner = doc.ownerLink && doc.ownerLink.token;
      if (owner) this.api.links.remember(doc.id, owner, 'owner');
      location.hash = `#/doc/${enc(doc.id)}`;
      // Creating a document is to write in it: the text has the focus (once the owner
      // link, shown this once, is put away).
      if (owner) this.ownerLink.show(doc, () => this.focusEditor(doc.id));
      else this.focusEditor(doc.id);
    } catch (e) {
      toast(`Could not create the document: ${e.message}`, { kind: 'error' });
    }
  }
}
