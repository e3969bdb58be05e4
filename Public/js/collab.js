// The OT client of one open document, after ot.js / CodeMirror collab: a change typed here
// applies locally at once and goes to the server with the revision it was based on; while
// one change is in flight (awaiting acknowledgement), further changes wait in a buffer
// (awaiting with buffer); changes from others are transformed against both before they
// touch the text. The event stream is the one ordered channel: a change of ours comes back
// on it (same session id, and the revision the POST answered once that answer is in), and
// that is the acknowledgement. An edit the server turned into nothing (someone deleted the
// same text first) comes back as no event at all: it is acknowledged once the stream has
// reached the revision its answer named.
import * as ot from './ot.js';
import { EventStream } from './sse.js';
import { ApiError, enc, randomKey } from './api.js';

const RECENT_LIMIT = 500;

export class Collab extends EventTarget {
  /**
   * @param api the Api
   * @param doc the document JSON from GET /documents/{id}
   * @param editor {getText(), applyRemote(op), flushInput()} — the text surface
   */
  constructor(api, doc, editor) {
    super();
    this.api = api;
    this.id = doc.id;
    this.revision = doc.revision;
    this.serverText = doc.text; // the text at this.revision, to carry pending changes over a reload
    this.editor = editor;
    this.inflight = null; // {op, body, key, session, ackRevision, noop, uncertain}
    this.buffer = []; // [{op, meta}], each based on the text after the previous
    this.queue = []; // events waiting to be integrated, in stream order
    this.pumping = false;
    this.holds = 0; // e.g. an IME composition: remote changes wait
    this.actionBusy = 0; // undo, paste, … of ours in flight: edits wait
    this.recent = []; // [{revision, op}] server changes, for mapping old positions
    this.presence = []; // others' selections, in server coordinates at this.revision
    this.waiters = [];
    this.targets = []; // [{revision, resolve}] waiting for the stream to reach a revision
    this.actionTarget = 0;
    this.retryDelay = 500;
    this.stream = new EventStream(`/documents/${enc(this.id)}/events`, {
      headers: () => { this.streamSession = this.sessionId; return api.authHeaders(); },
      onEvent: (e) => this.onStreamEvent(e),
      onStatus: (s) => this.emit('connection', { status: s }),
      // Resume after the last change integrated, not the last id seen: a presence event
      // may carry a revision whose change is still on its way.
      resumeFrom: () => this.revision,
    });
    this.stream.onUnauthorized = async () => { await api.renewSession(this.streamSession); };
  }

  emit(type, detail) { this.dispatchEvent(new CustomEvent(type, { detail })); }

  start() { this.stream.start(); }

  stop() {
    this.stream.stop();
    this.stopped = true;
    // Nothing waits forever on a client that will never synchronize again.
    this.settle();
    this.reachTargets();
  }

  get sessionId() { return this.api.session && this.api.session.id; }

  /** 'synchronized' | 'awaitingAck' | 'awaitingWithBuffer' (ot.js's client states). */
  get state() {
    if (!this.inflight) return 'synchronized';
    return this.buffer.length ? 'awaitingWithBuffer' : 'awaitingAck';
  }

  get pendingCount() { return (this.inflight ? 1 : 0) + this.buffer.length; }

  // ---- local changes ----

  /**
   * A change made here to the current text. `meta.actionName` names it on the server
   * ("Paste"); changes with equal meta compose while they wait.
   */
  applyLocal(op, meta = {}) {
    if (ot.isNoop(op)) return;
    const key = meta.actionName || '';
    const last = this.buffer[this.buffer.length - 1];
    if (last && (last.meta.actionName || '') === key && !meta.newGroup) last.op = ot.compose(last.op, op);
    else this.buffer.push({ op, meta });
    this.flush();
    this.emitState();
  }

  flush() {
    if (this.inflight || !this.buffer.length || this.actionBusy || this.stopped || this.failed) return;
    const { op, meta } = this.buffer.shift();
    const body = { base: this.revision, ops: op };
    if (meta.actionName) body.actionName = meta.actionName;
    if (meta.newGroup) body.newGroup = true;
    this.inflight = { op, body, key: randomKey(), session: this.sessionId, ackRevision: null, noop: false, uncertain: false };
    this.send(this.inflight);
  }

  async send(f) {
    while (this.inflight === f && !this.stopped) {
      try {
        // No silent new session on a 401: the key would be new to it, and an earlier
        // attempt whose answer was lost may have landed (see recoverSession).
        const res = await this.api.post(`/documents/${enc(this.id)}/edits`, f.body,
          { idempotencyKey: f.key, renewSession: false });
        if (this.inflight !== f) return; // the stream acknowledged it already
        f.ackRevision = res.revision;
        f.noop = Array.isArray(res.ops) && ot.isNoop(res.ops);
        // A change that became nothing has no event to wait for; one that did not comes
        // over the stream.
        this.acknowledgeNoop();
        this.pump();
        return;
      } catch (e) {
        if (this.inflight !== f) return;
        if (e instanceof ApiError && e.status === 401) {
          await this.recoverSession(f);
          continue;
        }
        if (e instanceof ApiError && !e.retryable) {
          f.refused = true;
          this.fail(e);
          return;
        }
        // Lost answer or server away: the same body and key again is safe.
        f.uncertain = true;
        this.emit('retrying', { error: e });
        await sleep(this.retryDelay);
        this.retryDelay = Math.min(this.retryDelay * 2, 8000);
      }
    }
  }

  /**
   * The session ended while `f` was unacknowledged. If an earlier attempt may have landed,
   * the change log says whether it did (a change by the old session); only if it did not
   * does the edit go again, under the new session with a new key.
   */
  async recoverSession(f) {
    const old = f.session;
    try {
      await this.api.renewSession(old);
    } catch (e) {
      await sleep(this.retryDelay);
      return;
    }
    if (f.uncertain) {
      try {
        await this.integrateLog();
      } catch (e) {
        if (e instanceof ApiError && !e.retryable) { this.reload(e); return; }
        await sleep(this.retryDelay);
        return; // try again: the next attempt meets the 401 and comes back here
      }
      if (this.inflight !== f) return;
    }
    f.session = this.sessionId;
    f.key = randomKey();
    f.uncertain = false;
  }

  /** Integrates every change after this.revision from the log (GET …/edits?since=). */
  async integrateLog() {
    const changes = await this.api.get(`/documents/${enc(this.id)}/edits?since=${this.revision}`);
    const list = Array.isArray(changes) ? changes : (changes.changes || []);
    for (const c of list) if (c.revision === this.revision + 1) this.onChange(c);
  }

  fail(error) {
    this.failed = true;
    this.emit('failed', { error });
  }

  emitState() { this.emit('sync', { state: this.state, pending: this.pendingCount }); }

  /** Resolves when nothing of ours is unacknowledged (e.g. before an undo), or on stop. */
  whenSynchronized() {
    if ((this.state === 'synchronized' && !this.actionBusy) || this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Resolves once the stream has integrated `revision` (or the client stopped). */
  whenReached(revision) {
    if (this.revision >= revision || this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.targets.push({ revision, resolve }));
  }

  reachTargets() {
    if (!this.targets.length) return;
    const ready = this.targets.filter((t) => this.stopped || this.revision >= t.revision);
    this.targets = this.targets.filter((t) => !ready.includes(t));
    for (const t of ready) t.resolve();
  }

  /** A server-side action of ours answered with `revision`: edits wait until it is integrated. */
  expectRevision(revision) {
    if (this.actionBusy && Number.isInteger(revision)) this.actionTarget = Math.max(this.actionTarget, revision);
  }

  settle() {
    if ((this.state !== 'synchronized' || this.actionBusy) && !this.stopped) return;
    const w = this.waiters;
    this.waiters = [];
    for (const resolve of w) resolve();
  }

  /**
   * Runs a request that changes the document from the server side (undo, paste, revert…)
   * once every edit of ours is acknowledged; edits typed meanwhile wait until the stream
   * has brought that request's change too (the revision it answered, see expectRevision),
   * so a change of ours on the stream while an edit is in flight can only be that edit.
   */
  async runAction(fn) {
    this.editor.flushInput();
    for (;;) {
      await this.whenSynchronized();
      if (this.stopped) return undefined;
      if (this.state === 'synchronized' && !this.actionBusy) break;
    }
    this.actionBusy += 1;
    this.actionTarget = this.revision;
    try {
      return await fn();
    } catch (e) {
      // The answer was lost, not necessarily the action: wait for whatever it may have made.
      if (e instanceof ApiError && e.retryable) await this.expectCurrentRevision();
      throw e;
    } finally {
      await this.whenReached(this.actionTarget);
      this.actionBusy -= 1;
      this.flush();
      this.settle();
      this.emitState();
    }
  }

  async expectCurrentRevision() {
    try {
      const doc = await this.api.get(`/documents/${enc(this.id)}`);
      this.expectRevision(doc.revision);
    } catch { /* the server is away: nothing of ours can have landed since */ }
  }

  // ---- the event stream ----

  onStreamEvent(e) {
    let data = null;
    try { data = e.data ? JSON.parse(e.data) : null; } catch { return; }
    this.queue.push({ type: e.type, data, id: e.id === null ? null : Number(e.id) });
    this.pump();
  }

  hold() { this.holds += 1; }
  release() { this.holds -= 1; if (this.holds === 0) this.pump(); }

  /** Integrates queued events in order; fills gaps from GET …/edits?since=. */
  async pump() {
    if (this.pumping || this.holds) return;
    this.pumping = true;
    try {
      this.editor.flushInput();
      while (this.queue.length && !this.holds && !this.stopped) {
        const ev = this.queue[0];
        if (ev.type === 'change' && ev.data.revision > this.revision + 1) {
          await this.catchUp();
          continue;
        }
        if (ev.type === 'reset') {
          this.queue.shift();
          await this.catchUp(true);
          continue;
        }
        this.queue.shift();
        this.integrate(ev);
      }
    } finally {
      this.pumping = false;
    }
  }

  integrate(ev) {
    switch (ev.type) {
      case 'change': this.onChange(ev.data); break;
      case 'presence': this.onPresence(ev.data); break;
      default: this.emit(ev.type, ev.data); break;
    }
  }

  async catchUp(afterReset = false) {
    const before = this.revision;
    for (let delay = 500; ; delay = Math.min(delay * 2, 8000)) {
      try {
        await this.integrateLog();
        break;
      } catch (e) {
        if (this.stopped) return;
        // Only a log that no longer reaches back (or a gone document) needs a reload.
        if (!(e instanceof ApiError) || e.retryable) {
          this.emit('retrying', { error: e });
          await sleep(delay);
          continue;
        }
        this.reload(e);
        return;
      }
    }
    // Drop queued changes now covered.
    this.queue = this.queue.filter((q) => q.type !== 'change' || q.data.revision > this.revision);
    const stuck = this.queue.length && this.queue[0].type === 'change' && this.revision === before;
    if (stuck) this.reload(new Error('the change log has a gap'));
    else if (afterReset) this.emit('resynced', {});
  }

  /** The log no longer reaches back: only reloading the document can help. */
  reload(error) {
    if (this.stopped) return;
    this.queue = [];
    this.stop();
    this.emit('reset', { error, pending: this.pendingCount });
  }

  /**
   * Before a reload (this client stopped): finds out whether the edit in flight reached
   * the server, by sending it again under its key if its answer never came (a replay
   * answers the first answer). Waits out network errors.
   */
  async settleInflight() {
    const f = this.inflight;
    if (!f || f.refused || f.ackRevision !== null || f.landed !== undefined) return;
    for (let delay = 500; ; delay = Math.min(delay * 2, 8000)) {
      try {
        await this.api.post(`/documents/${enc(this.id)}/edits`, f.body, { idempotencyKey: f.key, renewSession: false });
        f.landed = true;
        return;
      } catch (e) {
        if (e instanceof ApiError && !e.retryable) {
          // Refused now; under an ended session (401) it may have landed before.
          f.landed = e.status === 401 && f.uncertain;
          return;
        }
        await sleep(delay);
      }
    }
  }

  /**
   * What is typed here and not in the server's text, as one change to `base`, for a reload
   * to carry over; null when there is none. Call settleInflight first, and only while this
   * client is the editor's (it takes input not yet diffed too).
   */
  takePending() {
    this.editor.flushInput();
    const f = this.inflight;
    let base = this.serverText;
    let op = null;
    if (f) {
      const landed = !f.refused && (f.ackRevision !== null || f.landed === true);
      if (landed) base = ot.apply(base, f.op);
      else op = f.op;
    }
    for (const b of this.buffer) op = op ? ot.compose(op, b.op) : b.op;
    this.inflight = null;
    this.buffer = [];
    if (!op || ot.isNoop(op)) return null;
    return { base, op };
  }

  onChange(c) {
    if (c.revision <= this.revision) return; // a replay of something integrated
    const f = this.inflight;
    const mine = f && !f.noop && c.session && c.session === f.session && c.kind === 'edit' &&
      (f.ackRevision === null || f.ackRevision === c.revision);
    try {
      this.serverText = ot.apply(this.serverText, c.ops);
    } catch (e) {
      this.reload(e); // our idea of the text is wrong: start again from the server's
      return;
    }
    this.recent.push({ revision: c.revision, op: c.ops });
    if (this.recent.length > RECENT_LIMIT) this.recent.shift();
    this.mapPresence(c.ops);
    if (mine) {
      this.acknowledge(c.revision);
      this.emit('change', { change: c, own: true });
      return;
    }
    let op = c.ops;
    if (f) [f.op, op] = ot.transform(f.op, op);
    for (const b of this.buffer) [b.op, op] = ot.transform(b.op, op);
    this.revision = c.revision;
    this.editor.applyRemote(op, c);
    this.emit('change', { change: c, own: false, op });
    this.acknowledgeNoop();
    this.reachTargets();
  }

  /** The in-flight edit became nothing on the server and everything before it is here. */
  acknowledgeNoop() {
    const f = this.inflight;
    if (!f || !f.noop || f.ackRevision === null || this.revision < f.ackRevision) return;
    // Transformed here through the same changes, it must have become nothing too; if not,
    // the texts differ and only a reload (carrying it over) can put them right.
    if (!ot.isNoop(f.op)) { this.reload(new Error('the text differs from the server\'s')); return; }
    this.acknowledge(this.revision);
  }

  acknowledge(revision) {
    this.revision = Math.max(this.revision, revision);
    this.inflight = null;
    this.retryDelay = 500;
    this.reachTargets();
    this.flush();
    this.emitState();
    this.settle();
  }

  // ---- positions ----

  /** Maps a server position at this.revision to the local text. */
  toLocal(pos, stickBefore = false) {
    if (this.inflight) pos = ot.transformPosition(pos, this.inflight.op, stickBefore);
    for (const b of this.buffer) pos = ot.transformPosition(pos, b.op, stickBefore);
    return pos;
  }

  /** Maps a server range at `revision` (≤ this.revision) to the current server text. */
  fromRevision(range, revision) {
    let { from, to } = range;
    for (const r of this.recent) {
      if (r.revision <= revision) continue;
      from = ot.transformPosition(from, r.op);
      to = Math.max(from, ot.transformPosition(to, r.op, true));
    }
    return { from, to };
  }

  onPresence(list) {
    this.presence = (list || []).filter((p) => p.id !== this.sessionId);
    this.emit('presence', { people: list || [] });
  }

  mapPresence(op) {
    for (const p of this.presence) {
      if (p.selection) p.selection = ot.transformSelection(p.selection, op);
    }
  }

  /** Others' selections in local coordinates. */
  othersLocal() {
    return this.presence.map((p) => ({
      ...p,
      selection: p.selection && { anchor: this.toLocal(p.selection.anchor), head: this.toLocal(p.selection.head) },
    }));
  }
}

function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }
