// Undo you can see: Undo/Redo buttons titled by the server, the scope switch, the undo
// stack panel, and the shake-to-undo alert.
import { $, el, ago, toast } from './ui.js';

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
    // An undo of a change of ours carries our session; not made here (our own undo runs
    // as an action), it was someone else's, from everyone's scope: say so.
    const c = this.view.collab;
    if (change.kind === 'undo' && change.session === me && c && !c.actionBusy) {
      toast(`Someone undid your ${change.actionName || 'change'}`, { ms: 5000 });
    }
    if (this.scope === 'document' || change.session === me) this.schedule();
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
    const name = this.view.presence.names().get(session);
    return name ? name.replace(/\s*\(guest\)$/, '') : 'Someone';
  }

  render(h) {
    this.state = h;
    const undo = $('#undo-button');
    const redo = $('#redo-button');
    undo.disabled = !h.canUndo;
    redo.disabled = !h.canRedo;
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
      list.append(el('li', { class: i === 0 ? 'history-item next' : 'history-item' },
        el('span', { class: 'history-name', text: entry.actionName || 'Change' }),
        el('span', { class: 'history-meta', text: [this.scope === 'document' ? who : null, ago(entry.time)].filter(Boolean).join(' · ') })));
    });
    for (const entry of (h.redoStack || []).slice().reverse().slice(0, 5)) {
      list.append(el('li', { class: 'history-item redo' },
        el('span', { class: 'history-name', text: `${entry.actionName || 'Change'}` }),
        el('span', { class: 'history-meta', text: 'undone · can redo' })));
    }
    $('#history-empty').hidden = stack.length > 0 || (h.redoStack || []).length > 0;
    $('#history-count').textContent = stack.length ? String(stack.length) : '';
  }

  /** Undo or redo through the server, once every edit of ours is acknowledged. */
  async perform(kind) {
    const view = this.view;
    await view.action(async () => {
      // The buttons' state may predate our last keystrokes: check afresh.
      if (this.fetchedAt !== view.collab.revision) await this.refresh();
      const h = this.state;
      const can = kind === 'undo' ? h && h.canUndo : h && h.canRedo;
      if (!can) {
        toast(kind === 'undo' ? 'Nothing to undo' : 'Nothing to redo');
        return;
      }
      let res;
      try {
        res = await view.post(`/${kind}?scope=${this.scope}`);
      } catch (e) {
        if (e.status === 409) { toast(kind === 'undo' ? 'Nothing to undo' : 'Nothing to redo'); this.refresh(); return; }
        throw e;
      }
      if (res.history) { this.fetchedAt = res.revision; this.render(res.history); }
      view.selectWhenReached(res.revision, res.range || view.constructor.rangeOf(res.ops));
      const whose = this.scope === 'document' ? this.title(kind, h).replace(/^(Undo|Redo) /, '') : (res.actionName || 'change');
      toast(`${kind === 'undo' ? 'Undid' : 'Redid'} ${whose}`);
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

/** "Ada’s", "Frances’s" (as Chicago has it, and as people say it). */
function possessive(name) { return `${name}’s`; }
