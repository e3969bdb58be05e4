// The REST client: one session per tab (its token lives in sessionStorage, so two windows
// are two people; a duplicated tab, which starts with a copy of it, takes its own: see
// tab-session.js; two browsers given one token still share it, which collab-state.js
// allows for), JSON in and out, errors as ApiError with the server's code. A request about
// a document also presents the share link this browser holds for it (links.js).
import { LinkStore, documentOf } from './links.js';
import { TabSession } from './tab-session.js';

const SESSION_KEY = 'tandem.session';
const NAME_KEY = 'tandem.name';
// Set at a sign-in with the login cookie, cleared at sign-out: the cookie itself is HttpOnly,
// so this says whether a new tab should ask for a session of the login first (a guest's
// browser never asks, so it starts as fast as before and logs no refused request).
const LOGIN_KEY = 'tandem.login';
const LOGIN_HEADER = { 'Tandem-Login': 'cookie' };

export class ApiError extends Error {
  constructor(status, code, message, retryAfter = null) {
    super(message || code);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter; // seconds, from Retry-After, when the server said
  }
  /** True when nothing reached the server or it could not answer: worth retrying. */
  get retryable() { return this.status === 0 || this.status === 503 || this.status === 502 || this.status === 504; }
}

/** A random key for Idempotency-Key; works outside secure contexts too. */
export function randomKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

const GUEST_NAMES = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Ken', 'Margaret', 'Donald', 'Frances', 'Niklaus'];

export function preferredName() {
  const saved = localStorage.getItem(NAME_KEY);
  if (saved) return saved;
  return `${GUEST_NAMES[Math.floor(Math.random() * GUEST_NAMES.length)]} (guest)`;
}

/** A guest name nobody in `taken` has, or null when all are taken. */
export function freeGuestName(taken) {
  const free = GUEST_NAMES.map((n) => `${n} (guest)`).filter((n) => !taken.has(n));
  return free.length ? free[Math.floor(Math.random() * free.length)] : null;
}

export class Api {
  constructor(base = '') {
    this.base = base;
    this.session = null;
    try { this.session = JSON.parse(sessionStorage.getItem(SESSION_KEY) || 'null'); } catch { this.session = null; }
    this.sessionPromise = null;
    this.listeners = new Set();
    this.signInListeners = new Set();
    this.guestsOff = null; // the 403 guests_off once the server refused a guest session
    this.links = new LinkStore();
    this.tabs = new TabSession();
    // A session found in sessionStorage is checked once with the other tabs before use.
    this.checked = !this.session;
  }

  onSessionChange(fn) { this.listeners.add(fn); }

  /** `fn` runs when the server takes no guests and this tab has no user's session. */
  onSignInRequired(fn) { this.signInListeners.add(fn); }

  /** True when the tab's session is a signed-in user's. */
  get signedIn() { return !!(this.session && this.session.user); }

  /** The tab's session, created on first use. */
  async ensureSession() {
    if (this.session && this.checked) return this.session;
    if (!this.sessionPromise) {
      this.sessionPromise = (async () => {
        if (this.session && !this.checked) {
          const taken = await this.tabs.taken(this.session.id);
          this.checked = true;
          if (!taken) { this.tabs.hold(this.session.id); return this.session; }
          this.forgetSession(); // the tab this one was duplicated from holds it
        }
        const s = await this.startSession();
        this.adopt(s);
        return s;
      })().finally(() => { this.sessionPromise = null; });
    }
    return this.sessionPromise;
  }

  /**
   * A new session for this tab: the login's user's when this browser signed in (a reload or
   * a new tab stays signed in), else a guest's, or a 403 guests_off when the server takes
   * no guests (the sign-in dialog is asked for).
   */
  async startSession() {
    if (localStorage.getItem(LOGIN_KEY)) {
      try {
        const s = await this.request('POST', '/sessions', { headers: LOGIN_HEADER, auth: false });
        if (s && s.user) return s;
        localStorage.removeItem(LOGIN_KEY); // no cookie after all: a guest's session
        return s;
      } catch (e) {
        if (e.status !== 401 && e.code !== 'guests_off') throw e;
        localStorage.removeItem(LOGIN_KEY); // signed out (elsewhere, or the login ended)
        if (e.code === 'guests_off') throw this.refusedGuest(e);
      }
    }
    if (this.guestsOff) throw this.refusedGuest(this.guestsOff);
    try {
      return await this.request('POST', '/sessions', { body: { name: preferredName() }, auth: false });
    } catch (e) {
      if (e.code === 'guests_off') throw this.refusedGuest(e);
      throw e;
    }
  }

  refusedGuest(e) {
    const first = !this.guestsOff;
    this.guestsOff = e;
    if (first) for (const fn of this.signInListeners) fn(e);
    return e;
  }

  /** `s` becomes this tab's session. */
  adopt(s) {
    this.tabs.hold(s.id);
    this.session = s;
    this.checked = true;
    sessionStorage.setItem(SESSION_KEY, JSON.stringify(s));
    for (const fn of this.listeners) fn(s);
  }

  /**
   * Signs in (POST /sessions with the login cookie asked for) and makes the user's session
   * this tab's; a guest session the tab had is ended. Throws ApiError: 401
   * invalid_credentials, 429 rate_limited (with retryAfter), and nothing changes then.
   */
  async signIn(user, password) {
    const s = await this.request('POST', '/sessions', { body: { user, password }, headers: LOGIN_HEADER, auth: false });
    return this.adoptLogin(s);
  }

  /**
   * Makes an account (POST /users, only where the server takes sign-ups) and signs it in as
   * signIn does, login cookie included. Throws ApiError: 409 name_taken, 400 invalid_field,
   * 403 signup_off, and nothing changes then.
   */
  async signUp(name, password, displayName) {
    const body = { name, password };
    if (displayName) body.displayName = displayName;
    const s = await this.request('POST', '/users', { body, headers: LOGIN_HEADER, auth: false });
    return this.adoptLogin(s);
  }

  /** What the server lets people do without an account (GET /accounts): {guests, signup}. */
  accounts() { return this.request('GET', '/accounts', { auth: false }); }

  /** `s`, a user's new session with the login cookie set, becomes this tab's. */
  adoptLogin(s) {
    const old = this.session;
    localStorage.setItem(LOGIN_KEY, '1');
    this.guestsOff = null;
    this.adopt(s);
    if (old && !old.user && old.id !== s.id) this.endSession(old.token, {}).catch(() => { /* it times out */ });
    return s;
  }

  /**
   * Signs this browser out: ends the tab's session and the login (the cookie is cleared).
   * The tab then has no session; the next request starts a guest's (or asks to sign in).
   */
  async signOut() {
    const old = this.session;
    localStorage.removeItem(LOGIN_KEY);
    this.forgetSession();
    if (old) await this.endSession(old.token, LOGIN_HEADER);
  }

  /** DELETE /sessions/me for the session of `token` (not necessarily the tab's now). */
  async endSession(token, headers) {
    let res;
    try {
      res = await fetch(this.base + '/sessions/me', { method: 'DELETE', headers: { ...headers, Authorization: `Bearer ${token}` }, cache: 'no-store' });
    } catch {
      throw new ApiError(0, 'network', 'The server cannot be reached');
    }
    // An ended session is signed out already.
    if (!res.ok && res.status !== 401) throw await errorOf(res);
  }

  /**
   * Renames this session in place (PATCH /sessions/me): its token, undo history and
   * pasteboards stay, and everyone in its documents sees the new name.
   */
  async renameSession(name, { remember = true } = {}) {
    if (remember) localStorage.setItem(NAME_KEY, name);
    await this.ensureSession();
    const s = await this.request('PATCH', '/sessions/me', { body: { name } });
    this.session = { ...this.session, name: s.name };
    sessionStorage.setItem(SESSION_KEY, JSON.stringify(this.session));
    return this.session;
  }

  /** True when the name is one this client picked, not one the person chose. */
  get hasGuestName() { return !localStorage.getItem(NAME_KEY); }

  /**
   * After a 401 for the session `failedId`: a new session, unless someone else (the event
   * stream, another request) has already replaced that one.
   */
  async renewSession(failedId) {
    if (this.session && (failedId === undefined || this.session.id === failedId)) this.forgetSession();
    return this.ensureSession();
  }

  forgetSession() {
    this.session = null;
    sessionStorage.removeItem(SESSION_KEY);
  }

  /** The session's token and, for a path about a document, the link held for it. */
  authHeaders(path = '') {
    const h = this.session ? { Authorization: `Bearer ${this.session.token}` } : {};
    const link = this.links.token(documentOf(path));
    if (link) h['Tandem-Link'] = link;
    return h;
  }

  /**
   * Sends a request; `body` is JSON unless `text` is given. A 401 (expired session) starts
   * a new session and retries once, unless `renewSession: false` (the caller then gets the
   * 401 and decides: a request whose earlier answer was lost may already have landed).
   * A share link the server refuses (401 invalid_link: revoked, expired) is forgotten and
   * the request goes again without it.
   * Resolves to parsed JSON (or text with `as: 'text'`).
   */
  async request(method, path, { body, text, headers = {}, idempotencyKey, auth = true, as = 'json', signal, renewSession = true, keepalive = false } = {}) {
    if (auth) await this.ensureSession();
    const used = this.session && this.session.id;
    const h = { ...headers };
    if (auth) Object.assign(h, this.authHeaders(path));
    if (idempotencyKey) h['Idempotency-Key'] = idempotencyKey;
    let payload;
    if (text !== undefined) { payload = text; h['Content-Type'] = 'text/plain; charset=utf-8'; }
    else if (body !== undefined) { payload = JSON.stringify(body); h['Content-Type'] = 'application/json'; }
    let res;
    try {
      res = await fetch(this.base + path, { method, headers: h, body: payload, signal, cache: 'no-store', keepalive });
    } catch (e) {
      if (e && e.name === 'AbortError') throw e;
      throw new ApiError(0, 'network', 'The server cannot be reached');
    }
    if (res.ok) return answerOf(res, as);
    const error = await errorOf(res);
    if (error.code === 'invalid_link' && h['Tandem-Link']) {
      // Refused, so nothing happened: the same request is safe without the link.
      this.links.rejected(documentOf(path), h['Tandem-Link']);
      return this.request(method, path, { body, text, headers, idempotencyKey, auth, as, signal, renewSession });
    }
    if (res.status === 401 && auth && renewSession) {
      // Refused, so nothing happened: the same request is safe under the new session.
      await this.renewSession(used);
      return this.request(method, path, { body, text, headers, idempotencyKey, auth, as, signal, renewSession: false });
    }
    throw error;
  }

  get(path, opts) { return this.request('GET', path, opts); }
  post(path, body, opts = {}) { return this.request('POST', path, { ...opts, body }); }
  put(path, body, opts = {}) { return this.request('PUT', path, { ...opts, body }); }
  patch(path, body, opts = {}) { return this.request('PATCH', path, { ...opts, body }); }
  del(path, opts) { return this.request('DELETE', path, opts); }
}

/** The server's error answer as an ApiError with its code. */
export async function errorOf(res) {
  let code = `http_${res.status}`;
  let message = res.statusText;
  try {
    const j = await res.json();
    if (j && j.error) { code = j.error.code || code; message = j.error.message || message; }
  } catch { /* not JSON */ }
  const after = parseInt(res.headers.get('Retry-After') || '', 10);
  return new ApiError(res.status, code, message, Number.isFinite(after) ? after : null);
}

async function answerOf(res, as) {
  if (res.status === 204) return null;
  if (as === 'text') return res.text();
  const type = res.headers.get('Content-Type') || '';
  return type.includes('json') ? res.json() : res.text();
}

export const enc = encodeURIComponent;
