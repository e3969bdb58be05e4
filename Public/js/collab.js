// The OT client of one open document, after ot.js / CodeMirror collab: a change typed here
// applies locally at once and goes to the server with the revision it was based on; while
// one change is in flight (awaiting acknowledgement), further changes wait in a buffer
// (awaiting with buffer); changes from others are transformed against both before they
// touch the text. The event stream is the one ordered channel: a change of ours comes back
// on it (same session id), and that is the acknowledgement.
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
    this.editor = editor;
    this.inflight = null; // {op, body, key, ackRevision}
    this.buffer = []; // [{op, meta}], each based on the text after the previous
    this.queue = []; // events waiting to be integrated, in stream order
    this.pumping = false;
    this.holds = 0; // e.g. an IME composition: remote changes wait
    this.actionBusy = 0; // undo, paste, … of ours in flight: edits wait
    this.recent = []; // [{revision, op}] server changes, for mapping old positions
    this.presence = []; // others' selections, in server coordinates at this.revision
    this.waiters = [];
    this.retryDelay = 500;
    this.stream = new EventStream(`/documents/${enc(this.id)}/events`, {
      headers: () => api.authHeaders(),
      onEvent: (e) => this.onStreamEvent(e),
      onStatus: (s) => this.emit('connection', { status: s }),
      // Resume after the last change integrated, not the last id seen: a presence event
      // may carry a revision whose change is still on its way.
      resumeFrom: () => this.revision,
    });
    this.stream.onUnauthorized = async () => { api.forgetSession(); await api.ensureSession(); };
  }

  emit(type, detail) { this.dispatchEvent(new CustomEvent(type, { detail })); }

  start() { this.stream.start(); }

  stop() {
    this.stream.stop();
    this.stopped = true;
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
    this.inflight = { op, body, key: randomKey(), ackRevision: null };
    this.send(this.inflight);
  }

  async send(f) {
    while (this.inflight === f && !this.stopped) {
      try {
        const res = await this.api.post(`/documents/${enc(this.id)}/edits`, f.body, { idempotencyKey: f.key });
        if (this.inflight !== f) return; // the stream acknowledged it already
        f.ackRevision = res.revision;
        // The stream may be down: if it has already passed this revision, that event was
        // ours and the acknowledgement is complete; otherwise the stream will bring it.
        this.pump();
        return;
      } catch (e) {
        if (this.inflight !== f) return;
        if (e instanceof ApiError && !e.retryable) {
          this.fail(e);
          return;
        }
        // Lost answer or server away: the same body and key again is safe.
        this.emit('retrying', { error: e });
        await sleep(this.retryDelay);
        this.retryDelay = Math.min(this.retryDelay * 2, 8000);
      }
    }
  }

  fail(error) {
    this.failed = true;
    this.emit('failed', { error });
  }

  emitState() { this.emit('sync', { state: this.state, pending: this.pendingCount }); }

  /** Resolves when nothing of ours is unacknowledged (e.g. before an undo). */
  whenSynchronized() {
    if (this.state === 'synchronized' && !this.actionBusy) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  settle() {
    if (this.state !== 'synchronized' || this.actionBusy) return;
    const w = this.waiters;
    this.waiters = [];
    for (const resolve of w) resolve();
  }

  /**
   * Runs a request that changes the document from the server side (undo, paste, revert…)
   * once every edit of ours is acknowledged; edits typed meanwhile wait, so the stream's
   * next change of ours can only be that request's.
   */
  async runAction(fn) {
    this.editor.flushInput();
    for (;;) {
      await this.whenSynchronized();
      if (this.state === 'synchronized' && !this.actionBusy) break;
    }
    this.actionBusy += 1;
    try {
      return await fn();
    } finally {
      this.actionBusy -= 1;
      this.flush();
      this.settle();
      this.emitState();
    }
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
    try {
      const changes = await this.api.get(`/documents/${enc(this.id)}/edits?since=${this.revision}`);
      const list = Array.isArray(changes) ? changes : (changes.changes || []);
      for (const c of list) if (c.revision === this.revision + 1) this.onChange(c);
    } catch (e) {
      this.reload(e);
      return;
    }
    // Drop queued changes now covered.
    this.queue = this.queue.filter((q) => q.type !== 'change' || q.data.revision > this.revision);
    const stuck = this.queue.length && this.queue[0].type === 'change' && this.revision === before;
    if (stuck) this.reload(new Error('the change log has a gap'));
    else if (afterReset) this.emit('resynced', {});
  }

  /** The log no longer reaches back: only reloading the document can help. */
  reload(error) {
    this.queue = [];
    this.stop();
    this.emit('reset', { error, pending: this.pendingCount });
  }

  onChange(c) {
    if (c.revision <= this.revision) return; // a replay of something integrated
    const f = this.inflight;
    const mine = f && c.session && c.session === this.sessionId && c.kind === 'edit' &&
      (f.ackRevision === null || f.ackRevision === c.revision);
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
  }

  acknowledge(revision) {
    this.revision = Math.max(this.revision, revision);
    this.inflight = null;
    this.retryDelay = 500;
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
