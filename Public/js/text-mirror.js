// A hidden copy of the textarea's text laid out exactly as the textarea lays it out, to
// find where a position is on screen (a textarea cannot say). The text is cut at line ends
// into blocks of a few thousand characters, one element each: a change rewrites only the
// block it falls in, so the layout it costs is that block's, whatever the document's
// length, and a position is measured in its block alone (a Range on one text node).
import { lastAtOrBefore } from './sorted.js';

const BLOCK = 2048; // characters a block aims at (a block ends at a line end)
const ZWSP = '\u200b'; // gives a caret after a final line break a line to stand on

export class TextMirror {
  /** `root`: the hidden element styled as the textarea's content (font, padding, wrapping). */
  constructor(root) {
    this.root = root;
    this.starts = []; // each block's first position in the text
    this.nodes = []; // each block's text node
    this.els = []; // each block's element
    this.text = '';
    this.built = false;
  }

  /** Drops the copy; the next measure builds it again from `text`. */
  reset(text) {
    this.text = text;
    this.built = false;
    this.root.textContent = '';
    this.starts = []; this.nodes = []; this.els = [];
  }

  ensure() {
    if (this.built) return;
    this.built = true;
    const blocks = cut(this.text, 0);
    const frag = document.createDocumentFragment();
    for (const b of blocks) frag.append(this.makeBlock(b));
    frag.append(document.createTextNode(ZWSP));
    this.root.textContent = '';
    this.root.append(frag);
    this.starts = blocks.map((b) => b.start);
    this.nodes = this.els.map((e) => e.firstChild);
  }

  makeBlock(b) {
    const el = document.createElement('div');
    el.append(document.createTextNode(b.text));
    this.els.push(el);
    return el;
  }

  /**
   * The text became `after` by replacing [from, oldTo) of the old text with after's
   * [from, newTo). Rewrites the block holding it (or the few it spans), nothing else.
   */
  splice(after, from, oldTo, newTo) {
    this.text = after;
    if (!this.built) return;
    const delta = (newTo - from) - (oldTo - from);
    const first = this.blockAt(from);
    // A deletion up to a block's start takes the line break ending the block before: the
    // two become one (last = first + 1).
    let last = this.blockAt(oldTo);
    const oldEnd = last + 1 < this.starts.length ? this.starts[last + 1] : after.length - delta;
    const start = this.starts[first];
    const end = oldEnd + delta; // in the new text
    const segment = after.slice(start, end);
    // Every block but the last ends with a line break, so that each starts a line as in
    // the textarea.
    const last1 = last + 1 === this.starts.length;
    if (first === last && segment.length < 2 * BLOCK && (segment.endsWith('\n') || (last1 && segment))) {
      // The common case, typing: one text node's data changes in place.
      const node = this.nodes[first];
      node.replaceData(from - start, oldTo - from, after.slice(from, newTo));
    } else {
      const blocks = cut(segment, start);
      const els = [];
      const saved = this.els;
      this.els = els;
      for (const b of blocks) this.makeBlock(b);
      this.els = saved;
      const anchor = this.els[last].nextSibling;
      for (let i = first; i <= last; i += 1) this.els[i].remove();
      for (const e of els) this.root.insertBefore(e, anchor);
      this.els.splice(first, last - first + 1, ...els);
      this.nodes.splice(first, last - first + 1, ...els.map((e) => e.firstChild));
      this.starts.splice(first, last - first + 1, ...blocks.map((b) => b.start));
      last = first + blocks.length - 1;
    }
    if (delta) for (let i = last + 1; i < this.starts.length; i += 1) this.starts[i] += delta;
  }

  /** The block holding position `pos` (the last one whose start is at or before it). */
  blockAt(pos) {
    return lastAtOrBefore(this.starts, pos);
  }

  /** A Range over [from, to) of the text, inside one block each end. */
  range(from, to = from) {
    this.ensure();
    const r = document.createRange();
    const [n1, o1] = this.point(from);
    const [n2, o2] = this.point(to);
    r.setStart(n1, o1);
    r.setEnd(n2, o2);
    return r;
  }

  point(pos) {
    if (!this.nodes.length) return [this.root.lastChild, 0];
    pos = Math.max(0, Math.min(pos, this.text.length));
    const i = this.blockAt(pos);
    const node = this.nodes[i];
    const off = pos - this.starts[i];
    // After a final line break, the caret stands on the next line, the ZWSP's.
    if (off >= node.length && i === this.nodes.length - 1 && this.text.endsWith('\n')) return [this.root.lastChild, 0];
    return [node, Math.min(off, node.length)];
  }

  /** Where a caret at `pos` is: {x, y, h} in the content's coordinates (the mirror's). */
  caret(pos) {
    const origin = this.root.getBoundingClientRect();
    const range = this.range(pos);
    const rects = range.getClientRects();
    // An empty block has no line box to measure: its element's top is the line's.
    const r = rects[rects.length - 1] || range.startContainer.parentElement.getBoundingClientRect();
    return { x: r.left - origin.left, y: r.top - origin.top, h: r.height };
  }

  /** The y offset of a position inside the content. */
  offsetOf(pos) { return this.caret(pos).y; }

  /**
   * The text positions drawn between y = top and y = bottom of the content (whole blocks):
   * what others' carets and selections are drawn for.
   */
  visibleSpan(top, bottom) {
    this.ensure();
    const els = this.els;
    if (!els.length) return { from: 0, to: this.text.length };
    const find = (y) => {
      let lo = 0;
      let hi = els.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (els[mid].offsetTop <= y) lo = mid; else hi = mid - 1;
      }
      return lo;
    };
    const a = find(top);
    const b = find(bottom);
    return { from: this.starts[a], to: b + 1 < this.starts.length ? this.starts[b + 1] : this.text.length };
  }

  /** Rectangles of [from, to) in the content's coordinates. */
  rects(from, to) {
    const origin = this.root.getBoundingClientRect();
    return [...this.range(from, to).getClientRects()]
      .filter((r) => r.width > 0)
      .map((r) => ({ x: r.left - origin.left, y: r.top - origin.top, w: r.width, h: r.height }));
  }
}

/** `text` (starting at `offset` in the document) cut after line ends into blocks of about BLOCK. */
function cut(text, offset) {
  const out = [];
  let i = 0;
  while (i < text.length) {
    let j = Math.min(text.length, i + BLOCK);
    if (j < text.length) {
      const nl = text.indexOf('\n', j - 1);
      j = nl < 0 ? text.length : nl + 1;
    }
    out.push({ start: offset + i, text: text.slice(i, j) });
    i = j;
  }
  if (!out.length) out.push({ start: offset, text: '' });
  return out;
}
