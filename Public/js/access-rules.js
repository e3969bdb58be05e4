// What each access mode lets everyone do, and what the Share dialog says of it: which share
// links a mode allows (a link never grants less than the address: no viewer link where
// anyone with the address may edit), and the caller's own role in words that never
// contradict what the caller may do. Pure: no DOM, so the unit tests run it anywhere.

export const MODES = {
  open: { name: 'Open', about: 'Anyone can read and edit it.' },
  editable: { name: 'Editable', about: 'Anyone can read it; anyone using Tandem can edit it (callers without a session only read).' },
  locked: { name: 'Locked', about: 'Anyone can read it; only its owner and editors can edit it.' },
  private: { name: 'Private', about: 'Only its owner and the people it is shared with can open it; to anyone else it does not exist.' },
};

export const ROLES = { owner: 'the owner', editor: 'an editor', viewer: 'a viewer' };

/** Who may edit an `open` or `editable` document without any role, as said to a person. */
const ANYONE_EDITS = {
  open: 'anyone with its address',
  editable: 'anyone using Tandem',
};

/** True when a viewer link may be made in `mode`: only where the address alone gives no editing. */
export function viewerLinkAllowed(mode) {
  return mode === 'locked' || mode === 'private';
}

/** Why the Share dialog offers no viewer link in `mode` (one line), or '' where it does. */
export function viewerLinkNote(mode) {
  if (viewerLinkAllowed(mode) || !ANYONE_EDITS[mode]) return '';
  const who = mode === 'open' ? 'Anyone with the address' : 'Anyone using Tandem';
  return `${who} can already edit this ${mode} document: make it Locked or Private to share a read-only link.`;
}

/**
 * What the caller may do, in one sentence, from the document's `role`, `access` (`mode`) and
 * `canEdit`: a viewer whom the mode lets edit anyway is told so, not "a viewer and can edit".
 */
export function aboutYou({ role = null, mode = null, canEdit = true } = {}) {
  if (!canEdit) return role ? `You are ${ROLES[role] || role} and can read it but not edit it.` : 'You can read it but not edit it.';
  if (role === 'viewer') {
    return ANYONE_EDITS[mode]
      ? `You are a viewer, but this document is ${mode}: ${ANYONE_EDITS[mode]} can edit it, so you can too.`
      : 'You are a viewer, but you can edit it.';
  }
  return role ? `You are ${ROLES[role] || role} and can edit it.` : 'You can edit it.';
}

/** The server's message (lower-case, no full stop) as a sentence to show. */
export function sentence(message) {
  const s = String(message || '').trim();
  if (!s) return '';
  const first = s[0].toUpperCase() + s.slice(1);
  return /[.!?]$/.test(first) ? first : `${first}.`;
}
