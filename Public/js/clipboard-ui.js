// Cut, Copy, Paste and Select All through the server's pasteboards, enabled exactly as
// GET …/actions says, and a panel showing the chosen pasteboard live and who can see it.
// `general` is this person's own clipboard (a tab's guest session is a person of its own),
// nobody else's; a named pasteboard is its creator's alone unless shared with everyone or
// with people named by their sign-in names (only its owner changes that).
// One clipboard: the keyboard's Ctrl+C / Ctrl+X write the chosen pasteboard as the buttons
// do (and the device's clipboard, for other apps), and Ctrl+V pastes the chosen one unless
// something newer was copied elsewhere on the device. Without the server's clipboard
// (…/actions answers 404) the panel hides and the buttons use the browser's clipboard.
import { $, el, plural, toast } from './ui.js';
import { enc } from './api.js';
import { typeNames } from './pasteboard-types.js';
import { matchNames, parseNames, unknownUser } from './pasteboard-people.js';

// A phone's clipboard row has room for a short name in the picker: "Mine" there.
const NARROW = typeof matchMedia === 'function' ? matchMedia('(max-width: 640px)') : null;
const generalLabel = () => (NARROW && NARROW.matches ? 'Mine' : 'Your clipboard');

// What a superseded request answers: a newer one of its kind (or a removal) made it stale.
const STALE = Symbol('stale');

// The sign-in names this browser shared its pasteboards with: pasteboard name → {person →
// sign-in name}. The server answers people by id and display name; this says which name
// was typed for whom, to name one without a display name and to fill in the field again.
const PEOPLE_KEY = 'tandem.pasteboardPeople';

export class ClipboardUI {
  constructor(view) {
    this.view = view;
    this.supported = true;
    this.pasteboard = 'general';
    this.actions = null;
    this.selTimer = null;
    this.actTimer = null;
    this.selectionDirty = false;
    this.inFlight = {}; // 'list' | 'pasteboard' | 'actions' → the AbortController of the newest
    $('#cut-button').addEventListener('click', () => this.perform('cut'));
    $('#copy-button').addEventListener('click', () => this.perform('copy'));
    $('#paste-button').addEventListener('click', () => this.perform('paste'));
    $('#select-all-button').addEventListener('click', () => this.selectAll());
    $('#pasteboard-select').addEventListener('change', (e) => this.choose(e.target.value));
    $('#new-pasteboard-button').addEventListener('click', () => this.createPasteboard());
    $('#pasteboard-share-button').addEventListener('click', () => this.toggleSharing());
    $('#pasteboard-everyone-button').addEventListener('click', () => this.share('everyone'));
    $('#pasteboard-people-form').addEventListener('submit', (e) => { e.preventDefault(); this.shareWithPeople(); });
    $('#pasteboard-people-name').addEventListener('input', () => this.peopleError(''));
    this.labelGeneral();
    if (NARROW) NARROW.addEventListener('change', () => this.labelGeneral());
    // A pasteboard made private again says nothing to those it was shared with: coming
    // back to the tab, the list is asked again, so the picker does not offer it.
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible' && this.supported && this.view.collab) this.refreshList();
    });
    this.sharedText = null; // the chosen pasteboard's text, if it has some
    this.shown = null; // the chosen pasteboard as last heard (no items): name, owner, shared…
    this.lastWritten = null; // what this tab last put on the device's clipboard
    this.personNames = new Map(); // "user:<id>" → display name, as heard (presence, sharedWith)
    for (const ed of view.editors) {
      ed.field.addEventListener('copy', (e) => this.onKeyboardCopy(e, 'copy'));
      ed.field.addEventListener('cut', (e) => this.onKeyboardCopy(e, 'cut'));
      ed.field.addEventListener('paste', (e) => this.onKeyboardPaste(e));
    }
  }

  selectedText() {
    const ed = this.view.editor;
    const sel = ed.selection();
    return ed.getText().slice(Math.min(sel.anchor, sel.head), Math.max(sel.anchor, sel.head));
  }

  /** Ctrl+C / Ctrl+X: the device's clipboard gets the text, the chosen pasteboard too. */
  onKeyboardCopy(e, name) {
    if (!this.supported || !e.clipboardData) return;
    const text = this.selectedText();
    if (!text) return;
    e.preventDefault();
    e.clipboardData.setData('text/plain', text);
    this.lastWritten = text;
    // A cut is the server's: the deletion and the pasteboard write are one undoable "Cut".
    // Text that cannot be changed (the read-only view) is copied instead.
    this.perform(name === 'cut' && this.view.editor.readOnly ? 'copy' : name);
  }

  /**
   * Ctrl+V: the chosen pasteboard, unless the device's clipboard holds something copied
   * elsewhere since (another app): that is the newer copy, and the browser pastes it.
   */
  onKeyboardPaste(e) {
    if (this.view.editor.readOnly) { e.preventDefault(); return; }
    if (!this.supported || !e.clipboardData || this.sharedText === null) return;
    const device = e.clipboardData.getData('text/plain');
    const fromElsewhere = device !== '' && device !== this.sharedText && device !== this.lastWritten;
    if (fromElsewhere) {
      toast(`Pasted from this device’s clipboard. The Paste button pastes ${this.pasteboard === 'general' ? 'your Tandem clipboard' : `“${this.pasteboard}”`}.`, { ms: 4500 });
      return;
    }
    e.preventDefault();
    this.perform('paste');
  }

  /** The Copy and Cut buttons put the text on the device's clipboard too, for Ctrl+V elsewhere. */
  async writeDevice(text) {
    if (!text || !navigator.clipboard || typeof navigator.clipboard.writeText !== 'function') return;
    try {
      await navigator.clipboard.writeText(text);
      this.lastWritten = text;
    } catch { /* not allowed here: the server's pasteboard has it all the same */ }
  }

  get api() { return this.view.api; }

  /** This tab's person as pasteboards name their owner: its user's, or its guest session. */
  get me() {
    const s = this.api.session;
    if (!s) return null;
    return s.user ? `user:${s.user}` : s.id;
  }

  async open() {
    this.selectionDirty = true;
    await this.syncSelection();
    if (!this.supported) return;
    await Promise.all([this.refreshList(), this.refreshPasteboard()]);
  }

  setSupported(on) {
    this.supported = on;
    $('#clipboard-panel').hidden = !on;
    $('#pasteboard-select').hidden = !on;
    if (!on) this.renderFallback();
  }

  // ---- selection and actions ----

  selectionChanged() {
    this.selectionDirty = true;
    if (!this.supported) { this.renderFallback(); return; }
    clearTimeout(this.selTimer);
    this.selTimer = setTimeout(() => this.syncSelection(), 120);
  }

  changed() {
    // Everyone's edits move selections and may empty or fill the document.
    this.selectionDirty = true;
    clearTimeout(this.selTimer);
    this.selTimer = setTimeout(() => this.syncSelection(), 200);
  }

  /** Tells the server our selection (only when our positions are its positions). */
  async syncSelection() {
    const c = this.view.collab;
    if (!c || c.stopped || !this.selectionDirty) return;
    if (c.state !== 'synchronized' || c.actionBusy) {
      c.whenSynchronized().then(() => this.syncSelection());
      return;
    }
    if (c.holds || c.queue.length || c.stream.status !== 'open') {
      // Others' changes we have not applied yet: our positions may not be the server's.
      clearTimeout(this.selTimer);
      this.selTimer = setTimeout(() => this.syncSelection(), 200);
      return;
    }
    this.selectionDirty = false;
    const sel = this.view.editor.selection();
    try {
      // With its base the server maps our positions through whatever landed meanwhile.
      await this.api.put(`${this.view.base}/selection`, { ...sel, base: c.revision });
    } catch (e) {
      if (e.status === 422) this.selectionDirty = true; // our text was behind; try again later
    }
    await this.refreshActions();
  }

  scheduleActions() {
    clearTimeout(this.actTimer);
    this.actTimer = setTimeout(() => this.refreshActions(), 60);
  }

  async refreshActions() {
    if (!this.supported || !this.view.collab) return;
    const name = this.pasteboard;
    let actions;
    try {
      const q = name === 'general' ? '' : `?pasteboard=${enc(name)}`;
      actions = await this.latest('actions', `${this.view.base}/actions${q}`);
    } catch (e) {
      if (e.status === 404 && this.view.collab) this.missing(name);
      return;
    }
    if (actions === STALE) return;
    this.actions = actions;
    this.render();
  }

  render() {
    const a = this.actions || {};
    const readOnly = this.view.editor.readOnly;
    $('#cut-button').disabled = !a.cut || readOnly;
    $('#copy-button').disabled = !a.copy;
    $('#paste-button').disabled = !a.paste || readOnly;
    $('#select-all-button').disabled = !a.selectAll;
    if (a.pasteMenuItemTitle) $('#paste-button').title = a.pasteMenuItemTitle;
  }

  renderFallback() {
    const sel = this.view.editor.selection();
    const some = sel.anchor !== sel.head;
    const clip = navigator.clipboard;
    $('#cut-button').disabled = !some || !clip || this.view.editor.readOnly;
    $('#copy-button').disabled = !some || !clip;
    $('#paste-button').disabled = !clip || typeof clip.readText !== 'function';
    $('#select-all-button').disabled = false;
  }

  // ---- performing ----

  async perform(name) {
    if (!this.supported) { await this.performLocally(name); return; }
    const view = this.view;
    await view.action(async () => {
      const sel = view.editor.selection();
      const from = Math.min(sel.anchor, sel.head);
      const to = Math.max(sel.anchor, sel.head);
      const body = { from, to };
      if (this.pasteboard !== 'general') body.pasteboard = this.pasteboard;
      const text = view.editor.getText().slice(from, to);
      if (name !== 'paste' && text !== this.lastWritten) this.writeDevice(text);
      let res;
      try {
        res = await view.post(`/${name}`, body);
      } catch (e) {
        // The named pasteboard went, or its owner stopped sharing it: not ours to use now.
        if (e.status === 404 && body.pasteboard && /^pasteboard /.test(e.message)) {
          this.gone(body.pasteboard);
          return;
        }
        throw e;
      }
      // Known at once, before the pasteboard's event: a Ctrl+V right after pastes this.
      if (name !== 'paste') this.sharedText = text;
      if (name === 'copy') {
        toast(`Copied ${plural(to - from, 'character')} to ${this.pasteboard === 'general' ? 'your clipboard' : `“${this.pasteboard}” (${lowerFirst(this.audienceOf(this.boards.get(this.pasteboard)))})`}`);
      } else if (res && res.revision !== undefined) {
        // Paste leaves the caret after the text; cut leaves it where the text was.
        const s = res.selection;
        const range = s ? { from: s.head, to: s.head } : view.constructor.rangeOf(res.ops);
        view.selectWhenReached(res.revision, range && { from: range.to, to: range.to });
      }
    });
    view.editor.focus({ preventScroll: true });
    this.selectionDirty = true;
    this.syncSelection();
  }

  async selectAll() {
    const view = this.view;
    view.editor.selectAll();
    if (!this.supported) { this.renderFallback(); return; }
    this.selectionDirty = true;
    await this.syncSelection();
  }

  /** The browser's clipboard, when the server has none. */
  async performLocally(name) {
    const ed = this.view.editor;
    const sel = ed.selection();
    const from = Math.min(sel.anchor, sel.head);
    const to = Math.max(sel.anchor, sel.head);
    try {
      if (name === 'copy' || name === 'cut') {
        await navigator.clipboard.writeText(ed.getText().slice(from, to));
        if (name === 'cut') {
          ed.replaceSelection('', 'deleteByCut');
        }
      } else if (name === 'paste') {
        const text = await navigator.clipboard.readText();
        ed.replaceSelection(text, 'insertFromPaste');
      }
    } catch (e) {
      toast(`The clipboard is not available here (${e.message}). Use Ctrl+C / Ctrl+V.`, { kind: 'error' });
    }
    ed.focus();
  }

  // ---- out-of-order answers ----

  /**
   * GETs `path` as the newest request of `kind`, aborting the one before: answers can come
   * back out of order, and an older one must not overwrite a newer. STALE once superseded.
   */
  async latest(kind, path) {
    this.cancel(kind);
    const controller = new AbortController();
    this.inFlight[kind] = controller;
    try {
      const answer = await this.api.get(path, { signal: controller.signal });
      return controller.signal.aborted ? STALE : answer;
    } catch (e) {
      if (controller.signal.aborted) return STALE;
      throw e;
    } finally {
      if (this.inFlight[kind] === controller) delete this.inFlight[kind];
    }
  }

  /** Drops `kind`'s request in flight (aborted before its answer, Chromium logs no 404). */
  cancel(kind) {
    const controller = this.inFlight[kind];
    if (controller) controller.abort();
  }

  /**
   * `name` answered 404. Only general missing means the server has no clipboard; a named
   * one was just removed (its event may still be on the way), unless we already moved on.
   */
  missing(name) {
    if (name === 'general') this.setSupported(false);
    else if (name === this.pasteboard) this.gone(name);
  }

  /** The chosen named pasteboard is no longer ours to read: removed, or made private. */
  gone(name) {
    if (name !== this.pasteboard) return;
    this.sayGone(name);
    this.fallBackToGeneral();
  }

  sayGone(name) {
    toast(`The pasteboard “${name}” is gone or no longer shared with you: back to your clipboard.`);
  }

  // ---- pasteboards ----

  onEvent(data) {
    if (!this.supported) return;
    const name = data && (data.name || data.pasteboard);
    if (data && data.kind === 'removed') {
      if (name === this.pasteboard) { this.fallBackToGeneral(); return; }
      this.forget(name);
      this.refreshList();
    } else {
      if (!name || name === this.pasteboard) this.refreshPasteboard();
      if (name && !this.known.has(name)) this.refreshList();
    }
    this.scheduleActions();
  }

  /** Shows pasteboard `name`: its items and the actions it allows. */
  choose(name) {
    this.pasteboard = name;
    $('#pasteboard-select').value = name;
    // The previous pasteboard's actions are no longer wanted, whenever they would come.
    this.cancel('actions');
    this.refreshPasteboard();
    this.scheduleActions();
  }

  /** The chosen pasteboard is gone: show general instead, as a removed UIPasteboard would. */
  fallBackToGeneral() {
    this.forget(this.pasteboard);
    // choose() aborts what is still asked about the removed one: it could only answer 404.
    this.choose('general');
    this.refreshList();
  }

  /** A removed pasteboard leaves the menu at once, before the new list comes. */
  forget(name) {
    if (!name || name === 'general') return;
    this.known.delete(name);
    this.boards.delete(name);
    for (const option of [...$('#pasteboard-select').options]) if (option.value === name) option.remove();
  }

  async refreshList() {
    let list;
    try {
      list = await this.latest('list', '/pasteboards');
    } catch (e) {
      if (e.status === 404) this.setSupported(false);
      return;
    }
    if (list === STALE) return;
    if (!Array.isArray(list)) list = list.pasteboards || [];
    const select = $('#pasteboard-select');
    select.textContent = '';
    this.known = new Set(list.map((p) => p.name));
    this.boards = new Map(list.map((p) => [p.name, p]));
    if (!this.known.has('general')) list.unshift({ name: 'general' });
    for (const p of list) {
      const general = p.name === 'general';
      select.append(el('option', {
        value: p.name,
        'data-shared': general ? 'none' : p.shared,
        title: `${general ? 'Your clipboard: ' : ''}${this.audienceOf(p)} can see it`,
        text: general ? generalLabel() : `${p.name} (${lowerFirst(this.audienceOf(p))})`,
      }));
    }
    // The newest list lacks the chosen one: removed (its event not here yet), or made private.
    if (this.pasteboard !== 'general' && !this.known.has(this.pasteboard)) {
      this.sayGone(this.pasteboard);
      this.choose('general');
    }
    select.value = this.pasteboard;
  }

  labelGeneral() {
    const option = $('#pasteboard-select option[value="general"]');
    if (option) option.textContent = generalLabel();
  }

  known = new Set(['general']);
  boards = new Map(); // name → the list's summary of it (owner, shared, persistent)

  async refreshPasteboard() {
    const name = this.pasteboard;
    let pb;
    try {
      pb = await this.latest('pasteboard', `/pasteboards/${enc(name)}`);
    } catch (e) {
      if (e.status === 404) this.missing(name);
      return;
    }
    if (pb === STALE) return;
    this.renderHead(pb);
    const items = pb.items || [];
    $('#pasteboard-count').textContent = items.length ? plural(items.length, 'item') : '';
    $('#pasteboard-count').title = `Changed ${plural(pb.changeCount, 'time')}`;
    const list = $('#pasteboard-items');
    list.textContent = '';
    this.sharedText = null;
    items.forEach((item, i) => {
      const reps = Array.isArray(item) ? item : [item];
      const plain = reps.find((r) => typeof r.string === 'string' && /plain-text|^public\.text$|^text\/plain/.test(r.type));
      const text = plain || reps.find((r) => typeof r.string === 'string');
      if (i === 0 && plain) this.sharedText = plain.string;
      list.append(el('li', { class: 'pasteboard-item', 'data-types': reps.map((r) => r.type).join(' ') },
        el('div', { class: 'item-types', text: typeNames(reps.map((r) => r.type)) || `Item ${i + 1}` }),
        el('div', { class: 'item-preview', text: text ? clip(text.string) : 'Not text: it can be pasted where it fits' })));
    });
    $('#pasteboard-empty').hidden = items.length > 0;
  }

  // ---- who can see a pasteboard ----

  /** A person ("user:<id>") as the panel names them: display name, else the sign-in name typed. */
  personName(pb, entry) {
    if (entry.name) { this.personNames.set(entry.person, entry.name); return entry.name; }
    const typed = (this.typedNames()[pb.name] || {})[entry.person];
    return typed || this.personNames.get(entry.person) || 'someone';
  }

  /** A named pasteboard's owner's name: "you", the server's `ownerName`, someone here (presence), or as heard before. */
  ownerName(pb) {
    if (pb.owner == null) return null;
    if (pb.owner === this.me) return 'you';
    if (pb.ownerName) { this.personNames.set(pb.owner, pb.ownerName); return pb.ownerName; }
    const people = (this.view.presence && this.view.presence.people) || [];
    const here = people.find((p) => p.user != null && `user:${p.user}` === pb.owner);
    if (here) this.personNames.set(pb.owner, here.name);
    return this.personNames.get(pb.owner) || null;
  }

  /** The people a pasteboard is shared with, by name, "you" left out. */
  sharedNames(pb) {
    return (pb.sharedWith || []).filter((e) => e.person !== this.me).map((e) => this.personName(pb, e));
  }

  /**
   * Who can see a named pasteboard, as the panel says it: "Only you", "Everyone", or "You
   * and Ada, Bob" (to someone it was shared with: "You and" its owner and the others).
   */
  audienceOf(p) {
    if (!p || p.name === 'general') return 'Only you';
    if (p.shared === 'everyone') return 'Everyone';
    if (p.shared !== 'people') return 'Only you';
    const owner = p.owner === this.me ? [] : [this.ownerName(p) || 'its owner'];
    const names = [...owner, ...this.sharedNames(p)];
    return names.length ? `You and ${names.join(', ')}` : 'Only you';
  }

  /** The chosen pasteboard's name, who can see it, and (to its owner) the sharing controls. */
  renderHead(pb) {
    const before = this.shown;
    this.shown = pb;
    const general = pb.name === 'general';
    const shared = general ? 'none' : (pb.shared || 'none');
    const everyone = shared === 'everyone';
    const mine = general || (pb.owner != null && pb.owner === this.me);
    $('#pasteboard-name').textContent = general ? 'Your clipboard' : `Pasteboard “${pb.name}”`;
    $('#pasteboard-name').dataset.name = pb.name;
    const audience = $('#pasteboard-audience');
    audience.textContent = this.audienceOf(pb);
    audience.dataset.shared = shared;
    let about;
    if (general) {
      about = 'Only you can see it: what you copy here, only you can paste. Ctrl+C and Ctrl+X copy here too.';
    } else if (shared === 'people') {
      const names = this.sharedNames(pb);
      if (mine) {
        about = `You shared it with ${names.join(', ')}: they can see it, paste from it and copy to it. Only you can change who it is shared with.`;
      } else {
        const owner = this.ownerName(pb);
        const others = names.length ? ` and ${names.join(', ')}` : '';
        about = `${owner ? `${owner} shared it` : 'Its owner shared it'} with you${others}: you can see it, paste from it and copy to it. Only ${owner || 'its owner'} can change who it is shared with.`;
      }
    } else if (!everyone) {
      about = 'Only you can see it and paste from it. Share it with everyone to let others paste from it too.';
    } else if (mine) {
      about = `You shared it: everyone can see it, paste from it and copy to it. Only you can stop sharing it${pb.persistent ? '' : '; it goes when you leave'}.`;
    } else {
      about = `Shared with everyone${pb.owner == null ? ' (its creator has left)' : ' by its creator'}: anyone can see it, paste from it and copy to it.`;
    }
    $('#pasteboard-about').textContent = about;
    const owned = !general && mine;
    const share = $('#pasteboard-share-button');
    share.hidden = !owned;
    share.textContent = shared === 'none' ? 'Share with everyone' : 'Stop sharing';
    $('#pasteboard-everyone-button').hidden = !owned || shared !== 'people';
    $('#pasteboard-people-form').hidden = !owned;
    // Another pasteboard shown: its field says whom it is shared with, when this browser
    // knows their sign-in names (what is typed there replaces them).
    if (!before || before.name !== pb.name) {
      this.peopleError('');
      if (owned) this.fillPeople(pb);
    }
  }

  /** The field holds the sign-in names it is shared with, as far as this browser typed them. */
  fillPeople(pb) {
    const field = $('#pasteboard-people-name');
    const typed = this.typedNames()[pb.name] || {};
    const people = pb.shared === 'people' ? pb.sharedWith || [] : [];
    const names = people.map((e) => typed[e.person]);
    field.value = names.every(Boolean) ? names.join(', ') : '';
    field.placeholder = people.length && !field.value ? 'Everyone it should be shared with, e.g. ada, bob' : 'e.g. ada, bob';
  }

  /** What is wrong with the names typed, under the field (empty: nothing). */
  peopleError(text) {
    $('#pasteboard-people-error').textContent = text;
    $('#pasteboard-people-name').setAttribute('aria-invalid', String(!!text));
  }

  typedNames() {
    try { return JSON.parse(localStorage.getItem(PEOPLE_KEY) || '{}') || {}; } catch { return {}; }
  }

  /** Remembers which sign-in name was typed for whom, as far as the answer tells. */
  rememberNames(pb, names) {
    const all = this.typedNames();
    if (pb.shared !== 'people') delete all[pb.name];
    else all[pb.name] = matchNames(pb.sharedWith || [], names, all[pb.name] || {});
    try { localStorage.setItem(PEOPLE_KEY, JSON.stringify(all)); } catch { /* private mode: names only */ }
  }

  /** Its owner shares the chosen pasteboard with everyone, or stops sharing it. */
  toggleSharing() {
    const pb = this.shown;
    if (!pb || pb.name === 'general') return;
    return this.share(pb.shared === 'none' ? 'everyone' : 'none');
  }

  /** Shares the chosen pasteboard with the people named in the field, by sign-in name. */
  shareWithPeople() {
    const { names, error } = parseNames($('#pasteboard-people-name').value);
    if (error) { this.peopleError(error); $('#pasteboard-people-name').focus(); return; }
    return this.share(names);
  }

  /** PATCHes who sees the chosen pasteboard: "none", "everyone", or sign-in names. */
  async share(shared) {
    const pb = this.shown;
    if (!pb || pb.name === 'general') return;
    const buttons = ['#pasteboard-share-button', '#pasteboard-everyone-button', '#pasteboard-people-submit'].map((id) => $(id));
    for (const b of buttons) b.disabled = true;
    const people = Array.isArray(shared);
    try {
      const summary = await this.api.patch(`/pasteboards/${enc(pb.name)}`, { shared });
      this.rememberNames(summary, people ? shared : []);
      this.peopleError('');
      if (this.pasteboard === summary.name) {
        this.renderHead(summary);
        this.fillPeople(summary);
      }
      await this.refreshList();
      if (summary.shared === 'people') toast(`Shared “${pb.name}” with ${this.sharedNames(summary).join(', ')}`);
      else toast(summary.shared === 'everyone' ? `Everyone can now see and paste from “${pb.name}”` : `Only you can see “${pb.name}” now`);
    } catch (e) {
      if (e.status === 404) this.gone(pb.name);
      else if (people && e.code === 'unknown_user') {
        this.peopleError(unknownUser(shared, e.message));
        $('#pasteboard-people-name').focus();
      } else if (people) this.peopleError(`Could not share “${pb.name}”: ${e.message}`);
      else toast(`Could not change who sees “${pb.name}”: ${e.message}`, { kind: 'error' });
    } finally {
      for (const b of buttons) b.disabled = false;
    }
  }

  async createPasteboard() {
    const dialog = $('#pasteboard-dialog');
    $('#pasteboard-new-name').value = '';
    $('input[name="pasteboard-shared"][value="none"]').checked = true; // private unless chosen
    dialog.returnValue = '';
    dialog.showModal();
    dialog.addEventListener('close', async () => {
      if (dialog.returnValue !== 'ok') return;
      const body = { persistent: $('#pasteboard-persistent').checked };
      if ($('input[name="pasteboard-shared"]:checked').value === 'everyone') body.shared = 'everyone';
      const name = $('#pasteboard-new-name').value.trim();
      if (name) body.name = name;
      try {
        const pb = await this.api.post('/pasteboards', body);
        this.pasteboard = pb.name;
        clearTimeout(this.actTimer); // its actions are asked for below, right away
        // Shown once its list, actions and items are all in: nothing about it still pending.
        await this.refreshList();
        await this.refreshActions();
        await this.refreshPasteboard();
      } catch (e) {
        toast(`Could not create the pasteboard: ${e.message}`, { kind: 'error' });
      }
    }, { once: true });
  }
}

function lowerFirst(s) { return s.charAt(0).toLowerCase() + s.slice(1); }

function clip(s) { return s.length > 280 ? `${s.slice(0, 280)}…` : s; }
