// Saving you can trust: save now, the list of versions, view one, revert to it.
import { $, el, ago, plural, toast } from './ui.js';
import { renderDiff } from './diff-view.js';
import { timeElement, keepCurrent } from './relative-time.js';

export class VersionsUI {
  constructor(view) {
    this.view = view;
    this.list = [];
    this.viewing = null;
    $('#save-button').addEventListener('click', () => this.save());
    $('#version-revert').addEventListener('click', () => { /* handled on close */ });
    const list = $('#versions-list');
    keepCurrent(list, () => !view.section.hidden && list.closest('details').open);
  }

  get latest() { return this.list.length ? this.list[this.list.length - 1] : null; }

  async refresh() {
    const view = this.view;
    if (!view.collab) return;
    try {
      const list = await view.api.get(`${view.base}/versions`);
      this.list = (Array.isArray(list) ? list : list.versions || []).slice().sort((a, b) => a.number - b.number);
    } catch (e) {
      if (e.status !== 404) toast(`Could not load the versions: ${e.message}`, { kind: 'error' });
      return;
    }
    this.render();
    view.updateSaveStatus();
  }

  render() {
    const ol = $('#versions-list');
    ol.textContent = '';
    for (const v of this.list.slice().reverse()) {
      const label = v.name ? `Version ${v.number} · ${v.name}` : `Version ${v.number}`;
      ol.append(el('li', { class: 'version-item' },
        el('div', { class: 'version-info' },
          el('span', { class: 'version-name', text: label }),
          el('span', { class: 'version-meta' }, timeElement(v.time), ` · ${plural(v.length || 0, 'character')} · rev ${v.revision}`)),
        el('div', { class: 'version-actions' },
          el('button', { type: 'button', class: 'button small quiet version-changes', text: 'Changes',
            'aria-label': `Show changes since ${label}`, title: 'Show changes since this version', onclick: () => this.showChanges(v) }),
          el('button', { type: 'button', class: 'button small quiet', text: 'View', 'aria-label': `View ${label}`, onclick: () => this.show(v) }))));
    }
    $('#versions-empty').hidden = this.list.length > 0;
    $('#versions-count').textContent = this.list.length ? String(this.list.length) : '';
  }

  async save() {
    const view = this.view;
    const c = view.collab;
    if (!c || !view.access.canEdit) return;
    // Save what we see: wait for our edits to land first.
    await c.whenSynchronized();
    if (c.stopped) { toast('The document is reloading: save again in a moment.'); return; }
    try {
      const v = await view.post('/save');
      toast(`Saved version ${v.number}`);
      view.onSaved(v);
    } catch (e) {
      toast(`Save failed: ${e.message}`, { kind: 'error' });
    }
  }

  async show(v) {
    const view = this.view;
    let text;
    try {
      text = await view.api.get(`${view.base}/versions/${v.number}/text`, { as: 'text' });
    } catch (e) {
      toast(`Could not load version ${v.number}: ${e.message}`, { kind: 'error' });
      return;
    }
    const dialog = $('#version-dialog');
    $('#version-heading').textContent = `Version ${v.number} — saved ${ago(v.time)}`;
    $('#version-text').textContent = text;
    dialog.returnValue = '';
    dialog.showModal();
    dialog.addEventListener('close', () => {
      if (dialog.returnValue === 'revert') this.revert(v);
    }, { once: true });
  }

  /** What changed from version `v` to now, with who changed it; "Restore this version" from there. */
  async showChanges(v) {
    const view = this.view;
    let earlier;
    let diff;
    try {
      [earlier, diff] = await Promise.all([
        view.api.get(`${view.base}/versions/${v.number}/text`, { as: 'text' }),
        view.api.get(`${view.base}/versions/${v.number}/diff?to=current`),
      ]);
    } catch (e) {
      toast(`Could not load the changes since version ${v.number}: ${e.message}`, { kind: 'error' });
      return;
    }
    const dialog = $('#diff-dialog');
    $('#diff-heading').textContent = `Changes since version ${v.number}${v.name ? ` · ${v.name}` : ''} (saved ${ago(v.time)})`;
    renderDiff($('#diff-box'), earlier, diff, view.presence.names());
    $('#diff-revert').hidden = !view.access.canEdit;
    dialog.returnValue = '';
    dialog.showModal();
    dialog.addEventListener('close', () => {
      if (dialog.returnValue === 'revert') this.revert(v);
    }, { once: true });
  }

  async revert(v) {
    const view = this.view;
    if (!view.access.canEdit) return;
    await view.action(async () => {
      const res = await view.post(`/versions/${v.number}/revert`);
      toast(`Reverted to version ${v.number}. Undo brings your text back.`);
      if (res && res.revision !== undefined) view.selectWhenReached(res.revision, res.range || view.constructor.rangeOf(res.ops));
    });
  }
}
