// What the caller may do in the open document (its `role`, `canEdit` and `canRename`): a
// caller who may only read gets the read-only view (the text not editable, the edit and undo
// controls off, a "View only" badge; others' changes still stream in); only an owner or an
// editor may rename, whatever the mode, so the title is editable only for them. And what the page says when
// a document cannot be shown, or stops being ours to read while it is open.
import { $, toast } from './ui.js';
import { copyButton } from './copy-text.js';
import { MODES, ROLES } from './access-rules.js';

export class AccessUI {
  constructor(view) {
    this.view = view;
    this.canEdit = true;
    this.canRename = true;
    this.role = null;
    this.mode = 'open';
    this.seen = new Set(); // documents shown in this page: one gone since is "no longer available"
    this.linkRefused = new Set(); // documents whose link the server refused (revoked, expired)
    view.api.links.onRejected((id) => this.onLinkRefused(id));
    copyButton($('#notice-copy'), $('#notice-unsent-text'), $('#notice-copy-status'));
    $('#notice-dismiss').addEventListener('click', () => { $('#notice').hidden = true; });
  }

  /**
   * Editing was taken from this window while it had typing on its way (`pending`, from
   * Collab.takePending, or null): say so where it stays, and keep what was typed, read-only
   * and copyable, until the person dismisses it.
   */
  lost(pending) {
    const typed = pending ? insertedText(pending.op) : '';
    const why = this.view.docState === 'editingDisabled'
      ? 'Editing was turned off for this document.'
      : `You can no longer edit this document: ${MODES[this.mode] ? `it is ${MODES[this.mode].name.toLowerCase()} and ` : ''}you may only read it now.`;
    $('#notice-text').textContent = typed
      ? `${why} What you typed since was not saved; it is below.`
      : why;
    $('#notice-unsent').hidden = !typed;
    $('#notice-unsent-text').value = typed;
    $('#notice-copy-status').textContent = '';
    $('#notice').hidden = false;
  }

  /** The owner changed the mode (an `access` event): everyone is told, in words. */
  announceMode(mode) {
    if (!MODES[mode] || mode === this.mode) return;
    this.mode = mode;
    if (this.role === 'owner') return; // the owner's own Share dialog says it
    toast(`This document is now ${MODES[mode].name.toLowerCase()}: ${MODES[mode].about}`, { ms: 6000 });
  }

  set(doc) {
    this.canEdit = doc.canEdit !== false;
    this.setRename(doc);
    this.role = doc.role || null;
    this.mode = doc.access || 'open';
    this.seen.add(doc.id);
    this.linkRefused.delete(doc.id);
    this.apply();
  }

  /** Whether `doc` (GET /documents/{id}) lets the caller rename it; true when it changed. */
  setRename(doc) {
    const canRename = typeof doc.canRename === 'boolean' ? doc.canRename : doc.canEdit !== false;
    const changed = canRename !== this.canRename;
    this.canRename = canRename;
    return changed;
  }

  /** The text is editable when the caller may edit and editing is not turned off. */
  apply() {
    const v = this.view;
    const viewOnly = !this.canEdit;
    for (const ed of v.editors) ed.readOnly = viewOnly || v.docState === 'editingDisabled';
    const badge = $('#access-badge');
    badge.hidden = !viewOnly || !v.doc;
    badge.title = `You are ${this.role ? ROLES[this.role] || 'a reader' : 'a reader'} here: you see every change as it is made, but cannot change the text.`;
    const title = $('#doc-title');
    title.readOnly = !this.canRename;
    title.title = this.canRename ? '' : 'Only its owner and editors can rename this document.';
    $('#save-button').disabled = viewOnly;
    $('#version-revert').hidden = viewOnly;
    v.versions.setEditable(!viewOnly);
    for (const r of document.querySelectorAll('input[name="scope"]')) r.disabled = viewOnly;
    if (v.history.state) v.history.render(v.history.state);
    const clip = v.clipboard;
    if (clip.supported && clip.actions) clip.render();
    else if (!clip.supported) clip.renderFallback();
  }

  close() {
    $('#access-badge').hidden = true;
    $('#notice').hidden = true;
    this.canEdit = true;
    this.canRename = true;
    this.role = null;
  }

  /** This browser's link for `id` was refused: the document opens again without it. */
  onLinkRefused(id) {
    this.linkRefused.add(id);
    const v = this.view;
    if (v.id !== id || !v.collab) return;
    toast('The share link you opened this document with no longer works: it was revoked or has expired.', { kind: 'error', ms: 6000 });
    v.reopen(v.collab);
  }

  /** The document cannot be shown (404: unknown, deleted, or private and not ours). */
  showMissing(id) {
    const [heading, text] = this.linkRefused.has(id)
      ? ['Your link no longer works', 'The share link you opened this document with was revoked or has expired. Ask its owner for a new one.']
      : this.seen.has(id)
        ? ['This document is no longer available', 'It was deleted or made private, or your access to it was removed.']
        : ['Document not found', 'It may have been deleted, or the link is mistyped.'];
    $('#missing-heading').textContent = heading;
    $('#missing-text').textContent = text;
    $('#missing-view').hidden = false;
    document.title = `${heading} · Tandem`;
  }
}

/** The text an operation inserts, its pieces in order (what a person typed, to copy). */
export function insertedText(op) {
  return (op || []).filter((c) => typeof c === 'string').join('\n');
}
