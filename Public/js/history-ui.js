// Undo you can see: Undo/Redo buttons titled by the server, the scope switch, the undo
// stack panel (with "Undo this" for an older group of ours), and the shake-to-undo alert.
import { $, el, ago, toast } from './ui.js';
import { displayName, possessive, resultMessage, othersGroup, undoneByOthersNotice, touchesOwnHistory } from './undo-notices.js';

const SCOPE_KEY = 'tandem.undoScope';

export class HistoryUI {
  constructor(view) {
    this.view = view;
    this.state = null;
    this.fetchedAt = -1; // the revision the shown history was fetched at
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
  }

  get path() { return `${this.view.base}/history?scope=${this.scope}`; }

  async refresh() {
    const c = this.view.collab;
    if (!c) return;
    const at = c.revision;
    try {
      const h = await this.view.api.get(this.path);
      if (this.view.collab !== c) return;
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

  /** "Undo Ada's Typing" when the change is someone else's (everyone's scope). */
  title(kind, h) {
    const own = kind === 'undo' ? h.undoMenuItemTitle : h.redoMenuItemTitle;
    const stack = kind === 'undo' ? h.undoStack : h.redoStack;
    const top = stack && stack[stack.length - 1];
    const me = this.view.api.session && this.view.api.session.id;
    if (this.scope !== 'document' || !top || !top.session || top.session === me) return own || (kind === 'undo' ? 'Undo' : 'Redo');
    const verb = kind === 'undo' ? 'Undo' : 'Redo';
    return `${verb} ${possessive(this.nameOf(top.session))} ${top.actionName || 'Change'}`;
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
    undo.disabled = !h.canUndo || !canEdit;
    redo.disabled = !h.canRedo || !canEdit;
    const undoTitle = this.title('undo', h);
    const redoTitle = this.title('redo', h);
    $('#undo-label').textContent = undoTitle;
    $('#redo-label').textContent = redoTitle;
    undo.title = `${undoTitle} (Ctrl+Z)`;
    redo.title = `${redoTitle} (Ctrl+Shift+Z)`;

    const list = $('#history-list');
    list.textContent = '';
    const stack = (h.undoStack || []).slice().reverse();
    const people = this.view.presence.names();
    const me = this.view.api.session && this.view.api.session.id;
    stack.forEach((entry, i) => {
      const who = entry.session === me ? 'You' : (people.get(entry.session) || (entry.session ? 'Someone' : 'Anonymous'));
      const name = entry.actionName || 'Change';
      // An older group of ours can be undone alone, leaving what came after it.
      const only = i > 0 && canEdit && this.scope === 'session' && Number.isInteger(entry.id)
        ? el('button', { type: 'button', class: 'button small quiet history-undo', text: 'Undo this',
          'aria-label': `Undo ${name} only`, onclick: () => this.perform('undo', { group: entry.id }) })
        : null;
      list.append(el('li', { class: i === 0 ? 'history-item next' : 'history-item' },
        el('span', { class: 'history-name', text: name }),
        el('span', { class: 'history-meta', text: [this.scope === 'document' ? who : null, ago(entry.time)].filter(Boolean).join(' · ') }),
        only));
    });
    for (const entry of (h.redoStack || []).slice().reverse().slice(0, 5)) {
      list.append(el('li', { class: 'history-item redo' },
        el('span', { class: 'history-name', text: `${entry.actionName || 'Change'}` }),
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
      if (res.history) { this.fetchedAt = res.revision; this.render(res.history); }
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
