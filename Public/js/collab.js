// The network side of one open document's OT client; the protocol itself (revision,
// in-flight change, buffer) is collab-state.js. A change typed here applies locally at once
// and goes to the server with the revision it was based on; changes from others are
// transformed through what is pending before they touch the text. The event stream is the
// ordered channel: a change of ours comes back on it with the revision the POST answered,
// and that is the acknowledgement. While the stream is down, the change log acknowledges
// instead, so typing goes on reaching the server in its order and its undo groups.
import * as ot from './ot.js';
import * as cs from './collab-state.js';
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
    this.st = cs.init(doc.revision); // the protocol state; its inflight's tag is {body, key, session, …}
    this.serverText = doc.text; // the text at this.revision, to carry pending changes over a reload
    this.editor = editor;
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
    const path = `/documents/${enc(this.id)}/events`;
    this.stream = new EventStream(path, {
      headers: () => { this.streamSession = this.sessionId; return api.authHeaders(path); },
      onEvent: (e) => this.onStreamEvent(e),
      onStatus: (s) => this.emit('connection', { status: s }),
      // Resume after the last change integrated, not the last id seen: a presence event
      // may carry a revision whose change is still on its way.
      resumeFrom: () => this.revision,
      onRefused: (error, sent) => this.onStreamRefused(error, sent),
    });
  }

  /**
   * The stream was refused: a share link no longer valid is forgotten and the stream goes
   * again without it; an ended session is renewed; a document that is gone (or no longer
   * ours to read: private documents answer 404) stops this client ('refused').
   */
  async onStreamRefused(error, sent) {
    if (error.code === 'invalid_link' && sent['Tandem-Link']) {
      this.api.links.rejected(this.id, sent['Tandem-Link']);
      return 'again';
    }
    if (error.status === 401) { await this.api.renewSession(this.streamSession); return undefined; }
    if (error.status === 404 || error.status === 403) {
      this.stop();
      this.emit('refused', { error });
      return 'stop';
    }
    return undefined;
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

  get revision() { return this.st.revision; }
  get inflight() { return this.st.inflight; }
  get buffer() { return this.st.buffer; }

  /** 'synchronized' | 'awaitingAck' | 'awaitingWithBuffer' (ot.js's client states). */
  get state() { return cs.status(this.st); }

  get pendingCount() { return cs.pendingCount(this.st); }

  /** The network record of the change in flight, or null. */
  get sending() { return this.st.inflight && this.st.inflight.tag; }

  // ---- local changes ----

  /**
   * A change made here to the current text. `meta.actionName` names it on the server
   * ("Paste"); changes with equal meta compose while they wait.
   */
  applyLocal(op, meta = {}) {
    if (ot.isNoop(op)) return;
    this.st = cs.push(this.st, op, meta);
    this.flush();
    this.emitState();
  }

  flush() {
    if (this.actionBusy || this.stopped || this.failed) return;
    const f = { body: null, key: randomKey(), session: this.sessionId, uncertain: false };
    const next = cs.sendable(this.st, f);
    if (!next) return;
    this.st = next.state;
    f.body = { base: next.base, ops: next.op };
    if (next.meta.actionName) f.body.actionName = next.meta.actionName;
    if (next.meta.newGroup) f.body.newGroup = true;
    this.send(f);
  }

  async send(f) {
    while (this.sending === f && !this.stopped) {
      try {
        // No silent new session on a 401: the key would be new to it, and an earlier
        // attempt whose answer was lost may have landed (see recoverSession).
        const res = await this.api.post(`/documents/${enc(this.id)}/edits`, f.body,
          { idempotencyKey: f.key, renewSession: false });
        if (this.sending !== f) return; // acknowledged already (a lost answer, found in the log)
        this.st = cs.answered(this.st, res.revision, Array.isArray(res.ops) && ot.isNoop(res.ops));
        this.waitingForAnswer = false;
        // A change that became nothing has no event to wait for; one that did not comes
        // over the stream, or from the log while the stream is down.
        this.acknowledgeNoop();
        if (this.stream.status !== 'open') this.catchUpWhileOffline();
        this.pump();
        return;
      } catch (e) {
        if (this.sending !== f) return;
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
        const delay = this.retryDelay;
        this.retryDelay = Math.min(delay * 2, 8000); // grown first: the status reads it
        this.emit('retrying', { error: e });
        await sleep(delay);
      }
    }
  }

  /**
   * The session ended while `f` was unacknowledged. If an earlier attempt may have landed,
   * the change log says whether it did (a change by the old session with its very ops:
   * another tab may share the session); only if it did not
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
      // No answer will come for the old session's attempt: its ops tell it in the log.
      this.st = cs.answerLost(this.st);
      this.waitingForAnswer = false;
      try {
        await this.integrateLog();
      } catch (e) {
        if (e instanceof ApiError && !e.retryable) { this.reload(e); return; }
        await sleep(this.retryDelay);
        return; // try again: the next attempt meets the 401 and comes back here
      }
      if (this.sending !== f) return;
    }
    f.session = this.sessionId;
    f.key = randomKey();
    f.uncertain = false;
    this.st = { ...this.st, inflight: { ...this.st.inflight, lost: false } }; // its answer will come
  }

  /**
   * Integrates every change after this.revision from the log (GET …/edits?since=), up to
   * one that may be ours and awaits its answer.
   */
  async integrateLog() {
    for (;;) { // the log comes in pages of about 1 MiB: read on while a page moved us on
      const from = this.revision;
      const changes = await this.api.get(`/documents/${enc(this.id)}/edits?since=${this.revision}`);
      const list = Array.isArray(changes) ? changes : (changes.changes || []);
      for (const c of list) {
        if (c.revision !== this.revision + 1) continue;
        if (this.onChange(c) === 'wait') return;
      }
      if (!list.length || this.revision === from || this.stopped) return;
    }
  }

  /**
   * Our change is answered but the stream is down: without its acknowledgement the next
   * change cannot go, and the server's typing pause would split one run of typing into two
   * undo groups. The log brings the same changes in the same order.
   */
  async catchUpWhileOffline() {
    // One reading at a time; an answer meanwhile asks for another (the first may predate it).
    if (this.offlineCatchUp) { this.offlineCatchUpAgain = true; return; }
    this.offlineCatchUp = true;
    try {
      do {
        this.offlineCatchUpAgain = false;
        try { await this.integrateLog(); } catch { break; /* the stream brings them once back */ }
      } while (this.offlineCatchUpAgain && !this.stopped && this.stream.status !== 'open');
    } finally {
      this.offlineCatchUp = false;
    }
    // The server answers again: the stream need not wait out its backoff.
    this.stream.reconnectNow();
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
      while (this.queue.length && !this.holds && !this.stopped && !this.waitingForAnswer) {
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
        // A change that may be ours stays first in line until its answer is in.
        if (this.integrate(ev) === 'wait') break;
        this.queue.shift();
      }
    } finally {
      this.pumping = false;
    }
  }

  integrate(ev) {
    switch (ev.type) {
      case 'change': return this.onChange(ev.data);
      case 'presence': this.onPresence(ev.data); return 'done';
      default: this.emit(ev.type, ev.data); return 'done';
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
    const stuck = this.queue.length && this.queue[0].type === 'change' && this.revision === before &&
      !this.waitingForAnswer;
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
    const f = this.sending;
    if (!f || f.refused || this.inflight.ackRevision !== null || f.landed !== undefined) return;
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
      const landed = !f.tag.refused && (f.ackRevision !== null || f.tag.landed === true);
      if (landed) base = ot.apply(base, f.op);
      else op = f.op;
    }
    for (const b of this.buffer) op = op ? ot.compose(op, b.op) : b.op;
    this.st = { ...this.st, inflight: null, buffer: [] };
    if (!op || ot.isNoop(op)) return null;
    return { base, op };
  }

  /** One change from the stream or the log; returns the protocol's verdict (see cs.receive). */
  onChange(c) {
    const f = this.sending;
    const r = cs.receive(this.st, c, f ? f.session : this.sessionId);
    if (r.kind === 'stale') return r.kind;
    if (r.kind === 'wait') { this.waitingForAnswer = true; return r.kind; }
    let text;
    try {
      text = ot.apply(this.serverText, c.ops);
    } catch (e) {
      this.reload(e); // our idea of the text is wrong: start again from the server's
      return 'stale';
    }
    this.serverText = text;
    this.st = r.state;
    this.recent.push({ revision: c.revision, op: c.ops });
    if (this.recent.length > RECENT_LIMIT) this.recent.shift();
    this.mapPresence(c.ops);
    if (r.kind === 'own') {
      this.acknowledged();
      this.emit('change', { change: c, own: true });
      return r.kind;
    }
    this.editor.applyRemote(r.op, c);
    this.emit('change', { change: c, own: false, op: r.op });
    this.acknowledgeNoop();
    this.reachTargets();
    return r.kind;
  }

  /** The in-flight edit became nothing on the server and everything before it is here. */
  acknowledgeNoop() {
    const r = cs.settleNoop(this.st);
    // Transformed here through the same changes, it must have become nothing too; if not,
    // the texts differ and only a reload (carrying it over) can put them right.
    if (r.diverged) { this.reload(new Error('the text differs from the server\'s')); return; }
    if (!r.done) return;
    this.st = r.state;
    this.acknowledged();
  }

  acknowledged() {
    this.retryDelay = 500;
    this.reachTargets();
    this.flush();
    this.emitState();
    this.settle();
  }

  // ---- positions ----

  /** Maps a server position at this.revision to the local text. */
  toLocal(pos, stickBefore = false) { return cs.toLocal(this.st, pos, stickBefore); }

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
    const before = new Map(this.presence.map((p) => [p.id, p.selection]));
    this.presence = (list || []).filter((p) => p.id !== this.sessionId);
    // Mapped here through every change since, a selection differs only if its person moved it.
    const moved = this.presence.filter((p) => {
      const was = before.get(p.id);
      return p.selection && (!was || was.anchor !== p.selection.anchor || was.head !== p.selection.head);
    }).map((p) => p.id);
    this.emit('presence', { people: list || [], moved });
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
