// Saving you can trust: save now (named or not), the list of versions, view one, see
// what changed since it, restore it, name it. Named saves stand out; autosave's checkpoints
// are labelled as such with the time they cover, quieter, and runs of them fold into a
// group. Naming a checkpoint keeps it: it leaves its group, its span said beside it. The
// document's owner deletes versions (asked inline first); versions deleted, or checkpoints
// dropped to make room, leave the list in every window, and what was open on them closes.
import { $, el, ago, plural, toast } from './ui.js';
import { sentence } from './access-rules.js';
import { renderDiff } from './diff-view.js';
import { timeElement, keepCurrent, msOf } from './relative-time.js';
import * as vl from './version-list.js';

export class VersionsUI {
  constructor(view) {
    this.view = view;
    this.list = [];
    this.expanded = new Set(); // groups opened, by vl.groupKey
    this.successor = new Map(); // a replaced checkpoint's number → the version that took its place
    this.showing = null; // {dialog: 'diff'|'view', v, token}: what an open dialog is about
    this.heard = null; // ['saved' | 'version', v] or ['removed', number]: events heard while the list is being fetched
    this.naming = null; // the open name form: {number, form, input, submit, error, label, busy}
    this.deleting = null; // the open "Delete this version?": {number, box, yes, no, error, busy}
    this.fetches = 0;
    this.tokens = 0;
    $('#save-button').addEventListener('click', () => this.save());
    const list = $('#versions-list');
    keepCurrent(list, () => !view.section.hidden && list.closest('details').open);
    // Restoring happens when a dialog closes with "restore": the version it shows then,
    // which is the newer checkpoint if autosave replaced the one first opened.
    for (const id of ['#version-dialog', '#diff-dialog']) {
      const dialog = $(id);
      dialog.addEventListener('close', () => {
        const shown = this.showing;
        this.showing = null;
        if (dialog.returnValue === 'revert' && shown) this.revert(shown.v);
      });
    }
    this.setUpNameForm();
  }

  get latest() { return this.list.length ? this.list[this.list.length - 1] : null; }

  async refresh() {
    const view = this.view;
    if (!view.collab) return;
    if (this.docId !== view.id) {
      // Another document: its groups and replacements are its own.
      this.docId = view.id;
      this.expanded.clear();
      this.successor.clear();
      this.dropNaming();
      this.dropDeleting();
    }
    const ask = ++this.fetches;
    const heard = [];
    this.heard = heard;
    let answer;
    try {
      answer = await view.api.get(`${view.base}/versions`);
    } catch (e) {
      if (ask === this.fetches) this.heard = null;
      if (e.status !== 404) toast(`Could not load the versions: ${e.message}`, { kind: 'error' });
      return;
    }
    if (ask !== this.fetches) return; // a newer one answers
    this.heard = null;
    // Saves and names heard meanwhile may be newer than the answer.
    let list = vl.sorted(Array.isArray(answer) ? answer : answer.versions || []);
    for (const [type, v] of heard) {
      list = type === 'saved' ? vl.applySaved(list, v) : type === 'removed' ? vl.applyRemoved(list, v) : vl.applyVersion(list, v);
    }
    this.list = list;
    this.render();
    view.updateSaveStatus();
  }

  /**
   * A version was saved (the `saved` event, or our save's answer): into the list, and out
   * with the one it replaced and the checkpoints it dropped to make room.
   */
  onSaved(v) {
    if (!v || !Number.isInteger(v.number)) return;
    if (this.heard) this.heard.push(['saved', v]);
    const dropped = vl.droppedBy(v).map((n) => this.list.find((x) => x.number === n)).filter(Boolean);
    const lost = this.losing(dropped);
    this.setList(vl.applySaved(this.list, v));
    // (A checkpoint named meanwhile is kept, not replaced.)
    if (Number.isInteger(v.replaced) && !this.list.some((x) => x.number === v.replaced)) {
      this.successor.set(v.replaced, v);
      const shown = this.showing;
      if (shown && shown.v.number === v.replaced) this.follow(shown, v);
    }
    this.render();
    this.lose(lost, 'was removed to make room for newer versions');
  }

  /**
   * Version `number` was deleted (the `versionRemoved` event, or our DELETE's answer): out
   * of the list, and what was open on it closes. Heard twice, nothing more happens.
   */
  onRemoved(number) {
    if (!Number.isInteger(number)) return;
    if (this.heard) this.heard.push(['removed', number]);
    const v = this.list.find((x) => x.number === number);
    if (!v) return;
    const lost = this.losing([v]);
    this.setList(vl.applyRemoved(this.list, number));
    this.render();
    this.lose(lost, 'was deleted');
  }

  /**
   * What is open on `versions`, which are about to leave the list: a dialog showing one, the
   * name form or the question to delete on one; and where the keyboard goes if it was there.
   */
  losing(versions) {
    const numbers = new Set(versions.map((v) => v.number));
    const shown = this.showing && numbers.has(this.showing.v.number) ? this.showing : null;
    const naming = this.naming && numbers.has(this.naming.number) ? this.naming : null;
    const deleting = this.deleting && numbers.has(this.deleting.number) ? this.deleting : null;
    // The keyboard, in a dialog or an entry that goes: to the same kind of button nearby.
    const active = document.activeElement;
    const inList = !!active && $('#versions-list').contains(active);
    const key = (inList && focusKey(active)) || '';
    const focus = shown ? { row: this.rowIndex(shown.v.number), kind: shown.dialog === 'diff' ? 'changes' : 'view' }
      : inList ? { row: this.rowIndex(active), kind: kindOfKey(key) } : null;
    if (naming) this.dropNaming();
    if (deleting) this.dropDeleting();
    return { versions, shown, naming, deleting, focus };
  }

  /**
   * They left the list (`why`, said after each): a dialog on one closes, and a note says
   * why it or a form on one went; our own DELETE on its way (asked here) needs no note.
   */
  lose({ versions, shown, naming, deleting, focus }, why) {
    if (shown && this.showing === shown) {
      this.showing = null; // closed without restoring
      const dialog = $(shown.dialog === 'diff' ? '#diff-dialog' : '#version-dialog');
      if (dialog.open) dialog.close('');
    }
    const active = document.activeElement;
    if (focus && (!active || active === document.body)) this.focusRow(focus.row, focus.kind);
    const about = (n) => versions.find((v) => v.number === n);
    const noted = shown ? shown.v : naming ? about(naming.number) : deleting && !deleting.busy ? about(deleting.number) : null;
    if (noted) toast(`${capitalized(vl.describe(noted))} ${why}.`, { ms: 6000 });
  }

  /**
   * A version was named or its name taken away (the `version` event, or our PATCH's
   * answer): it changes in place, a checkpoint leaving its group, the list not fetched again.
   */
  onVersion(v) {
    if (!v || !Number.isInteger(v.number)) return;
    if (this.heard) this.heard.push(['version', v]);
    this.setList(vl.applyVersion(this.list, v));
    const shown = this.showing;
    if (shown && shown.v.number === v.number) {
      shown.v = this.list.find((x) => x.number === v.number);
      if (shown.dialog === 'diff') $('#diff-heading').textContent = `Changes since ${headingOf(shown.v)}`;
      else $('#version-heading').textContent = capitalized(headingOf(shown.v));
    }
    this.render();
  }

  /** The list becomes `list`; open groups stay open, also when a name splits one. */
  setList(list) {
    this.expanded = vl.openGroups(this.list, list, this.expanded);
    this.list = list;
  }

  /** The open dialog's checkpoint was replaced: it shows the one that took its place. */
  follow(shown, v) {
    const { replaced, ...version } = v;
    const note = `Autosave brought version ${shown.v.number} up to date as version ${v.number}: this is the newer one.`;
    if (shown.dialog === 'diff') this.showChanges(version, { note });
    else this.show(version, { note });
  }

  render() {
    const ol = $('#versions-list');
    const active = document.activeElement;
    const focused = active && ol.contains(active) ? focusKey(active) : null;
    const selection = focused === 'name-input' ? [active.selectionStart, active.selectionEnd, active.selectionDirection] : null;
    const row = focused ? this.rowIndex(active) : -1;
    this.followNaming();
    ol.textContent = '';
    const now = Date.now();
    for (const row of vl.rows(this.list)) {
      if (row.version) { ol.append(this.item(row.version, now)); continue; }
      const key = vl.groupKey(row.group);
      const open = this.expanded.has(key);
      const id = `versions-group-${key}`;
      const span = vl.groupSpan(row.group, now);
      const inner = el('ol', { class: 'versions-list version-group-list', id, 'aria-label': `${row.group.length} autosaves, newest first` });
      inner.hidden = !open;
      for (const v of row.group) inner.append(this.item(v, now));
      ol.append(el('li', { class: 'version-group', 'data-key': String(key) },
        el('button', { type: 'button', class: 'version-group-toggle', 'aria-expanded': String(open), 'aria-controls': id,
          'data-focus': `group-${key}`,
          onclick: () => { if (this.expanded.has(key)) this.expanded.delete(key); else this.expanded.add(key); this.render(); } },
        el('span', { class: 'version-group-marker', 'aria-hidden': 'true', text: open ? '▾' : '▸' }),
        el('span', { class: 'version-group-label', text: `${row.group.length} autosaves` }),
        el('span', { class: 'version-group-span', text: ` · ${span}` })),
        inner));
    }
    $('#versions-empty').hidden = this.list.length > 0;
    $('#versions-count').textContent = this.list.length ? String(this.list.length) : '';
    // A re-render keeps the keyboard where it was (the same button of the same version).
    if (focused) {
      // …or the same button of the checkpoint that replaced it.
      const m = /^(changes|view|name|delete)-(\d+)$/.exec(focused);
      const next = m && this.successor.get(Number(m[2]));
      const again = ol.querySelector(`[data-focus="${focused}"]`) || (next && ol.querySelector(`[data-focus="${m[1]}-${next.number}"]`));
      if (again) again.focus({ preventScroll: true });
      if (again && selection) again.setSelectionRange(...selection);
      // Its entry went (deleted, dropped): the same control of the entry now in its place.
      if (!again) this.focusRow(row, kindOfKey(focused));
    }
  }

  /** The entries and group buttons on screen, in order: where the keyboard may go back to. */
  rows() {
    return [...$('#versions-list').querySelectorAll('.version-item, .version-group-toggle')].filter((e) => !e.closest('[hidden]'));
  }

  /** Where version `which` (a number, or an element in the list) is among `rows()`; -1 if not there. */
  rowIndex(which) {
    const rows = this.rows();
    if (typeof which === 'number') return rows.findIndex((r) => r.dataset.number === String(which));
    return rows.findIndex((r) => r.contains(which));
  }

  /**
   * The keyboard goes to the entry now at `index` of `rows()` (the next one down; the last
   * if none is), on its `kind` button ("delete", "changes"…): after its own entry went.
   * With none (or no index), to "Save version…".
   */
  focusRow(index, kind) {
    const rows = this.rows();
    const row = index < 0 ? null : rows[Math.min(index, rows.length - 1)];
    let target = null;
    if (row && row.classList.contains('version-item')) {
      target = [...row.querySelectorAll(`[data-focus^="${kind}-"]`)].find((b) => !b.hidden) || row.querySelector('.version-changes');
    } else if (row) target = row;
    if (!target) target = $('#version-name-button').disabled ? $('#versions-panel summary') : $('#version-name-button');
    target.focus({ preventScroll: true });
  }

  item(v, now) {
    const kind = vl.kindOf(v);
    const about = vl.describe(v, now);
    const name = el('span', { class: 'version-name', text: vl.titleOf(v) });
    const meta = el('span', { class: 'version-meta' }, timeElement(v.time), ` · ${plural(v.length || 0, 'character')} · version ${v.number}`);
    // A checkpoint's span: beside its name while it is one; quietly in the meta line once named (kept).
    const span = kind === 'automatic' || Number.isFinite(msOf(v.since)) ? el('span', {
      class: 'version-span', text: vl.spanText(v.since, v.time, now), 'data-since': String(msOf(v.since ?? v.time)), 'data-time': String(msOf(v.time)),
      title: `Autosaved from ${fullTime(v.since ?? v.time)} to ${fullTime(v.time)}` }) : null;
    if (kind === 'automatic') name.append(' · ', span);
    else if (span) { span.prepend('autosaved '); meta.append(' · ', span); }
    const naming = this.naming && this.naming.number === v.number ? this.naming : null;
    const rename = el('button', { type: 'button', class: 'button small quiet version-rename', text: kind === 'named' ? 'Rename…' : 'Name…',
      'data-focus': `name-${v.number}`, 'aria-label': `${kind === 'named' ? 'Rename' : 'Name'} ${about}`, 'aria-expanded': String(!!naming),
      'aria-controls': naming ? 'version-rename-form' : null, onclick: () => this.toggleNaming(v.number) });
    rename.hidden = !this.view.access.canEdit;
    const deleting = this.deleting && this.deleting.number === v.number ? this.deleting : null;
    const remove = el('button', { type: 'button', class: 'button small quiet danger version-delete', text: 'Delete…',
      'data-focus': `delete-${v.number}`, 'aria-label': `Delete ${about}`, 'aria-expanded': String(!!deleting),
      'aria-controls': deleting ? 'version-delete-confirm' : null, onclick: () => this.toggleDeleting(v.number) });
    remove.hidden = !this.canDelete;
    const li = el('li', { class: 'version-item', 'data-kind': kind, 'data-number': String(v.number) },
      el('div', { class: 'version-info' }, name, meta),
      el('div', { class: 'version-actions' },
        el('button', { type: 'button', class: 'button small quiet version-changes', text: 'Changes', 'data-focus': `changes-${v.number}`,
          'aria-label': `Show changes since ${about}`, title: 'Show changes since this version', onclick: () => this.showChanges(v) }),
        el('button', { type: 'button', class: 'button small quiet version-view', text: 'View', 'data-focus': `view-${v.number}`,
          'aria-label': `View ${about}`, onclick: () => this.show(v) }),
        rename, remove));
    if (naming) {
      this.labelNaming(v);
      li.append(naming.form);
    }
    if (deleting) li.append(deleting.box);
    return li;
  }

  /** Only the document's owner deletes versions (the server refuses anyone else). */
  get canDelete() { return this.view.access.role === 'owner'; }

  /**
   * An entry's "Delete…": the question under it, "Delete this version?" with Delete and
   * Cancel, the keyboard on Cancel; Escape or opening it again leaves it. One question open
   * at a time; it takes the place of a name form open on the same entry.
   */
  toggleDeleting(number) {
    const v = this.list.find((x) => x.number === number);
    const open = this.deleting && this.deleting.number === number;
    this.dropDeleting();
    if (this.naming && this.naming.number === number) this.dropNaming();
    if (open || !v || !this.canDelete) { this.render(); this.focusControl(`delete-${number}`); return; }
    const question = el('span', { class: 'version-delete-question', id: 'version-delete-question',
      text: 'Delete this version? It cannot be undone.' });
    const yes = el('button', { type: 'button', class: 'button small danger', id: 'version-delete-yes', text: 'Delete', 'data-focus': 'delete-yes',
      'aria-describedby': 'version-delete-question version-delete-error' });
    const no = el('button', { type: 'button', class: 'button small quiet', id: 'version-delete-no', text: 'Cancel', 'data-focus': 'delete-no' });
    const error = el('p', { class: 'form-error', id: 'version-delete-error', role: 'alert' });
    const box = el('div', { class: 'version-delete-confirm', id: 'version-delete-confirm', role: 'group', 'aria-labelledby': 'version-delete-question' },
      question, el('div', { class: 'version-delete-buttons' }, yes, no), error);
    const d = { number, box, yes, no, error, busy: false };
    yes.addEventListener('click', () => this.confirmDelete(d));
    no.addEventListener('click', () => this.closeDeleting());
    box.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); this.closeDeleting(); }
    });
    this.deleting = d;
    this.render();
    no.focus();
  }

  /** Deletes the version asked about; it leaves the list here at once (its event, heard after, changes nothing). */
  async confirmDelete(d) {
    if (d.busy) return;
    const view = this.view;
    const v = this.list.find((x) => x.number === d.number);
    if (!v) return;
    d.busy = true;
    d.yes.setAttribute('aria-disabled', 'true'); // not disabled: the keyboard stays on it
    d.error.textContent = '';
    try {
      await view.api.del(`${view.base}/versions/${d.number}`);
      toast(`Deleted ${vl.describe(v)}.`);
      view.onVersionRemoved({ number: d.number });
    } catch (err) {
      if (err.status === 404) {
        // Deleted meanwhile by someone else, or dropped: it is not there any more either way.
        toast(`${capitalized(vl.describe(v))} was already deleted.`);
        view.onVersionRemoved({ number: d.number });
        return;
      }
      const message = err.status >= 400 && err.status < 500 ? sentence(err.message) : `Could not delete it: ${err.message}`;
      if (this.deleting !== d) { toast(message, { kind: 'error' }); return; }
      d.error.textContent = message;
    } finally {
      d.busy = false;
      d.yes.removeAttribute('aria-disabled');
    }
  }

  /** Leaves the question; the keyboard goes back to its entry's "Delete…". */
  closeDeleting() {
    if (!this.deleting) return;
    const { number } = this.deleting;
    this.dropDeleting();
    this.render();
    this.focusControl(`delete-${number}`);
  }

  dropDeleting() {
    if (this.deleting) this.deleting.box.remove();
    this.deleting = null;
  }

  focusControl(key) {
    const button = $('#versions-list').querySelector(`[data-focus="${key}"]`);
    if (button && !button.hidden) button.focus();
  }

  /**
   * An entry's "Name…" / "Rename…": a form under it like "Save version…"'s, the current
   * name in it. Emptied on a named version, it takes the name away. Opened again, it closes.
   */
  toggleNaming(number) {
    const v = this.list.find((x) => x.number === number);
    const open = this.naming && this.naming.number === number;
    this.dropNaming();
    if (this.deleting && this.deleting.number === number) this.dropDeleting();
    if (open || !v || !this.view.access.canEdit) { this.render(); this.focusEntry(number); return; }
    const input = el('input', { type: 'text', id: 'version-rename-input', autocomplete: 'off', 'aria-describedby': 'version-rename-error', 'data-focus': 'name-input' });
    const submit = el('button', { type: 'submit', class: 'button small primary', id: 'version-rename-submit', text: 'Save' });
    const error = el('p', { class: 'form-error', id: 'version-rename-error', role: 'alert' });
    const label = el('label', { for: 'version-rename-input' });
    const form = el('form', { class: 'version-name-form version-rename-form', id: 'version-rename-form', novalidate: true },
      label,
      el('div', { class: 'share-form' }, input, submit,
        el('button', { type: 'button', class: 'button small quiet', id: 'version-rename-cancel', text: 'Cancel', onclick: () => this.closeNaming() })),
      error);
    const n = { number, form, input, submit, error, label, busy: false };
    input.value = vl.kindOf(v) === 'named' ? v.name : '';
    form.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); this.closeNaming(); }
    });
    input.addEventListener('input', () => {
      this.nameError(n, '');
      const now = this.list.find((x) => x.number === n.number);
      if (now) this.labelNaming(now);
    });
    form.addEventListener('submit', (e) => { e.preventDefault(); this.submitName(n); });
    this.naming = n;
    this.render();
    input.focus();
    input.select();
  }

  /** The name form's words for `v` as it is now: what it does, and "Remove name" when emptied on a named one. */
  labelNaming(v) {
    const n = this.naming;
    const kind = vl.kindOf(v);
    const hint = kind === 'named' ? '(empty takes the name away)' : kind === 'automatic' ? '(named, autosave keeps it)' : '';
    n.label.textContent = kind === 'named' ? `Rename version ${v.number} ` : `Name version ${v.number} `;
    if (hint) n.label.append(el('small', { text: hint }));
    n.submit.textContent = kind === 'named' && !n.input.value.trim() ? 'Remove name' : 'Save';
  }

  async submitName(n) {
    if (n.busy) return;
    const v = this.list.find((x) => x.number === n.number);
    if (!v) return;
    const change = vl.nameChange(v, n.input.value);
    if (change.unchanged) { this.closeNaming(); return; }
    if (change.empty) { this.nameError(n, 'Type a name for this version, or Cancel.'); return; }
    n.busy = true;
    n.submit.disabled = true;
    this.nameError(n, '');
    try {
      const answer = await this.patchName(n.number, change.name);
      this.onVersion(answer);
      toast(answer.name ? `Named version ${answer.number} “${answer.name}”` : `Version ${answer.number} has no name now`);
      if (this.naming === n) this.closeNaming(answer.number);
    } catch (err) {
      const message = err.status === 400 ? err.message
        : err.status === 404 ? 'This version is not there any more.' : `Could not name it: ${err.message}`;
      if (this.naming !== n) { toast(message, { kind: 'error' }); return; }
      this.nameError(n, message);
      n.input.focus();
    } finally {
      n.busy = false;
      n.submit.disabled = false;
    }
  }

  /** PATCHes version `number`'s name; a checkpoint autosave replaced meanwhile: the one that took its place. */
  async patchName(number, name) {
    const view = this.view;
    for (;;) {
      try {
        return await view.api.patch(`${view.base}/versions/${number}`, { name });
      } catch (e) {
        const next = e.status === 404 && this.successor.get(number);
        if (!next) throw e;
        number = next.number;
      }
    }
  }

  nameError(n, message) {
    n.error.textContent = message;
    if (message) n.input.setAttribute('aria-invalid', 'true');
    else n.input.removeAttribute('aria-invalid');
  }

  /** Closes the name form; the keyboard goes back to its entry's button (`number`'s, if it moved there). */
  closeNaming(number = this.naming && this.naming.number) {
    if (!this.naming) return;
    this.dropNaming();
    this.render();
    this.focusEntry(number);
  }

  dropNaming() {
    if (this.naming) this.naming.form.remove();
    this.naming = null;
  }

  focusEntry(number) { this.focusControl(`name-${number}`); }

  /** The name form stays with its checkpoint when autosave replaces it, and goes when its version does. */
  followNaming() {
    if (!this.naming) return;
    let number = this.naming.number;
    const listed = (k) => this.list.some((x) => x.number === k);
    while (!listed(number) && this.successor.has(number)) number = this.successor.get(number).number;
    if (listed(number)) this.naming.number = number;
    else this.dropNaming();
  }

  /** The panel's "Save version…": a name (or none) in a small form, Escape to leave it. */
  setUpNameForm() {
    const toggle = $('#version-name-button');
    const form = $('#version-name-form');
    const input = $('#version-name-input');
    const error = $('#version-name-error');
    const close = () => {
      form.hidden = true;
      toggle.setAttribute('aria-expanded', 'false');
      error.textContent = '';
      input.removeAttribute('aria-invalid');
    };
    this.closeNameForm = close;
    toggle.addEventListener('click', () => {
      if (!form.hidden) { close(); return; }
      form.hidden = false;
      toggle.setAttribute('aria-expanded', 'true');
      input.focus();
    });
    $('#version-name-cancel').addEventListener('click', () => { close(); input.value = ''; toggle.focus(); });
    form.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); close(); toggle.focus(); }
    });
    input.addEventListener('input', () => { error.textContent = ''; input.removeAttribute('aria-invalid'); });
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const submit = $('#version-name-submit');
      if (submit.disabled) return;
      submit.disabled = true;
      error.textContent = '';
      try {
        const name = input.value.trim();
        const v = await this.save({ name: name || undefined, quiet: true });
        if (!v) return;
        input.value = '';
        close();
        toggle.focus();
      } catch (err) {
        error.textContent = this.refusal(err);
        input.setAttribute('aria-invalid', 'true');
        input.focus();
      } finally {
        submit.disabled = false;
      }
    });
  }

  /**
   * Why the server refused a save, for the name form: its word for a bad name (400); for
   * no room left among the versions (507 versions_full) its word too, and to the owner,
   * who may delete some, where.
   */
  refusal(err) {
    if (err.status === 400) return err.message;
    if (err.status === 507 || err.code === 'versions_full') {
      const hint = this.canDelete ? ' You own this document: delete older versions below (Delete…) to make room.' : '';
      return sentence(err.message) + hint;
    }
    return `Save failed: ${err.message}`;
  }

  /** Only people who may edit save versions and name them; only the owner deletes them. */
  setEditable(canEdit) {
    $('#version-name-button').disabled = !canEdit;
    for (const b of document.querySelectorAll('#versions-list .version-rename')) b.hidden = !canEdit;
    for (const b of document.querySelectorAll('#versions-list .version-delete')) b.hidden = !this.canDelete;
    if (!this.canDelete && this.deleting) { this.dropDeleting(); this.render(); }
    if (!canEdit) {
      this.closeNameForm();
      if (this.naming) { this.dropNaming(); this.render(); }
    }
  }

  /**
   * Saves a version of the text as it is here, named `name` if given. With `quiet` a
   * failure is thrown (the name form shows it); otherwise it is a toast.
   */
  async save({ name, quiet = false } = {}) {
    const view = this.view;
    const c = view.collab;
    if (!c || !view.access.canEdit) return null;
    // Save what we see: wait for our edits to land first.
    await c.whenSynchronized();
    if (c.stopped) { toast('The document is reloading: save again in a moment.'); return null; }
    let v;
    try {
      v = await view.post('/save', name ? { name } : undefined);
    } catch (e) {
      if (quiet) throw e;
      toast(e.status === 507 ? this.refusal(e) : `Save failed: ${e.message}`, { kind: 'error', ms: e.status === 507 ? 8000 : 3200 });
      return null;
    }
    toast(v.name ? `Saved “${v.name}” (version ${v.number})` : `Saved version ${v.number}`);
    view.onSaved(v);
    return v;
  }

  /** Loads what a dialog shows of `v` only if it is still what should show (a newer open wins). */
  async load(v, get) {
    const token = ++this.tokens;
    this.pendingShow = token;
    try {
      const result = await get(v);
      return this.pendingShow === token ? { v, result } : null;
    } catch (e) {
      // The checkpoint was replaced while we asked: the one that took its place.
      const next = e.status === 404 && this.successor.get(v.number);
      if (next && this.pendingShow === token) return this.load(next, get);
      if (this.pendingShow === token) throw e;
      return null;
    }
  }

  async show(v, { note } = {}) {
    const view = this.view;
    let loaded;
    try {
      loaded = await this.load(v, (x) => view.api.get(`${view.base}/versions/${x.number}/text`, { as: 'text' }));
    } catch (e) {
      toast(this.gone(v, e) || `Could not load version ${v.number}: ${e.message}`, { kind: 'error' });
      return;
    }
    if (!loaded) return;
    v = loaded.v;
    const dialog = $('#version-dialog');
    $('#version-heading').textContent = capitalized(headingOf(v));
    $('#version-note').textContent = note || '';
    $('#version-note').hidden = !note;
    $('#version-text').textContent = loaded.result;
    this.showing = { dialog: 'view', v };
    if (!dialog.open) { dialog.returnValue = ''; dialog.showModal(); }
  }

  /** What changed from version `v` to now, with who changed it; "Restore this version" from there. */
  async showChanges(v, { note } = {}) {
    const view = this.view;
    let loaded;
    try {
      loaded = await this.load(v, (x) => Promise.all([
        view.api.get(`${view.base}/versions/${x.number}/text`, { as: 'text' }),
        view.api.get(`${view.base}/versions/${x.number}/diff?to=current`),
      ]));
    } catch (e) {
      toast(this.gone(v, e) || `Could not load the changes since version ${v.number}: ${e.message}`, { kind: 'error' });
      return;
    }
    if (!loaded) return;
    v = loaded.v;
    const [earlier, diff] = loaded.result;
    const dialog = $('#diff-dialog');
    $('#diff-heading').textContent = `Changes since ${headingOf(v)}`;
    const box = $('#diff-box');
    renderDiff(box, earlier, diff, view.presence.names());
    if (note) box.prepend(el('p', { class: 'diff-note', text: note }));
    $('#diff-revert').hidden = !view.access.canEdit;
    this.showing = { dialog: 'diff', v };
    if (!dialog.open) { dialog.returnValue = ''; dialog.showModal(); }
  }

  /** "… was deleted." when `e` (a 404) is about `v`, which has left the list meanwhile; else ''. */
  gone(v, e) {
    return e.status === 404 && !this.list.some((x) => x.number === v.number) ? `${capitalized(vl.describe(v))} was deleted.` : '';
  }

  async revert(v) {
    const view = this.view;
    if (!view.access.canEdit) return;
    await view.action(async () => {
      const res = await view.post(`/versions/${v.number}/revert`);
      toast(`Restored ${vl.describe(v)}. Undo brings your text back.`);
      if (res && res.revision !== undefined) view.selectWhenReached(res.revision, res.range || view.constructor.rangeOf(res.ops));
    });
  }
}

function fullTime(time) { return new Date(msOf(time)).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }); }

/** `v` in a dialog's heading: what it is, and when it was saved unless its span says so. */
function headingOf(v) {
  const about = vl.describe(v);
  return v.automatic ? about : `${about}, saved ${ago(v.time)}`;
}

function capitalized(s) { return s[0].toUpperCase() + s.slice(1); }

/** Which control `e` is, to find it again after a re-render. */
function focusKey(e) { return e.dataset && e.dataset.focus ? e.dataset.focus : null; }

/** The kind of entry button a control's key stands for ("delete-yes": "delete"), to find one like it. */
function kindOfKey(key) { return /^(changes|view|name|delete)/.exec(key || '')?.[1] || 'changes'; }
