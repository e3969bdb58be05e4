// TextOperation in the compact form of Tandem's REST API: an array whose elements are a
// positive integer (retain n), a string (insert it) or a negative integer (delete n).
// Lengths are UTF-16 code units, i.e. JavaScript string indices, like the server's.
//
// Operations built here are normalized the way the server normalizes them (no empty
// components, neighbours of one kind merged, an insert next to a delete comes first), so
// equal changes compare equal and tests can compare arrays.

export const isRetain = (c) => typeof c === 'number' && c > 0;
export const isInsert = (c) => typeof c === 'string';
export const isDelete = (c) => typeof c === 'number' && c < 0;

/** Accumulates components into a normalized operation. */
export class Builder {
  constructor() { this.ops = []; }

  retain(n) {
    if (n <= 0) return this;
    const ops = this.ops;
    if (isRetain(ops[ops.length - 1])) ops[ops.length - 1] += n;
    else ops.push(n);
    return this;
  }

  insert(text) {
    if (text === '') return this;
    const ops = this.ops;
    const last = ops.length - 1;
    if (isInsert(ops[last])) {
      ops[last] += text;
    } else if (isDelete(ops[last])) {
      // Keep "insert before delete" so an operation has one way of being written.
      if (isInsert(ops[last - 1])) ops[last - 1] += text;
      else { ops.push(ops[last]); ops[last] = text; }
    } else {
      ops.push(text);
    }
    return this;
  }

  delete(n) {
    if (n < 0) n = -n;
    if (n === 0) return this;
    const ops = this.ops;
    if (isDelete(ops[ops.length - 1])) ops[ops.length - 1] -= n;
    else ops.push(-n);
    return this;
  }

  build() { return this.ops; }
}

/** Throws unless `op` is a well-formed compact operation. */
export function validate(op) {
  if (!Array.isArray(op)) throw new TypeError('operation must be an array');
  for (const c of op) {
    const ok = (typeof c === 'string' && c.length > 0) ||
      (typeof c === 'number' && Number.isInteger(c) && c !== 0);
    if (!ok) throw new TypeError(`invalid component ${JSON.stringify(c)}`);
  }
  return op;
}

/** Rewrites any valid operation into normal form. */
export function normalize(op) {
  const b = new Builder();
  for (const c of validate(op)) {
    if (isRetain(c)) b.retain(c);
    else if (isInsert(c)) b.insert(c);
    else b.delete(c);
  }
  return b.build();
}

/** Length of the document the operation applies to. */
export function baseLength(op) {
  let n = 0;
  for (const c of op) if (typeof c === 'number') n += Math.abs(c);
  return n;
}

/** Length of the document after applying the operation. */
export function targetLength(op) {
  let n = 0;
  for (const c of op) {
    if (isRetain(c)) n += c;
    else if (isInsert(c)) n += c.length;
  }
  return n;
}

export function isNoop(op) {
  return op.every(isRetain);
}

export function identity(length) {
  return length > 0 ? [length] : [];
}

/** Applies `op` to `text`. Throws if the lengths disagree. */
export function apply(text, op) {
  if (baseLength(op) !== text.length) {
    throw new RangeError(`operation base length ${baseLength(op)} != text length ${text.length}`);
  }
  const parts = [];
  let index = 0;
  for (const c of op) {
    if (isRetain(c)) { parts.push(text.slice(index, index + c)); index += c; }
    else if (isInsert(c)) parts.push(c);
    else index -= c;
  }
  return parts.join('');
}

/** The operation that undoes `op` on `text` (the text `op` applies to). */
export function invert(text, op) {
  const b = new Builder();
  let index = 0;
  for (const c of op) {
    if (isRetain(c)) { b.retain(c); index += c; }
    else if (isInsert(c)) b.delete(c.length);
    else { b.insert(text.slice(index, index - c)); index -= c; }
  }
  return b.build();
}

// Walks an operation component by component, splitting retains and deletes on demand.
class Cursor {
  constructor(op) { this.op = op; this.i = 0; this.cur = op[0]; }
  get done() { return this.cur === undefined; }
  advance() { this.i += 1; this.cur = this.op[this.i]; }
  // Takes up to n units from the current retain or delete; returns the taken component.
  take(n) {
    const c = this.cur;
    const len = Math.abs(c);
    if (n >= len) { this.advance(); return c; }
    this.cur = c > 0 ? c - n : c + n;
    return c > 0 ? n : -n;
  }
}

/**
 * compose(a, b): one operation with the effect of applying `a` then `b`.
 * Requires targetLength(a) === baseLength(b).
 */
export function compose(a, b) {
  if (targetLength(a) !== baseLength(b)) {
    throw new RangeError(`compose: target length ${targetLength(a)} != base length ${baseLength(b)}`);
  }
  const out = new Builder();
  const ca = new Cursor(a);
  const cb = new Cursor(b);
  // Inserted text of `a` that `b` is walking through is consumed in slices.
  let insertOffset = 0;
  for (;;) {
    if (ca.done && cb.done) return out.build();
    if (isDelete(ca.cur)) { out.delete(ca.cur); ca.advance(); continue; }
    if (isInsert(cb.cur)) { out.insert(cb.cur); cb.advance(); continue; }
    if (ca.done || cb.done) throw new RangeError('compose: operations do not line up');
    if (isInsert(ca.cur)) {
      const rest = ca.cur.length - insertOffset;
      const n = Math.min(rest, Math.abs(cb.cur));
      if (isRetain(cb.cur)) out.insert(ca.cur.slice(insertOffset, insertOffset + n));
      // An insert deleted by b vanishes.
      insertOffset += n;
      if (insertOffset === ca.cur.length) { ca.advance(); insertOffset = 0; }
      cb.take(n);
      continue;
    }
    // a retains here.
    const n = Math.min(ca.cur, Math.abs(cb.cur));
    const taken = cb.take(n);
    ca.take(n);
    if (taken > 0) out.retain(n); else out.delete(n);
  }
}

/**
 * transform(a, b) for concurrent `a` and `b` on one base: returns [a', b'] with
 * apply(apply(s, a), b') === apply(apply(s, b), a').
 * Ties (both insert at one position) put a's text first — the server's rule for the
 * incoming change against what it already applied, so a client passes its own pending
 * operation as `a`.
 */
export function transform(a, b) {
  if (baseLength(a) !== baseLength(b)) {
    throw new RangeError(`transform: base lengths ${baseLength(a)} != ${baseLength(b)}`);
  }
  const ap = new Builder();
  const bp = new Builder();
  const ca = new Cursor(a);
  const cb = new Cursor(b);
  for (;;) {
    if (ca.done && cb.done) return [ap.build(), bp.build()];
    if (isInsert(ca.cur)) { ap.insert(ca.cur); bp.retain(ca.cur.length); ca.advance(); continue; }
    if (isInsert(cb.cur)) { ap.retain(cb.cur.length); bp.insert(cb.cur); cb.advance(); continue; }
    if (ca.done || cb.done) throw new RangeError('transform: operations do not line up');
    const n = Math.min(Math.abs(ca.cur), Math.abs(cb.cur));
    const x = ca.take(n);
    const y = cb.take(n);
    if (x > 0 && y > 0) { ap.retain(n); bp.retain(n); }
    else if (x < 0 && y > 0) ap.delete(n);
    else if (x > 0 && y < 0) bp.delete(n);
    // Both delete the same text: nothing left to do for either.
  }
}

/**
 * Maps a position in the base document to the result of `op`, like the server's
 * transformPosition: text inserted exactly at the position pushes it past that text
 * (a caret moves when one types) unless `stickBefore`; a position inside deleted text
 * moves to the end of the replacement.
 */
export function transformPosition(position, op, stickBefore = false) {
  position = Math.max(0, Math.min(position, baseLength(op)));
  let index = 0; // in the base document
  let delta = 0;
  let i = 0;
  while (i < op.length) {
    const c = op[i];
    if (isRetain(c)) {
      if (position < index + c) return position + delta;
      index += c;
      i += 1;
      continue;
    }
    // A splice at `index`: an insert and/or a delete (normalized: insert first).
    let inserted = 0;
    let deleted = 0;
    while (i < op.length && !isRetain(op[i])) {
      if (isInsert(op[i])) inserted += op[i].length; else deleted -= op[i];
      i += 1;
    }
    if (position === index && stickBefore) return position + delta;
    if (position <= index + deleted) return index + delta + inserted;
    delta += inserted - deleted;
    index += deleted;
  }
  return position + delta;
}

/** Maps a selection {anchor, head} through `op`. A caret sticks to the typist's side. */
export function transformSelection(sel, op) {
  if (!sel) return sel;
  return { anchor: transformPosition(sel.anchor, op), head: transformPosition(sel.head, op) };
}

/**
 * The smallest operation turning `before` into `after`: common prefix and suffix kept,
 * the middle replaced. `cursor` (the caret in `after`) resolves ambiguous cases such as
 * typing "a" into "aa": the change is placed to end at the caret, like the typist did.
 */
const CHUNK = 4096;

export function diff(before, after, cursor = after.length) {
  if (before === after) return identity(before.length);
  const minLen = Math.min(before.length, after.length);
  // Whole chunks are compared natively first: a keystroke in a long text costs a few
  // hundred comparisons of 4 KB, not a million of one character.
  let prefix = 0;
  while (prefix + CHUNK <= minLen && before.slice(prefix, prefix + CHUNK) === after.slice(prefix, prefix + CHUNK)) prefix += CHUNK;
  while (prefix < minLen && before.charCodeAt(prefix) === after.charCodeAt(prefix)) prefix += 1;
  let suffix = 0;
  while (suffix + CHUNK <= minLen - prefix &&
    before.slice(before.length - suffix - CHUNK, before.length - suffix) === after.slice(after.length - suffix - CHUNK, after.length - suffix)) suffix += CHUNK;
  while (suffix < minLen - prefix &&
    before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)) suffix += 1;
  // Typing "a" into "aa" matches at the end first; slide the change left until it ends
  // at the caret, which is where the typist put it.
  let slide = after.length - suffix - cursor;
  while (slide > 0 && prefix > 0 &&
    before.charCodeAt(before.length - suffix - 1) === after.charCodeAt(after.length - suffix - 1)) {
    prefix -= 1; suffix += 1; slide -= 1;
  }
  // Never split a surrogate pair: the server rejects such edits.
  while (prefix > 0 && isHighSurrogate(before.charCodeAt(prefix - 1))) { prefix -= 1; }
  while (suffix > 0 && isLowSurrogate(before.charCodeAt(before.length - suffix))) { suffix -= 1; }
  const b = new Builder();
  b.retain(prefix);
  b.insert(after.slice(prefix, after.length - suffix));
  b.delete(before.length - prefix - suffix);
  b.retain(suffix);
  return b.build();
}

function isHighSurrogate(c) { return c >= 0xd800 && c <= 0xdbff; }
function isLowSurrogate(c) { return c >= 0xdc00 && c <= 0xdfff; }

/** Where a change lands in the result: the first and last touched positions, or null. */
export function changedRange(op) {
  let index = 0;
  let from = null;
  let to = null;
  for (const c of op) {
    if (isRetain(c)) { index += c; continue; }
    if (from === null) from = index;
    if (isInsert(c)) index += c.length;
    to = index;
  }
  return from === null ? null : { from, to };
}
