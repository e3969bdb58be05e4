// The document list: open, create (keeping the new document's owner link), rename.
import { $, el, ago, plural, toast } from './ui.js';
import { enc } from './api.js';
import { OwnerLinkUI } from './owner-link-ui.js';

export class ListView {
  constructor(api) {
    this.api = api;
    this.ownerLink = new OwnerLinkUI();
    this.section = $('#list-view');
    $('#create-form').addEventListener('submit', (e) => { e.preventDefault(); this.create(); });
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
    const li = el('li', { class: 'doc-row' });
    const link = el('a', { class: 'doc-link', href: `#/doc/${enc(d.id)}` },
      el('span', { class: 'doc-name', text: title }),
      el('span', { class: 'doc-meta', text: [plural(d.length || 0, 'character'), d.modified ? `edited ${ago(d.modified)}` : ''].filter(Boolean).join(' · ') }));
    const rename = el('button', { type: 'button', class: 'button small quiet', 'aria-label': `Rename “${title}”`, text: 'Rename' });
    rename.addEventListener('click', () => this.startRename(li, d));
    li.append(link, rename);
    return li;
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
      if (owner) this.ownerLink.show(doc);
    } catch (e) {
      toast(`Could not create the document: ${e.message}`, { kind: 'error' });
    }
  }
}
