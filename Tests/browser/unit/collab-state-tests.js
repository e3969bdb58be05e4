// Unit tests for Public/js/collab-state.js, the OT client's protocol as pure functions: the
// moves one by one, and random runs of several clients (two of them one session, as a
// duplicated tab is) against a model server, which must all converge.
import * as ot from '../../../Public/js/ot.js';
import * as cs from '../../../Public/js/collab-state.js';
import { eq, suite } from './harness.js';

const { tests, test, run } = suite();
export { tests, run };

test('push composes typing of one kind; a named or new-group change stands alone', () => {
  let s = cs.init(4);
  s = cs.push(s, [4, 'a']);
  s = cs.push(s, [5, 'b']);
  eq(s.buffer.length, 1);
  eq(s.buffer[0].op, [4, 'ab']);
  s = cs.push(s, [6, 'P'], { actionName: 'Paste', newGroup: true });
  s = cs.push(s, [7, 'c']);
  eq(s.buffer.map((b) => b.op), [[4, 'ab'], [6, 'P'], [7, 'c']]);
  eq(cs.push(s, [8]), s, 'a no-op changes nothing');
  eq(cs.pendingCount(s), 3);
});

test('sendable puts the oldest change in flight, on the current revision, one at a time', () => {
  let s = cs.push(cs.init(2), [3, 'x']);
  const next = cs.sendable(s, 'tag');
  eq([next.base, next.op], [2, [3, 'x']]);
  s = next.state;
  eq(cs.status(s), 'awaitingAck');
  eq(s.inflight.tag, 'tag');
  s = cs.push(s, [4, 'y']);
  eq(cs.status(s), 'awaitingWithBuffer');
  eq(cs.sendable(s), null, 'nothing goes while one is in flight');
  eq(cs.sendable(cs.init(0)), null, 'nothing to send');
});

test('a change of our session before the answer waits; after it, its revision decides', () => {
  let s = cs.sendable(cs.push(cs.init(5), [2, 'x', 3])).state;
  const other = { revision: 6, ops: ['T', 5], session: 'me', kind: 'edit' };
  eq(cs.receive(s, other, 'me').kind, 'wait', 'same session, no answer yet');
  eq(cs.receive(s, { ...other, session: 'you' }, 'me').kind, 'remote', 'another session');
  s = cs.answered(s, 7, false);
  const r = cs.receive(s, other, 'me');
  eq(r.kind, 'remote', 'the other tab of the session');
  eq(r.op, ['T', 6]);
  eq(r.state.inflight.op, [3, 'x', 3], 'ours moves past it');
  const own = cs.receive(r.state, { revision: 7, ops: [3, 'x', 3], session: 'me', kind: 'edit' }, 'me');
  eq(own.kind, 'own');
  eq([own.state.revision, own.state.inflight], [7, null]);
  eq(cs.receive(own.state, other, 'me').kind, 'stale');
});

test('an undo of our session is never taken for our edit', () => {
  const s = cs.sendable(cs.push(cs.init(1), [1, 'x'])).state;
  eq(cs.receive(s, { revision: 2, ops: [-1], session: 'me', kind: 'undo' }, 'me').kind, 'remote');
});

test('a change that became nothing is done once the stream reaches its answer', () => {
  let s = cs.sendable(cs.push(cs.init(3), [1, -1, 1])).state;
  s = cs.answered(s, 4, true);
  eq(cs.settleNoop(s).done, false, 'revision 4 is not here yet');
  // Someone deleted the same character first.
  const r = cs.receive(s, { revision: 4, ops: [1, -1, 1], session: 'you', kind: 'edit' }, 'me');
  eq([r.kind, r.op], ['remote', [2]]);
  const done = cs.settleNoop(r.state);
  eq([done.done, done.state.inflight], [true, null]);
  // Had it not become nothing here, the texts would differ.
  const bad = cs.answered(cs.sendable(cs.push(cs.init(0), ['z'])).state, 0, true);
  eq(cs.settleNoop(bad).diverged, true);
});

test('with its answer lost for good, our change is recognised by its ops', () => {
  let s = cs.sendable(cs.push(cs.init(0), ['hi'])).state;
  s = cs.answerLost(s);
  eq(cs.receive(s, { revision: 1, ops: ['yo'], session: 'me', kind: 'edit' }, 'me').kind, 'remote');
  eq(cs.receive(s, { revision: 1, ops: ['hi'], session: 'me', kind: 'edit' }, 'me').kind, 'own');
});

test('toLocal maps a server position through what is pending here', () => {
  let s = cs.sendable(cs.push(cs.init(0), ['ab', 3])).state;
  s = cs.push(s, [5, 'c']);
  eq(cs.toLocal(s, 0), 2);
  eq(cs.toLocal(s, 3), 6);
  eq(cs.toLocal(s, 0, true), 0);
});

// ---- random runs against a model server ----

function rng(seed) {
  let x = seed >>> 0;
  return () => {
    x = (x + 0x6d2b79f5) >>> 0;
    let t = x;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An edit of `text`: one insert or delete at a random place. */
function randomEdit(r, text) {
  const at = Math.floor(r() * (text.length + 1));
  if (text.length && r() < 0.35) {
    const n = 1 + Math.floor(r() * Math.min(3, text.length - at));
    if (at + n <= text.length) return [at, -n, text.length - at - n].filter((c) => c !== 0);
  }
  return [at, 'abc'[Math.floor(r() * 3)], text.length - at].filter((c) => c !== 0);
}

/** The server: applies an edit on `base`, transformed through every change since (as ours does). */
function serverApply(server, base, op, session) {
  for (const c of server.log.slice(base)) [op] = ot.transform(op, c.ops);
  server.text = ot.apply(server.text, op);
  const change = { revision: server.log.length + 1, ops: op, session, kind: 'edit' };
  server.log.push(change);
  return change;
}

function runRandom(seed, sessions) {
  const r = rng(seed);
  const server = { text: 'shared text', log: [] };
  const clients = sessions.map((session) => ({
    session, st: cs.init(0), text: server.text, sent: [], answers: [], delivered: 0, held: null,
  }));
  const step = (c, typing = true) => {
    const pick = r();
    if (pick < 0.3 && typing) {
      const op = randomEdit(r, c.text);
      c.text = ot.apply(c.text, op);
      c.st = cs.push(c.st, op);
    } else if (pick < 0.45) {
      const next = cs.sendable(c.st);
      if (next) { c.st = next.state; c.sent.push(next); }
    } else if (pick < 0.6 && c.sent.length) {
      // The request reaches the server; its answer travels back separately.
      const req = c.sent.shift();
      const change = serverApply(server, req.base, req.op, c.session);
      c.answers.push(change.revision);
    } else if (pick < 0.75 && c.answers.length) {
      c.st = cs.answered(c.st, c.answers.shift(), false);
    } else if (c.delivered < server.log.length) {
      const change = server.log[c.delivered];
      const res = cs.receive(c.st, change, c.session);
      if (res.kind === 'wait') return; // held until the answer comes
      c.delivered += 1;
      c.st = res.state;
      if (res.kind === 'remote') c.text = ot.apply(c.text, res.op);
    }
  };
  for (let i = 0; i < 400; i++) step(clients[Math.floor(r() * clients.length)]);
  // Quiesce: everything is sent, answered and delivered.
  for (let guard = 0; guard < 10000; guard++) {
    const busy = clients.filter((c) => c.st.inflight || c.st.buffer.length || c.sent.length || c.answers.length ||
      c.delivered < server.log.length);
    if (!busy.length) break;
    step(busy[Math.floor(r() * busy.length)], false);
  }
  for (const c of clients) {
    eq(c.text, server.text, `seed ${seed}, ${c.session}:`);
    eq(c.st.revision, server.log.length, `seed ${seed}, ${c.session} revision:`);
  }
}

test('random runs: two people and a duplicated tab converge with the server', () => {
  for (let seed = 1; seed <= 60; seed++) runRandom(seed, ['ada', 'ada', 'grace']);
});

test('random runs: two tabs of one session alone converge', () => {
  for (let seed = 100; seed <= 160; seed++) runRandom(seed, ['ada', 'ada']);
});
