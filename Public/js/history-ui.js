// Undo you can see: Undo/Redo buttons titled by the server, the scope switch, the undo
// stack panel (with "Undo this" for an older group of ours), and the shake-to-undo alert.
import { $, el, toast } from './ui.js';
import { timeElement, keepCurrent } from './relative-time.js';
import { describe } from './history-preview.js';
import { displayName, resultMessage, othersGroup, undoneByOthersNotice, touchesOwnHistory } from './undo-notices.js';

const SCOPE_KEY = 'tandem.undoScope';

export class HistoryUI {
  constructor(view) {
    this.view = view;
    this.state = null;
    this.fetchedAt = -1; // the revision the shown history was fetched at
    this.asked = 0; // refreshes asked for, numbered
    this.shown = 0; // the number of the one shown: an older answer arriving later is dropped
    this.timer = null;
    this.scope = localStorage.getItem(SCOPE_KEY) === 'document' ? 'document' : 'session';
    for (const r of document.querySelectorAll('input[name="scope"]')) {
      r.checked = r.value === this.scope;
      r.addEventListener('change', () => {
        if (!r.checked) return;
        this.scope = r.value;
        localStorage.setItem(SCOPE_KEY, this.scope);
        this.refresh();
      });
    }
    $('#undo-button').addEventListener('click', () => this.perform('undo'));
    $('#redo-button').addEventListener('click', () => this.perform('redo'));
    // "2 minutes ago" stays true while the panel is open.
    const list = $('#history-list');
    keepCurrent(list, () => !this.view.section.hidden && list.closest('details').open);
  }

  get path() { return `${this.view.base}/history?scope=${this.scope}`; }

  async refresh() {
    const c = this.view.collab;
    if (!c) return;
    const at = c.revision;
    const ask = ++this.asked;
    const { scope } = this;
    try {
      const h = await this.view.api.get(this.path);
      // An answer older than the one shown (or for the scope left) would title the
      // buttons with a stack that is no longer there.
      if (this.view.collab !== c || ask < this.shown || scope !== this.scope) return;
      this.shown = ask;
      this.fetchedAt = at;
      this.render(h);
    } catch (e) {
      // Offline, the status already says so; the history is read again on reconnecting.
      if (e.status !== 404 && e.status !== 0) toast(`Could not load the undo history: ${e.message}`, { kind: 'error' });
    }
  }

  /** Refreshes soon, once for a burst of events. */
  schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.refresh(), 60);
  }

  onEvent(data) {
    const me = this.view.api.session && this.view.api.session.id;
    if (this.scope === 'document' || !data || !data.session || data.session === me) this.schedule();
  }

  changed(change) {
    const me = this.view.api.session && this.view.api.session.id;
    // A change names who made it and, for an undo, whose group it reverted: someone else
    // undoing a group of ours (from everyone's scope) is worth saying.
    const notice = undoneByOthersNotice(change, me, (s) => this.nameOf(s));
    if (notice) toast(notice, { ms: 5000 });
    if (this.scope === 'document' || touchesOwnHistory(change, me)) this.schedule();
  }

  nameOf(session) {
    return displayName(session ? this.view.presence.names().get(session) : null);
  }

  render(h) {
    this.state = h;
    const undo = $('#undo-button');
    const redo = $('#redo-button');
    // A reader sees the history but changes nothing (the read-only view).
    const canEdit = this.view.access.canEdit;
    const titles = menuTitles(h);
    undo.disabled = !titles.canUndo || !canEdit;
    redo.disabled = !titles.canRedo || !canEdit;
    // The label may be cut short on screen ("Undo Ada's T…"): the full title is the
    // button's name and its tooltip.
    $('#undo-label').textContent = titles.undo;
    $('#redo-label').textContent = titles.redo;
    undo.setAttribute('aria-label', titles.undo);
    redo.setAttribute('aria-label', titles.redo);
    undo.title = `${titles.undo} (Ctrl+Z)`;
    redo.title = `${titles.redo} (Ctrl+Shift+Z)`;

    const list = $('#history-list');
    list.textContent = '';
    const stack = (h.undoStack || []).slice().reverse();
    const people = this.view.presence.names();
    const me = this.view.api.session && this.view.api.session.id;
    // In everyone's scope the top may be an open group, which the next undo leaves alone:
    // the one marked next is the top group named as the server's title names it.
    const next = this.scope === 'session' ? 0 : stack.findIndex((e) => (e.actionName || '') === (h.undoActionName || ''));
    stack.forEach((entry, i) => {
      const who = entry.session === me ? 'You' : (people.get(entry.session) || (entry.session ? 'Someone' : 'Anonymous'));
      const name = entry.actionName || 'Change';
      // An older group of ours can be undone alone, leaving what came after it.
      const only = i > 0 && canEdit && this.scope === 'session' && Number.isInteger(entry.id)
        ? el('button', { type: 'button', class: 'button small quiet history-undo', text: 'Undo this',
          'aria-label': `Undo ${name} only`, onclick: () => this.perform('undo', { group: entry.id }) })
        : null;
      const did = describe(entry);
      list.append(el('li', { class: i === next && h.canUndo ? 'history-item next' : 'history-item' },
        el('div', { class: 'history-info' },
          el('span', { class: 'history-name', text: name }),
          did ? el('span', { class: 'history-preview', text: did, title: did }) : null),
        el('span', { class: 'history-meta' }, this.scope === 'document' ? `${who} · ` : null, timeElement(entry.time)),
        only));
    });
    for (const entry of (h.redoStack || []).slice().reverse().slice(0, 5)) {
      const did = describe(entry);
      list.append(el('li', { class: 'history-item redo' },
        el('div', { class: 'history-info' },
          el('span', { class: 'history-name', text: `${entry.actionName || 'Change'}` }),
          did ? el('span', { class: 'history-preview', text: did, title: did }) : null),
        el('span', { class: 'history-meta', text: 'undone · can redo' })));
    }
    $('#history-empty').hidden = stack.length > 0 || (h.redoStack || []).length > 0;
    $('#history-count').textContent = stack.length ? String(stack.length) : '';
  }

  /**
   * Undo or redo through the server, once every edit of ours is acknowledged. `group` (an
   * undo stack entry's id) undoes that group of ours alone, wherever it is in the stack.
   */
  async perform(kind, { group = null } = {}) {
    const view = this.view;
    if (!view.access.canEdit) return;
    await view.action(async () => {
      if (group === null) {
        // The buttons' state may predate our last keystrokes: check afresh.
        if (this.fetchedAt !== view.collab.revision) await this.refresh();
        const h = this.state;
        const can = kind === 'undo' ? h && h.canUndo : h && h.canRedo;
        if (!can) {
          toast(kind === 'undo' ? 'Nothing to undo' : 'Nothing to redo');
          return;
        }
      }
      let res;
      try {
        res = await view.post(`/${kind}?${group === null ? `scope=${this.scope}` : `group=${group}`}`);
      } catch (e) {
        if (e.status === 409 && group === null) { toast(kind === 'undo' ? 'Nothing to undo' : 'Nothing to redo'); this.refresh(); return; }
        // A group refused (gone, someone else's, undone already): the list was out of date.
        if (group !== null && e.status >= 400) this.refresh();
        throw e; // view.action shows the server's message
      }
      if (res.history) { this.shown = ++this.asked; this.fetchedAt = res.revision; this.render(res.history); }
      view.selectWhenReached(res.revision, res.range || view.constructor.rangeOf(res.ops));
      const me = view.api.session && view.api.session.id;
      const owner = othersGroup(res, me);
      toast(resultMessage(kind, res, owner && this.nameOf(owner)), { ms: res.partial ? 5000 : 3200 });
    });
  }

  async offerShake() {
    const dialog = $('#shake-dialog');
    if (dialog.open) return;
    await this.refresh();
    const h = this.state || {};
    const undo = $('#shake-undo');
    const redo = $('#shake-redo');
    undo.hidden = !h.canUndo;
    redo.hidden = !h.canRedo;
    undo.textContent = h.undoMenuItemTitle || 'Undo';
    redo.textContent = h.redoMenuItemTitle || 'Redo';
    $('#shake-heading').textContent = h.canUndo ? (h.undoMenuItemTitle || 'Undo') : (h.canRedo ? (h.redoMenuItemTitle || 'Redo') : 'Nothing to Undo');
    dialog.returnValue = '';
    dialog.showModal();
    dialog.addEventListener('close', () => {
      if (dialog.returnValue === 'undo') this.perform('undo');
      else if (dialog.returnValue === 'redo') this.perform('redo');
    }, { once: true });
  }
}

/**
 * What the Undo and Redo buttons say and whether they work, exactly as the server's
 * GET …/history answer for the scope shown says: only the server knows which group the
 * next undo reverts (an open group, or one others erased, is not it).
 */
export function menuTitles(h) {
  return {
    undo: (h && h.undoMenuItemTitle) || 'Undo',
    redo: (h && h.redoMenuItemTitle) || 'Redo',
    canUndo: !!(h && h.canUndo),
    canRedo: !!(h && h.canRedo),
  };
}
