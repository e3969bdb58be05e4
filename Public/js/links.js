// Share links this browser holds, one per document, in localStorage: every tab of this
// browser presents it (the Tandem-Link header) on that document's requests, so the owner
// link saved at creation keeps its owner rights after the creating tab's session ends.
// A link is opened in the browser as #/doc/<id>?link=<token>.

const KEY = 'tandem.links';

/** The document a request path names (/documents/<id>…), or null. */
export function documentOf(path) {
  const m = /^\/documents\/([^/?#]+)/.exec(path);
  if (!m) return null;
  try { return decodeURIComponent(m[1]); } catch { return null; }
}

/** The address that opens document `id` with the link `token`. */
export function linkURL(id, token) {
  return `${location.origin}${location.pathname}#/doc/${encodeURIComponent(id)}?link=${encodeURIComponent(token)}`;
}

/** A link token is `<link id>.<secret>`: the id names it in the owner's list of links. */
export function linkIdOf(token) {
  const dot = String(token || '').indexOf('.');
  return dot > 0 ? token.slice(0, dot) : null;
}

export class LinkStore {
  constructor() {
    this.listeners = new Set();
  }

  all() {
    try {
      const v = JSON.parse(localStorage.getItem(KEY) || '{}');
      return v && typeof v === 'object' ? v : {};
    } catch { return {}; }
  }

  save(map) { localStorage.setItem(KEY, JSON.stringify(map)); }

  /** {token, role} for document `id` (role null when not known), or null. */
  get(id) {
    const entry = id ? this.all()[id] : null;
    return entry && typeof entry.token === 'string' ? entry : null;
  }

  token(id) { const e = this.get(id); return e ? e.token : null; }

  remember(id, token, role = null) {
    const map = this.all();
    map[id] = { token, role };
    this.save(map);
  }

  /**
   * A link opened from an address. The owner link stays if this browser holds it (opening
   * one's own viewer link must not give the document away): answers false then.
   */
  open(id, token) {
    const held = this.get(id);
    if (held && held.token === token) return true;
    if (held && held.role === 'owner') return false;
    this.remember(id, token);
    return true;
  }

  /** Forgets the link of `id` (the server refused it: revoked, expired or unknown). */
  forget(id) {
    const map = this.all();
    if (!(id in map)) return;
    delete map[id];
    this.save(map);
  }

  /** `fn(id)` when a link of this browser was refused and forgotten. */
  onRejected(fn) { this.listeners.add(fn); }

  rejected(id, token) {
    const held = this.get(id);
    if (!held || held.token !== token) return; // gone already, or replaced by a newer one
    this.forget(id);
    for (const fn of this.listeners) fn(id);
  }
}
