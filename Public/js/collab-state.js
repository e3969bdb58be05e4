// The OT client's protocol as plain data and pure functions, after @codemirror/collab:
// `{revision, inflight, buffer}` and the moves between states (push, sendable, answered,
// receive). No network, no DOM: collab.js drives it, the unit tests run it directly.
//
// A change of ours is recognised by the revision the server answered for it, never by
// session alone: two tabs can share a session (a duplicated tab copies sessionStorage), so
// a change of our session on the stream may be the other tab's. Until the answer comes,
// such a change is held ('wait'), since only the answer can tell.
import * as ot from './ot.js';

/**
 * revision: the server revision the local text is based on.
 * inflight: {op, meta, ackRevision, noop, lost} sent and unacknowledged, or null; its op is
 *   kept transformed to apply after `revision`.
 * buffer: [{op, meta}] typed after it, each on the text after the one before.
 */
export function init(revision) {
  return { revision, inflight: null, buffer: [] };
}

export function status(s) {
  if (!s.inflight) return 'synchronized';
  return s.buffer.length ? 'awaitingWithBuffer' : 'awaitingAck';
}

export function pendingCount(s) { return (s.inflight ? 1 : 0) + s.buffer.length; }

/** A local change on top of everything; it joins the last waiting one of the same kind. */
export function push(s, op, meta = {}) {
  if (ot.isNoop(op)) return s;
  const buffer = s.buffer.slice();
  const last = buffer[buffer.length - 1];
  if (last && (last.meta.actionName || '') === (meta.actionName || '') && !meta.newGroup) {
    buffer[buffer.length - 1] = { op: ot.compose(last.op, op), meta: last.meta };
  } else {
    buffer.push({ op, meta });
  }
  return { ...s, buffer };
}

/**
 * The next change to send, or null while one is in flight or none waits: `{state, base,
 * op, meta}` where the state has it in flight. `tag` rides along (the network's record).
 */
export function sendable(s, tag = null) {
  if (s.inflight || !s.buffer.length) return null;
  const [{ op, meta }, ...buffer] = s.buffer;
  const inflight = { op, meta, tag, ackRevision: null, noop: false, lost: false };
  return { state: { ...s, inflight, buffer }, base: s.revision, op, meta };
}

/** The server answered the change in flight: it became `revision` (or nothing, `noop`). */
export function answered(s, revision, noop) {
  if (!s.inflight) return s;
  return { ...s, inflight: { ...s.inflight, ackRevision: revision, noop } };
}

/**
 * The answer will never come (the session ended after an attempt that may have landed): a
 * change of our session whose ops are exactly the in-flight ones is then taken for it.
 */
export function answerLost(s) {
  if (!s.inflight) return s;
  return { ...s, inflight: { ...s.inflight, lost: true } };
}

function isOwn(f, change, session) {
  if (!f || f.noop || change.kind !== 'edit' || !change.session || change.session !== session) return 'no';
  if (f.ackRevision !== null) return f.ackRevision === change.revision ? 'yes' : 'no';
  if (f.lost) return JSON.stringify(ot.normalize(change.ops)) === JSON.stringify(ot.normalize(f.op)) ? 'yes' : 'no';
  return 'unknown';
}

/**
 * A change from the server, in order (`revision` = state.revision + 1 unless stale).
 * `session` is the one the in-flight change was sent as. Returns `{state, kind, op}`:
 * 'stale' (integrated already), 'wait' (maybe ours, the answer is not in: hold it),
 * 'own' (the in-flight change, acknowledged), or 'remote' with `op` to apply to the
 * local text (transformed through what is pending here, which is transformed in turn).
 */
export function receive(s, change, session) {
  if (change.revision <= s.revision) return { state: s, kind: 'stale' };
  const own = isOwn(s.inflight, change, session);
  if (own === 'unknown') return { state: s, kind: 'wait' };
  if (own === 'yes') return { state: { ...s, revision: change.revision, inflight: null }, kind: 'own' };
  let op = change.ops;
  let inflight = s.inflight;
  if (inflight) {
    const [mine, theirs] = ot.transform(inflight.op, op);
    inflight = { ...inflight, op: mine };
    op = theirs;
  }
  const buffer = s.buffer.map((b) => {
    const [mine, theirs] = ot.transform(b.op, op);
    op = theirs;
    return { op: mine, meta: b.meta };
  });
  return { state: { revision: change.revision, inflight, buffer }, kind: 'remote', op };
}

/**
 * An in-flight change the server turned into nothing is done once everything before its
 * answer is here. Returns `{state, done}`; `diverged` when here it did not become nothing
 * too, which means the texts differ (only a reload can help).
 */
export function settleNoop(s) {
  const f = s.inflight;
  if (!f || !f.noop || f.ackRevision === null || s.revision < f.ackRevision) return { state: s, done: false };
  if (!ot.isNoop(f.op)) return { state: s, done: false, diverged: true };
  return { state: { ...s, inflight: null }, done: true };
}

/** A position in the server's text at `revision` mapped to the local text. */
export function toLocal(s, pos, stickBefore = false) {
  if (s.inflight) pos = ot.transformPosition(pos, s.inflight.op, stickBefore);
  for (const b of s.buffer) pos = ot.transformPosition(pos, b.op, stickBefore);
  return pos;
}
