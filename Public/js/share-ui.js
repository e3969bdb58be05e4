// The Share dialog: who may open and edit the document (its access mode), the people
// given a role in it (a user by sign-in name, or someone here by session), and share links
// by role (made with an optional expiry, shown once, revocable). Only the owner changes any
// of it (GET …/access answers others 403); everyone else sees the mode and their own role.
// A link never grants less than the address: on an open or editable document the dialog
// offers no viewer link, and says why.
import { $, el, ago } from './ui.js';
import { enc } from './api.js';
import { linkURL, linkIdOf } from './links.js';
import { copyButton } from './copy-text.js';
import { MODES, ROLES, aboutYou, sentence, viewerLinkAllowed, viewerLinkNote } from './access-rules.js';

const ROLE_NAMES = { owner: 'Owner', editor: 'Editor', viewer: 'Viewer' };
const days = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/** "in 5 minutes", "in 2 hours", "tomorrow", "in 30 days": `time` in seconds since 1970. */
function until(time) {
  const d = Math.round((time - Date.now() / 1000) / 86400);
  return d >= 1 ? days.format(d, 'day') : ago(time);
}

export class ShareUI {
  constructor(view) {
    this.view = view;
    this.rules = null; // GET …/access, when we own the document
    this.canEdit = null; // what the document last said we may do, read when the dialog opens
    this.reads = 0; // refreshes started: only the latest one shows what it read
    this.roleForced = false; // the viewer link was chosen, then ruled out by the mode: editor meanwhile
    // person → the user name they were shared with here: GET …/access names only people with
    // a live session, and someone shared with by name may have none yet.
    this.sharedNames = new Map();
    this.dialog = $('#share-dialog');
    $('#share-button').addEventListener('click', () => this.open());
    $('#share-close').addEventListener('click', () => this.dialog.close());
    $('#share-delete').addEventListener('click', () => {
      const doc = this.view.doc;
      if (!doc) return;
      this.dialog.close();
      window.dispatchEvent(new CustomEvent('tandem:delete', { detail: { id: doc.id, title: doc.title, length: doc.length } }));
    });
    for (const r of document.querySelectorAll('input[name="share-access"]')) {
      r.addEventListener('change', () => { if (r.checked) this.setMode(r.value); });
    }
    $('#share-user-form').addEventListener('submit', (e) => { e.preventDefault(); this.shareWithUser(); });
    $('#share-user-name').addEventListener('input', () => this.userError(''));
    $('#share-member-form').addEventListener('submit', (e) => { e.preventDefault(); this.grant(); });
    $('#share-link-form').addEventListener('submit', (e) => { e.preventDefault(); this.createLink(); });
    $('#share-link-role').addEventListener('change', () => { this.roleForced = false; });
    copyButton($('#share-new-link-copy'), $('#share-new-link-url'), $('#share-new-link-status'));
  }

  get api() { return this.view.api; }
  get base() { return this.view.base; }

  async open() {
    const view = this.view;
    if (!view.doc) return;
    $('#share-heading').textContent = `Share “${view.doc.title || 'Untitled'}”`;
    $('#share-new-link').hidden = true;
    this.say('');
    this.userError('');
    this.canEdit = null;
    this.dialog.returnValue = '';
    await this.refresh();
    if (!this.dialog.open) this.dialog.showModal();
    const focus = this.rules
      ? document.querySelector('input[name="share-access"]:checked')
      : $('#share-close');
    if (focus) focus.focus();
  }

  /**
   * Reads the access rules; only the owner may (others: 403, or 404 for a private one).
   * What it read replaces the dialog's rules only once read (a mode change waiting for its
   * answer still has them), and only if no later refresh started meanwhile.
   */
  async refresh() {
    const view = this.view;
    const read = ++this.reads;
    let rules = null;
    let doc = null;
    // Only the owner may read the rules: anyone else asking would be refused (a 403 in
    // the console for nothing), so they read the document's mode and their role instead.
    if (view.access.role === 'owner') {
      try {
        rules = await this.api.get(`${this.base}/access`);
      } catch (e) {
        if (e.status !== 403 && e.status !== 404) this.say(`Could not load who has access: ${e.message}`, 'error');
      }
    }
    if (!rules) {
      try { doc = await this.api.get(this.base); } catch { /* show what we know */ }
    }
    if (read !== this.reads) return;
    this.rules = rules;
    if (doc) {
      if (view.doc) view.doc.access = doc.access;
      view.access.mode = doc.access || view.access.mode;
      view.access.role = doc.role || null;
      this.canEdit = doc.canEdit !== false;
    }
    this.render();
  }

  /**
   * The rules changed (an `access` event, with the document's mode now): an open dialog
   * shows them. The owner's own change is already shown; anyone else's role may have changed
   * with the same mode, so they read it again.
   */
  onAccess(mode) {
    if (!this.dialog.open) return;
    if (this.rules && this.rules.access === mode) return;
    this.refresh();
  }

  render() {
    const owner = !!this.rules;
    const view = this.view;
    const mode = owner ? this.rules.access : view.access.mode;
    if (owner) view.access.mode = mode;
    for (const r of document.querySelectorAll('input[name="share-access"]')) {
      r.checked = r.value === mode;
      r.disabled = !owner;
    }
    const role = view.access.role;
    // The choices are written for the owner ("only you and editors"): others read the mode
    // said of its owner, and what they themselves may do.
    const about = MODES[mode] ? `It is ${MODES[mode].name.toLowerCase()}: ${MODES[mode].about} ` : '';
    $('#share-about').textContent = owner
      ? 'You own this document: you decide who can open and edit it.'
      : `${about}Only its owner can change who may open or edit it. ${aboutYou({ role, mode, canEdit: this.canEdit ?? view.access.canEdit })}`;
    $('#share-mode').hidden = !owner;
    $('#share-members').hidden = !owner;
    $('#share-delete-section').hidden = !owner;
    $('#share-links').hidden = !owner;
    if (owner) {
      this.renderMembers();
      this.renderLinkChoice(mode);
      this.renderLinks();
    }
  }

  /** A short message in the dialog (read out: role=status). */
  say(text, kind = 'info') {
    const s = $('#share-status');
    s.textContent = text;
    s.dataset.kind = kind;
  }

  async setMode(access) {
    const before = this.rules && this.rules.access;
    if (!this.rules || access === before) return;
    try {
      const doc = await this.api.patch(this.base, { access });
      const now = doc.access || access;
      // The rules may have been read again meanwhile (an `access` event): they say it too.
      if (this.rules) this.rules.access = now;
      if (this.view.doc) this.view.doc.access = now;
      this.view.access.mode = now;
      this.say(`Now ${MODES[now].name.toLowerCase()}: ${MODES[now].about}`);
    } catch (e) {
      if (e.code === 'viewer_links_work') {
        // Viewer links still work: the server says how many, and to revoke them first. The
        // mode stays; the list (perhaps with links made elsewhere) is read again.
        const stays = MODES[before] ? ` It stays ${MODES[before].name.toLowerCase()}.` : '';
        this.say(`${sentence(e.message)}${stays}`, 'error');
        await this.refresh();
        return;
      }
      this.say(`Could not change who has access: ${e.message}`, 'error');
    }
    this.render();
  }

  // ---- people ----

  renderMembers() {
    const ul = $('#share-member-list');
    ul.textContent = '';
    const members = this.rules.members || [];
    for (const m of members) {
      const name = m.name || this.sharedNames.get(m.session) || m.session;
      const role = el('select', { class: 'select small', 'aria-label': `Role of ${name}` },
        el('option', { value: 'editor', text: 'Editor' }), el('option', { value: 'viewer', text: 'Viewer' }));
      role.value = m.role;
      role.addEventListener('change', () => this.grant(m.session, role.value));
      ul.append(el('li', { class: 'share-item' },
        el('span', { class: 'share-item-name', text: name, title: m.session }),
        role,
        el('button', { type: 'button', class: 'button small quiet', text: 'Remove', 'aria-label': `Remove ${name}`,
          onclick: () => this.revokeMember(m.session, name) })));
    }
    $('#share-members-empty').hidden = members.length > 0;
    // Suggestions for the session field: the people here now, other than us.
    const me = this.api.session && this.api.session.id;
    const list = $('#share-people');
    list.textContent = '';
    for (const p of this.view.presence.people || []) {
      if (p.id !== me) list.append(el('option', { value: p.id, label: p.name, text: p.name }));
    }
  }

  async grant(session = null, role = null) {
    const field = $('#share-member-session');
    const who = session || field.value.trim();
    if (!who) return;
    const r = role || $('#share-member-role').value;
    try {
      this.rules = await this.api.put(`${this.base}/members/${enc(who)}`, { role: r });
      if (!session) field.value = '';
      this.say(`${this.nameOf(who)} is now ${ROLES[r]}.`);
    } catch (e) {
      this.say(e.code === 'unknown_session' ? `No one is using Tandem with the session “${who}”.` : `Could not give the role: ${e.message}`, 'error');
      await this.refresh();
      return;
    }
    this.render();
  }

  /**
   * Shares with a user by sign-in name (POST …/members): they need not be here, and the
   * role is theirs in every session. A name no account has is said by the field.
   */
  async shareWithUser() {
    const field = $('#share-user-name');
    const user = field.value.trim();
    if (!user) { this.userError('Enter the user name they sign in with.'); return; }
    const role = $('#share-user-role').value;
    const button = $('#share-user-submit');
    button.disabled = true;
    const before = new Set(((this.rules && this.rules.members) || []).map((m) => m.session));
    try {
      this.rules = await this.api.post(`${this.base}/members`, { user, role });
      for (const m of this.rules.members || []) if (!before.has(m.session)) this.sharedNames.set(m.session, user);
    } catch (e) {
      if (e.code === 'unknown_user') this.userError(`No one has the user name “${user}”.`);
      else this.userError(`Could not share with ${user}: ${e.message}`);
      field.focus();
      return;
    } finally {
      button.disabled = false;
    }
    field.value = '';
    this.say(`Shared with ${user}: they are now ${ROLES[role]}.`);
    this.render();
  }

  /** What went wrong with the user name typed, next to it (empty: nothing). */
  userError(text) {
    $('#share-user-error').textContent = text;
    $('#share-user-name').setAttribute('aria-invalid', String(!!text));
  }

  async revokeMember(session, name) {
    try {
      await this.api.del(`${this.base}/members/${enc(session)}`);
      this.say(`${name} no longer has a role here.`);
    } catch (e) {
      this.say(`Could not remove ${name}: ${e.message}`, 'error');
    }
    await this.refresh();
  }

  nameOf(session) {
    const m = (this.rules.members || []).find((x) => x.session === session);
    return (m && m.name) || this.sharedNames.get(session) || this.view.presence.names().get(session) || session;
  }

  // ---- links ----

  /**
   * The new link's roles in `mode`: no viewer link where anyone with the address may edit
   * (the option disabled, the line below the form saying why). A viewer choice the mode rules
   * out becomes editor, and viewer again if the mode allows it before the person picks.
   */
  renderLinkChoice(mode) {
    const select = $('#share-link-role');
    const allowed = viewerLinkAllowed(mode);
    select.querySelector('option[value="viewer"]').disabled = !allowed;
    if (!allowed && select.value === 'viewer') {
      select.value = 'editor';
      this.roleForced = true;
    } else if (allowed && this.roleForced) {
      select.value = 'viewer';
      this.roleForced = false;
    }
    const note = $('#share-link-note');
    note.textContent = viewerLinkNote(mode);
    note.hidden = !note.textContent;
  }

  renderLinks() {
    const ul = $('#share-link-list');
    ul.textContent = '';
    const links = (this.rules.links || []).slice().sort((a, b) => b.created - a.created);
    const mine = linkIdOf(this.api.links.token(this.view.id));
    const now = Date.now() / 1000;
    for (const l of links) {
      const expired = l.expires !== null && l.expires !== undefined && l.expires <= now;
      const status = l.revoked ? 'revoked' : expired ? 'expired' : 'active';
      const label = `${ROLE_NAMES[l.role] || l.role} link`;
      const when = l.revoked ? 'Revoked' : expired ? 'Expired' : l.expires ? `Expires ${until(l.expires)}` : 'Never expires';
      const meta = [`created ${ago(l.created)}`, when.toLowerCase(), l.id === mine ? 'this browser’s' : null].filter(Boolean).join(' · ');
      ul.append(el('li', { class: 'share-item', 'data-link': l.id, 'data-status': status },
        el('span', { class: 'share-item-name' },
          el('span', { class: 'share-link-role', text: label }),
          el('span', { class: 'share-item-meta', text: meta })),
        status === 'active'
          ? el('button', { type: 'button', class: 'button small quiet', text: 'Revoke',
            'aria-label': `Revoke the ${label.toLowerCase()} created ${ago(l.created)}`, onclick: () => this.revokeLink(l) })
          : null));
    }
    $('#share-links-empty').hidden = links.length > 0;
  }

  async createLink() {
    const role = $('#share-link-role').value;
    const expiresIn = Number($('#share-link-expiry').value);
    const body = { role };
    if (expiresIn > 0) body.expiresIn = expiresIn;
    let link;
    try {
      link = await this.api.post(`${this.base}/links`, body);
    } catch (e) {
      if (e.code === 'link_grants_less') {
        // The mode changed under the dialog: the server says why, and the choice follows.
        this.say(sentence(e.message), 'error');
        await this.refresh();
        return;
      }
      this.say(`Could not create the link: ${e.message}`, 'error');
      return;
    }
    $('#share-new-link-label').textContent = `New ${role} link: copy it now, it is shown only this once.`;
    $('#share-new-link-url').value = linkURL(this.view.id, link.token);
    $('#share-new-link-status').textContent = '';
    $('#share-new-link').hidden = false;
    this.say('');
    await this.refresh();
    $('#share-new-link-copy').focus();
  }

  async revokeLink(l) {
    try {
      await this.api.del(`${this.base}/links/${enc(l.id)}`);
      this.say(`The ${l.role} link no longer works; anyone who opened it with it has lost that access.`);
    } catch (e) {
      this.say(`Could not revoke the link: ${e.message}`, 'error');
    }
    await this.refresh();
  }
}
