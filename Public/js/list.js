// The document list: open, create (keeping the new document's owner link; the editor has
// the focus once it is open), rename where the caller may edit, delete where it owns, with
// a few seconds to take the deletion back.
import { $, el, ago, plural, toast } from './ui.js';
import { enc } from './api.js';
import { OwnerLinkUI } from './owner-link-ui.js';

// What a row offers is asked of the document itself (GET /documents lists no role): for
// documents up to this length; longer ones go by the link this browser holds for them.
const PROBE_MAX = 20000;
const UNDO_DELETE_MS = 8000;

export class ListView {
  /** `focusEditor()` puts the focus in the open document's text. */
  constructor(api, { focusEditor = () => {} } = {}) {
    this.api = api;
    this.focusEditor = focusEditor;
    this.ownerLink = new OwnerLinkUI();
    this.section = $('#list-view');
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
    let docs = [];
    try {
      docs = await this.api.get('/documents');
      if (!Array.isArray(docs)) docs = docs.documents || [];
    } catch (e) {
      toast(`Could not load the documents: ${e.message}`, { kind: 'error' });
    }
    docs.sort((a, b) => String(b.modified || '').localeCompare(String(a.modified || '')));
    const list = $('#doc-list');
    list.textContent = '';
    $('#list-empty').hidden = docs.length > 0;
    for (const d of docs) list.append(this.row(d));
  }

  row(d) {
    const title = d.title || 'Untitled';
    const li = el('li', { class: 'doc-row', 'data-id': d.id });
    if (this.deleting.has(d.id)) return this.deletingRow(li, d);
    const link = el('a', { class: 'doc-link', href: `#/doc/${enc(d.id)}` },
      el('span', { class: 'doc-name', text: title }),
      el('span', { class: 'doc-meta', text: [plural(d.length || 0, 'character'), d.modified ? `edited ${ago(d.modified)}` : ''].filter(Boolean).join(' · ') }));
    const actions = el('span', { class: 'doc-actions' });
    li.append(link, actions);
    this.allowed(d).then(({ rename, remove }) => {
      if (rename) {
        actions.append(el('button', { type: 'button', class: 'button small quiet', 'aria-label': `Rename “${title}”`, text: 'Rename',
          onclick: () => this.startRename(li, d) }));
      }
      if (remove) {
        actions.append(el('button', { type: 'button', class: 'button small quiet danger', 'aria-label': `Delete “${title}”`, text: 'Delete',
          onclick: () => this.deleteSoon(d) }));
      }
    });
    return li;
  }

  /** Whether the caller may rename (edit) and delete (own) `d`. */
  async allowed(d) {
    const link = this.api.links.get(d.id);
    if (link && link.role === 'owner') return { rename: true, remove: true };
    if ((d.length || 0) <= PROBE_MAX) {
      try {
        const doc = await this.api.get(`/documents/${enc(d.id)}`);
        return { rename: doc.canEdit !== false, remove: doc.role === 'owner' };
      } catch { /* offered when known */ }
    }
    return { rename: !!link && link.role === 'editor', remove: false };
  }

  /** Deletes `d` once the time to undo is over; the row says so and offers Undo meanwhile. */
  deleteSoon(d) {
    if (this.deleting.has(d.id)) return;
    const timer = setTimeout(() => this.deleteNow(d.id), UNDO_DELETE_MS);
    this.deleting.set(d.id, { doc: d, timer });
    const li = document.querySelector(`#doc-list li[data-id="${CSS.escape(d.id)}"]`);
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
