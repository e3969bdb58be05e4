// One open document: wires the editor, the OT client and the panels together.
import { $, setStatus, toast } from './ui.js';
import { enc, randomKey } from './api.js';
import { Collab } from './collab.js';
import { Editor } from './editor.js';
import { ViewportEditor, wantsViewport } from './viewport-editor.js';
import { HistoryUI } from './history-ui.js';
import { ClipboardUI } from './clipboard-ui.js';
import { VersionsUI } from './versions-ui.js';
import { PresenceUI } from './presence-ui.js';
import { AccessUI } from './access-ui.js';
import { ShareUI } from './share-ui.js';
import { AuthorshipUI } from './authorship-ui.js';
import { watchShake, shakeSetting } from './shake.js';
import * as ot from './ot.js';
import * as ss from './saved-state.js';

export class DocView {
  constructor(api) {
    this.api = api;
    this.section = $('#doc-view');
    // Two text surfaces, one shown: the textarea, and for long documents one that lays out
    // only the lines in view (the textarea's own layout of a megabyte costs a frame's budget).
    this.editors = [new Editor($('#editor')), new ViewportEditor($('#editor-viewport'))];
    this.editor = this.editors[0];
    this.collab = null;
    this.doc = null;
    this.pendingSelects = [];
    this.history = new HistoryUI(this);
    this.clipboard = new ClipboardUI(this);
    this.versions = new VersionsUI(this);
    this.presence = new PresenceUI(this);
    this.access = new AccessUI(this);
    this.share = new ShareUI(this);
    this.authorship = new AuthorshipUI(this);

    for (const ed of this.editors) {
      ed.sink = (op, meta) => { if (this.collab && ed === this.editor) this.collab.applyLocal(op, meta); };
      ed.addEventListener('undo', () => this.history.perform('undo'));
      ed.addEventListener('redo', () => this.history.perform('redo'));
      ed.addEventListener('selection', () => { if (ed === this.editor) this.clipboard.selectionChanged(); });
      ed.addEventListener('compositionstart', () => this.collab && this.collab.hold());
      ed.addEventListener('compositionend', () => this.collab && this.collab.release());
    }
    // The undo keys are the server's wherever focus is (a button, the page), except in
    // another text field, whose own undo is the one meant there.
    document.addEventListener('keydown', (e) => this.onKey(e));

    const title = $('#doc-title');
    title.addEventListener('change', () => this.rename(title.value));
    title.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); this.editor.focus(); } });

    watchShake(() => { if (this.collab && !this.section.hidden && this.access.canEdit) this.history.offerShake(); });
    window.addEventListener('beforeunload', (e) => {
      if (this.collab && this.collab.pendingCount) { e.preventDefault(); e.returnValue = ''; }
    });
  }

  get id() { return this.doc && this.doc.id; }
  get base() { return `/documents/${enc(this.id)}`; }

  /**
   * Opens a document. `doc` skips fetching it; `carry` ({base, op} from Collab.takePending)
   * is typing from before a reload, applied again on top of the document as it is now.
   */
  async show(id, { doc = null, carry = null } = {}) {
    // A reload (doc given) keeps the editor on screen, focused, the caret by its words.
    const reloading = !!doc && this.id === id;
    const focused = reloading && document.activeElement === this.editor.field;
    const caret = reloading ? this.editor.selection() : null;
    const before = reloading ? this.editor.getText() : null;
    this.close({ keepVisible: reloading });
    if (!doc) {
      try {
        doc = await this.api.get(`/documents/${enc(id)}`);
      } catch (e) {
        if (e.status === 404) { this.access.showMissing(id); return; }
        toast(`Could not open the document: ${e.message}`, { kind: 'error' });
        return;
      }
    }
    this.doc = doc;
    this.everOnline = false;
    this.section.hidden = false;
    $('#doc-heading').hidden = false;
    $('#appbar-status').hidden = false;
    $('#share-button').hidden = false;
    this.showTitle(doc.title);
    if (!reloading) this.useEditorFor(doc.text);
    this.editor.setText(doc.text, { keepScroll: reloading });
    this.saved = ss.opened(doc);
    this.savedNumber = 0;
    this.docState = doc.state || 'normal';
    this.access.set(doc);
    this.setDocState(this.docState);

    const collab = new Collab(this.api, doc, this.editor);
    this.collab = collab;
    collab.addEventListener('sync', () => { this.updateStatus(); this.presence.render(); });
    collab.addEventListener('connection', (e) => this.onConnection(e.detail.status));
    collab.addEventListener('title', (e) => this.showTitle(e.detail && e.detail.title));
    collab.addEventListener('retrying', () => this.updateStatus());
    collab.addEventListener('change', (e) => this.onChange(e.detail));
    collab.addEventListener('presence', (e) => this.presence.update(e.detail.people, e.detail.moved));
    collab.addEventListener('history', (e) => this.history.onEvent(e.detail));
    collab.addEventListener('saved', (e) => this.onSaved(e.detail));
    collab.addEventListener('version', (e) => this.versions.onVersion(e.detail));
    collab.addEventListener('versionRemoved', (e) => this.onVersionRemoved(e.detail));
    collab.addEventListener('state', (e) => this.setDocState(e.detail && e.detail.state));
    collab.addEventListener('access', (e) => {
      const mode = e.detail && e.detail.access;
      this.access.announceMode(mode);
      this.share.onAccess(mode);
      this.recheckAccess(collab);
    });
    collab.addEventListener('pasteboard', (e) => this.clipboard.onEvent(e.detail));
    collab.addEventListener('reset', (e) => this.onReset(e.detail));
    collab.addEventListener('failed', (e) => this.onFailed(e.detail));
    // The stream was refused (404: gone, or made private or our access removed): reload,
    // which shows the document as we may see it now, or that it is no longer there.
    collab.addEventListener('refused', () => this.reopen(collab, { keepPending: false }));
    collab.start();
    this.authorship.open();
    if (carry) this.carryOver(carry, doc.text);
    if (caret) {
      const moved = ot.diff(before, this.editor.getText(), caret.head);
      const a = ot.transformPosition(caret.anchor, moved);
      const h = ot.transformPosition(caret.head, moved);
      if (focused) this.editor.focus({ preventScroll: true });
      this.editor.setSelection(a, h);
    }
    this.updateStatus();
    this.updateSaveStatus();
    if (this.focusNext === id) this.focusWhenShown(id);
    await Promise.all([this.history.refresh(), this.versions.refresh(), this.clipboard.open(), this.presence.open()]);
    if (ss.unknown(this.saved) && this.versions.latest && this.collab === collab) this.learnSaved(this.versions.latest);
  }

  /**
   * Version `v` was saved: its text becomes the one "Unsaved changes" compares with. Read
   * from the text here when it is the committed one, else from the server.
   */
  async learnSaved(v) {
    const c = this.collab;
    if (!c || !v || v.number <= this.savedNumber) return;
    this.savedNumber = v.number;
    let text = v.revision === c.revision ? c.serverText : null;
    if (text === null) {
      try {
        text = await this.api.get(`${this.base}/versions/${v.number}/text`, { as: 'text' });
      } catch { this.savedNumber = 0; return; /* the next save tells again */ }
      if (this.collab !== c || v.number !== this.savedNumber) return;
    }
    this.saved = ss.savedAs(text, c.serverText);
    this.updateSaveStatus();
  }

  /** Only the server knows whether there are unsaved changes (see saved-state.js): ask it, once for a burst. */
  askSaved() {
    clearTimeout(this.askSavedTimer);
    const c = this.collab;
    this.askSavedTimer = setTimeout(async () => {
      try {
        const doc = await this.api.get(this.base);
        if (this.collab !== c || doc.revision !== c.revision) return;
        this.saved = ss.told(this.saved, doc.hasUnsavedChanges);
        this.updateSaveStatus();
      } catch { /* the next change asks again */ }
    }, 400);
  }

  /**
   * Puts the focus in the text of document `id` as soon as it is shown and nothing modal
   * is in front of it (the owner link's dialog calls this again once closed).
   */
  focusWhenShown(id) {
    const shown = this.id === id && !this.section.hidden;
    if (!shown || document.querySelector('dialog[open]')) { this.focusNext = id; return; }
    this.focusNext = null;
    if (this.access.canEdit) this.editor.focus();
  }

  /** Shows the surface for a document of this text (a reload keeps the one shown). */
  useEditorFor(text) {
    const next = this.editors[wantsViewport(text) ? 1 : 0];
    if (next === this.editor) return;
    this.editor.setOthers([]);
    this.editor.setText('');
    this.editor.root.hidden = true;
    next.root.hidden = false;
    this.editor = next;
    document.querySelector('.skip-link').href = `#${next.field.id}`;
  }

  /** Rebases `carry` through whatever changed on the server since its base, and sends it. */
  carryOver(carry, text) {
    let op;
    try {
      const missed = ot.diff(carry.base, text);
      [op] = ot.transform(carry.op, missed);
    } catch (e) {
      toast(`Reloaded the document; your last changes could not be kept (${e.message}).`, { kind: 'error', ms: 6000 });
      return;
    }
    if (ot.isNoop(op)) return;
    this.editor.setText(ot.apply(text, op));
    this.collab.applyLocal(op, { newGroup: true });
  }

  /**
   * The client cannot go on (the log no longer reaches back, or the server refused a
   * change): fetch the document again, retrying while the server is away, and carry what
   * is typed and unacknowledged over to it. The editor stays up and editable meanwhile.
   */
  async reopen(old, { keepPending = true, sayLost = true, rightsLost = false } = {}) {
    const id = this.id;
    old.stop();
    this.updateStatus();
    await old.settleInflight();
    if (this.collab !== old) return;
    let doc;
    for (let delay = 500; ; delay = Math.min(delay * 2, 8000)) {
      try {
        doc = await this.api.get(`/documents/${enc(id)}`);
        break;
      } catch (e) {
        if (this.collab !== old) return; // the reader has moved on
        if (e.status === 404) { await this.show(id); return; }
        await new Promise((r) => setTimeout(r, delay));
      }
    }
    if (this.collab !== old) return;
    const pending = old.takePending();
    const carry = keepPending && !rightsLost ? pending : null;
    if (pending && !carry && sayLost && !rightsLost) toast('Reloaded the document; your last changes could not be sent.', { kind: 'error', ms: 6000 });
    await this.show(id, { doc, carry });
    // After show (which clears the notice): what was typed stays in sight, to copy.
    if (rightsLost) this.access.lost(pending);
  }

  close({ keepVisible = false } = {}) {
    if (this.collab) this.collab.stop();
    this.collab = null;
    this.doc = null;
    this.pendingSelects = [];
    if (keepVisible) return;
    this.access.close();
    this.authorship.close();
    this.section.hidden = true;
    $('#share-button').hidden = true;
    $('#missing-view').hidden = true;
    $('#doc-heading').hidden = true;
    $('#appbar-status').hidden = true;
    $('#people').textContent = '';
    for (const ed of this.editors) ed.setOthers([]);
  }

  onKey(e) {
    const mod = e.ctrlKey || e.metaKey;
    if (!mod || e.altKey || e.defaultPrevented || !this.collab || this.section.hidden) return;
    const t = e.target;
    const otherField = t !== this.editor.field && t instanceof Element &&
      (t.matches('input:not([type=radio]):not([type=checkbox]):not([type=button]):not([type=submit]), textarea, select, [contenteditable]:not([contenteditable=false])') ||
       t.closest('dialog[open]'));
    if (otherField) return;
    const key = e.key.toLowerCase();
    if (key === 'z' && !e.shiftKey) { e.preventDefault(); this.history.perform('undo'); }
    else if ((key === 'z' && e.shiftKey) || (key === 'y' && e.ctrlKey && !e.metaKey)) { e.preventDefault(); this.history.perform('redo'); }
    else if (key === 's') { e.preventDefault(); this.versions.save(); }
  }

  onChange({ change, own }) {
    if (!own && change.session) this.editor.markMoved([change.session]);
    this.saved = ss.committed(this.saved, this.collab.serverText);
    if (ss.unknown(this.saved)) this.askSaved();
    this.updateSaveStatus();
    this.presence.render();
    this.history.changed(change);
    this.clipboard.changed(change);
    this.authorship.changed();
    this.runPendingSelects();
  }

  /** After a change of ours made on the server (undo, paste…), select where it landed. */
  selectWhenReached(revision, range) {
    if (!range) return;
    this.pendingSelects.push({ revision, range });
    this.runPendingSelects();
  }

  runPendingSelects() {
    const c = this.collab;
    if (!c) return;
    const ready = this.pendingSelects.filter((p) => c.revision >= p.revision);
    this.pendingSelects = this.pendingSelects.filter((p) => c.revision < p.revision);
    for (const p of ready) {
      const r = c.fromRevision(p.range, p.revision);
      this.editor.select(c.toLocal(r.from), c.toLocal(r.to, true));
    }
  }

  /** Runs a server-side change of ours (see Collab.runAction), reporting failures. */
  async action(fn) {
    if (!this.collab) return undefined;
    try {
      return await this.collab.runAction(fn);
    } catch (e) {
      toast(e.message || String(e), { kind: 'error' });
      return undefined;
    }
  }

  /** A change made on the server's side; edits wait until the stream brings its revision. */
  async post(path, body) {
    const collab = this.collab;
    const res = await this.api.post(`${this.base}${path}`, body, { idempotencyKey: randomKey() });
    if (collab && res && Number.isInteger(res.revision)) collab.expectRevision(res.revision);
    return res;
  }

  /** Someone (maybe this window) renamed the document; a title being typed here stays. */
  showTitle(title) {
    if (typeof title !== 'string') return;
    if (this.doc) this.doc.title = title;
    const field = $('#doc-title');
    if (document.activeElement !== field) field.value = title;
    document.title = `${title || 'Untitled'} · Tandem`;
  }

  /** Back online after an outage: a rename (or an undo group's change) missed meanwhile has no event to replay. */
  async onConnection(status) {
    this.updateStatus();
    this.updateSaveStatus();
    if (status !== 'open') return;
    const missed = this.everOnline;
    this.everOnline = true;
    if (!missed) return;
    const collab = this.collab;
    this.history.refresh();
    this.versions.refresh(); // saves made while the stream was down
    try {
      const doc = await this.api.get(this.base);
      if (this.collab !== collab) return;
      this.showTitle(doc.title);
      // The owner may have changed who may edit while the stream was down.
      this.access.announceMode(doc.access);
      if ((doc.canEdit !== false) !== this.access.canEdit) this.reopen(collab, { rightsLost: doc.canEdit === false });
      else if (this.access.setRename(doc)) this.access.apply();
    } catch { /* the next rename's event brings it */ }
  }

  /** The owner changed the rules (an `access` event): reopen if what this caller may do changed. */
  async recheckAccess(collab) {
    try {
      const doc = await this.api.get(this.base);
      if (this.collab !== collab) return;
      const canEdit = doc.canEdit !== false;
      // A role given or taken may change only who may rename (an open document's editor).
      if (canEdit === this.access.canEdit) {
        if (this.access.setRename(doc)) this.access.apply();
        return;
      }
      if (canEdit) toast('You can edit this document now.', { ms: 5000 });
      this.reopen(collab, { rightsLost: !canEdit });
    } catch { /* a stream that lost access ends, and its end says why */ }
  }

  async rename(title) {
    // A document keeps a title (the server refuses an empty one): an emptied field is
    // someone about to type a new one.
    if (!title.trim()) return;
    try {
      const doc = await this.api.patch(this.base, { title: title.trim() });
      this.showTitle(doc && doc.title);
    } catch (e) {
      toast(`Rename failed: ${e.message}`, { kind: 'error' });
    }
  }

  setDocState(state) {
    const banner = $('#banner');
    this.docState = state;
    this.access.apply();
    if (state === 'editingDisabled') {
      banner.textContent = 'Editing is turned off for this document. You can read it and copy from it.';
      banner.hidden = false;
      banner.dataset.kind = 'info';
    } else if (state === 'savingError') {
      banner.textContent = 'The server cannot save right now. Your changes are kept and will be saved when it recovers.';
      banner.hidden = false;
      banner.dataset.kind = 'error';
    } else {
      banner.hidden = true;
    }
  }

  onSaved(version) {
    if (!this.lastSaved || version.number > this.lastSaved.number) this.lastSaved = version;
    this.learnSaved(version);
    this.versions.onSaved(version);
    this.updateSaveStatus();
  }

  /**
   * Version `number` was deleted (the `versionRemoved` event, or our DELETE's answer): out of
   * the list; the last version beside the status is then the newest one left. Whether the
   * text counts as saved stays as it was, as the server's hasUnsavedChanges does.
   */
  onVersionRemoved(removed) {
    const number = removed && removed.number;
    this.versions.onRemoved(number);
    if (this.lastSaved && this.lastSaved.number === number) this.lastSaved = null;
    this.updateSaveStatus();
  }

  async onReset() {
    toast('Reloading the document to catch up…', { ms: 4000 });
    if (this.collab) await this.reopen(this.collab);
  }

  /**
   * A refused edit: reload and try the typing once more on the fresh text (a stale base,
   * 410, then goes through). Refused again, or refused for good (editing is off), it goes.
   */
  onFailed({ error }) {
    if (!this.collab) return;
    const again = this.lastCarryFailed && Date.now() - this.lastCarryFailed < 10000;
    const keepPending = error.status !== 403 && !again;
    this.lastCarryFailed = keepPending ? Date.now() : 0;
    const readOnly = error.code === 'read_only' || (error.status === 403 && this.docState !== 'editingDisabled');
    if (!readOnly) toast(`The server refused a change (${error.message}). Reloading the document.`, { kind: 'error', ms: 6000 });
    // Editing taken away (or turned off) under typing: the notice says so and keeps the text.
    this.reopen(this.collab, { keepPending, sayLost: !readOnly, rightsLost: readOnly || error.status === 403 });
  }

  /**
   * The connection, the same words in every window: whether this one has typing waiting
   * is the save status's business.
   */
  updateStatus() {
    const c = this.collab;
    const pill = $('#sync-status');
    if (!c) return;
    const open = c.stream.status === 'open';
    const state = open ? 'online' : (this.everOnline ? 'offline' : 'connecting');
    setStatus(pill, state, { online: 'Online', offline: 'Offline', connecting: 'Connecting…' }[state],
      { online: 'Connected: you see others’ changes as they make them',
        offline: 'Not connected: reconnecting on its own. What you type is kept here meanwhile.',
        connecting: 'Connecting to the server…' }[state]);
    this.updateSaveStatus();
  }

  /**
   * Typing still on its way says so first; then whether the text is the last saved
   * version's ("Saved") or not ("Unsaved changes", as hasUnsavedChanges has it), which
   * is what a person means by saved. The last version is shown beside it.
   */
  updateSaveStatus() {
    const s = $('#save-status');
    const c = this.collab;
    const pending = c ? c.pendingCount : 0;
    // A failed attempt since the last acknowledgement (the server away or refusing to
    // store) is not "saving" either.
    const reachable = c && c.stream.status === 'open' && c.retryDelay <= 500;
    if (!pending && this.saved && this.saved.unsaved) {
      setStatus(s, 'unsaved', 'Unsaved changes',
        'The text differs from the last saved version. A version is saved on its own after a pause, or with Save version.');
    } else if (!pending) {
      setStatus(s, 'saved', 'Saved', 'The text is the last saved version');
    } else if (reachable) {
      setStatus(s, 'saving', 'Saving…', 'Sending your latest changes');
    } else {
      setStatus(s, 'waiting', 'Not saved yet',
        `${pending === 1 ? 'A change' : `${pending} changes`} kept here, sent when the server is back`);
    }
    const v = $('#version-status');
    const last = this.lastSaved || this.versions.latest;
    if (!last) { setStatus(v, undefined, '', ''); return; }
    const when = new Date(last.time < 1e12 ? last.time * 1000 : last.time);
    setStatus(v, undefined, `Version ${last.number} · ${when.toLocaleTimeString([], { hour: 'numeric', minute: '2-digit' })}`,
      `Version ${last.number} saved ${when.toLocaleString()}`);
  }

  /** Where a change of ours landed, when the server gave no range. */
  static rangeOf(ops) { return ops ? ot.changedRange(ops) : null; }

  shakeEnabled() { return shakeSetting.enabled; }
}
