// Unit tests for Public/js/ot.js. Run in headless Chromium by Tests/browser/test_units.py
// (on a page of the server, which serves the module) or in Node by node_runner.mjs.
import * as ot from '../../../Public/js/ot.js';
import { eq, suite } from './harness.js';

// A seeded generator keeps failures reproducible: the seed is in the failure message.
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = ['a', 'b', ' ', '\n', 'é', '😀'];

function randomString(r, max) {
  let out = '';
  const n = Math.floor(r() * max);
  for (let i = 0; i < n; i++) out += ALPHABET[Math.floor(r() * ALPHABET.length)];
  return out;
}

// A random operation over `text` that never splits a surrogate pair.
function randomOp(r, text) {
  const b = new ot.Builder();
  let i = 0;
  while (i < text.length) {
    let n = 1 + Math.floor(r() * Math.min(5, text.length - i));
    if (i + n < text.length && /[\ud800-\udbff]/.test(text[i + n - 1])) n += 1;
    const pick = r();
    if (pick < 0.2) b.insert(randomString(r, 4));
    if (pick < 0.5) b.retain(n); else b.delete(n);
    i += n;
  }
  if (r() < 0.4) b.insert(randomString(r, 4));
  return b.build();
}

function throws(fn, message) {
  try { fn(); } catch { return; }
  throw new Error(`expected a throw: ${message}`);
}

const { tests, test, run } = suite();
export { tests, run };

test('builder normalizes: merges neighbours, insert before delete, drops empties', () => {
  eq(new ot.Builder().retain(2).retain(3).insert('').delete(0).build(), [5]);
  eq(new ot.Builder().delete(2).insert('x').build(), ['x', -2]);
  eq(new ot.Builder().insert('a').delete(1).insert('b').delete(2).build(), ['ab', -3]);
  eq(ot.normalize([1, 2, -1, 'q', -1, 3]), [3, 'q', -2, 3]);
});

test('validate rejects zero, empty inserts and other types', () => {
  throws(() => ot.validate([0]), 'zero');
  throws(() => ot.validate(['']), 'empty insert');
  throws(() => ot.validate([1.5]), 'fraction');
  throws(() => ot.validate({}), 'object');
  ot.validate([3, 'x', -2]);
});

test('lengths', () => {
  const op = [3, 'hello', -2, 4];
  eq(ot.baseLength(op), 9);
  eq(ot.targetLength(op), 12);
  eq(ot.baseLength([]), 0);
});

test('apply: table', () => {
  eq(ot.apply('abcdef', [1, 'XY', -2, 3]), 'aXYdef');
  eq(ot.apply('', ['hi']), 'hi');
  eq(ot.apply('hello', [-5]), '');
  eq(ot.apply('a😀b', [1, -2, 1]), 'ab', 'surrogate pair is two units');
  throws(() => ot.apply('abc', [2]), 'length mismatch');
});

test('invert undoes', () => {
  const r = rng(7);
  for (let k = 0; k < 200; k++) {
    const s = randomString(r, 12);
    const op = randomOp(r, s);
    eq(ot.apply(ot.apply(s, op), ot.invert(s, op)), s, `seed 7 #${k}`);
  }
});

test('compose matches applying in sequence (random)', () => {
  const r = rng(42);
  for (let k = 0; k < 500; k++) {
    const s = randomString(r, 15);
    const a = randomOp(r, s);
    const s1 = ot.apply(s, a);
    const b = randomOp(r, s1);
    const ab = ot.compose(a, b);
    eq(ot.apply(s, ab), ot.apply(s1, b), `seed 42 #${k} a=${JSON.stringify(a)} b=${JSON.stringify(b)}`);
    eq(ab, ot.normalize(ab), 'compose output is normalized');
  }
});

test('compose rejects misaligned operations', () => {
  throws(() => ot.compose([3], [4]), 'length mismatch');
});

test('transform converges (TP1, random)', () => {
  const r = rng(1234);
  for (let k = 0; k < 500; k++) {
    const s = randomString(r, 15);
    const a = randomOp(r, s);
    const b = randomOp(r, s);
    const [a2, b2] = ot.transform(a, b);
    const viaA = ot.apply(ot.apply(s, a), b2);
    const viaB = ot.apply(ot.apply(s, b), a2);
    eq(viaA, viaB, `seed 1234 #${k} a=${JSON.stringify(a)} b=${JSON.stringify(b)}`);
  }
});

test('transform tie: the first operation\'s insert goes first (server rule)', () => {
  const [a2, b2] = ot.transform([1, 'A', 1], [1, 'B', 1]);
  eq(ot.apply(ot.apply('xy', [1, 'A', 1]), b2), 'xABy');
  eq(ot.apply(ot.apply('xy', [1, 'B', 1]), a2), 'xABy');
});

test('transform: both delete the same text', () => {
  const [a2, b2] = ot.transform([1, -2, 1], [-3, 1]);
  eq(a2, [1]);
  eq(b2, [-1, 1]);
});

test('transform against composed equals transforming in turn (buffer invariant)', () => {
  const r = rng(99);
  for (let k = 0; k < 300; k++) {
    const s = randomString(r, 12);
    const inflight = randomOp(r, s);
    const buffer = randomOp(r, ot.apply(s, inflight));
    const remote = randomOp(r, s);
    const [inflight2, remote1] = ot.transform(inflight, remote);
    const [buffer2, remote2] = ot.transform(buffer, remote1);
    const local = ot.apply(ot.apply(ot.apply(s, inflight), buffer), remote2);
    const server = ot.apply(ot.apply(ot.apply(s, remote), inflight2), buffer2);
    eq(local, server, `seed 99 #${k}`);
  }
});

test('transformPosition: table like the server', () => {
  eq(ot.transformPosition(3, [3, 'ab', 2]), 5, 'insert at the caret pushes it');
  eq(ot.transformPosition(3, [3, 'ab', 2], true), 3, 'stickBefore keeps it');
  eq(ot.transformPosition(2, [3, 'ab', 2]), 2, 'before the insert');
  eq(ot.transformPosition(4, [1, -2, 2]), 2, 'after a delete');
  eq(ot.transformPosition(2, [1, -2, 2]), 1, 'inside a delete: end of replacement');
  eq(ot.transformPosition(2, [1, 'xyz', -2, 2]), 4, 'inside a replacement: its end');
  eq(ot.transformPosition(5, [5, 'z']), 6, 'end of document');
  eq(ot.transformPosition(99, [5]), 5, 'clamped');
});

test('diff: round trips and minimal middle (random)', () => {
  const r = rng(5);
  for (let k = 0; k < 300; k++) {
    const a = randomString(r, 12);
    const b = randomString(r, 12);
    const op = ot.diff(a, b, Math.floor(r() * (b.length + 1)));
    eq(ot.apply(a, op), b, `seed 5 #${k}`);
    eq(op, ot.normalize(op), 'normalized');
  }
});

test('diff places an ambiguous insert at the caret', () => {
  eq(ot.diff('aa', 'aaa', 1), ['a', 2]);
  eq(ot.diff('aa', 'aaa', 3), [2, 'a']);
  eq(ot.diff('abab', 'ababab', 2), ['ab', 4]);
  eq(ot.diff('hello', 'helo', 3), [3, -1, 1]);
});

test('diff never splits a surrogate pair', () => {
  // Replacing one emoji by another shares the high surrogate.
  const op = ot.diff('a😀b', 'a😁b', 3);
  eq(op, [1, '😁', -2, 1]);
  eq(ot.apply('a😀b', op), 'a😁b');
});

test('changedRange', () => {
  eq(ot.changedRange([2, 'abc', -1, 3]), { from: 2, to: 5 });
  eq(ot.changedRange([2, -3]), { from: 2, to: 2 });
  eq(ot.changedRange([4]), null);
});
