// The lines of a long text as the viewport editor shows them: only those in view (and a
// margin) are elements; two spacers stand for the others, at heights measured when a line
// was last shown, else estimated from its length. A change rewrites the lines it falls in
// when they are shown and only a spacer's height otherwise, so its cost does not grow
// with the text.
import { LineIndex } from './line-index.js';
import { toDisplay } from './editor.js';

const MARGIN = 1200; // px of lines kept above and below the view: arrows and PageUp/Down stay in it
const SLACK = MARGIN / 2; // how far the view may move before lines are added or dropped
const MANY = 200; // new lines from one change beyond which the shown lines are built afresh

export class ViewportLines {
  constructor(root) {
    this.scroller = root.querySelector('.vp-scroller');
    this.content = root.querySelector('.vp-content');
    this.lines = root.querySelector('.vp-lines');
    this.above = root.querySelector('.vp-above');
    this.below = root.querySelector('.vp-below');
    this.reset('');
  }

  /** Shows `text` from its start, or (keepScroll: the same document, reloaded) where the view was. */
  reset(text, keepScroll = false) {
    const scroll = keepScroll ? this.scroller.scrollTop : 0;
    this.text = text;
    this.index = new LineIndex(text);
    this.heights = new Array(this.index.count).fill(0); // 0: never measured
    this.first = 0;
    this.els = [];
    this.lines.textContent = '';
    if (!keepScroll) this.scroller.scrollTop = 0;
    this.metrics = null;
    this.render(true);
    // The old lines gone, the scroll may have been cut short: put back once the spacers are.
    if (this.scroller.scrollTop !== scroll) { this.scroller.scrollTop = scroll; this.render(true); }
  }

  get last() { return this.first + this.els.length - 1; }

  lineText(i) { return toDisplay(this.text.slice(this.index.start(i), this.index.end(i))); }

  makeLine(i) {
    const el = document.createElement('div');
    el.className = 'vp-line';
    const t = this.lineText(i);
    el.append(t ? document.createTextNode(t) : document.createElement('br'));
    return el;
  }

  /** Line height and characters per row, for estimating the height of lines never shown. */
  measure() {
    if (this.metrics) return this.metrics; // dropped on a resize (invalidate)
    const probe = document.createElement('span');
    probe.textContent = 'the quick brown fox jumps over a lazy dog while seven people write '.repeat(2);
    probe.style.cssText = 'position:absolute;visibility:hidden;white-space:pre';
    this.content.append(probe);
    const perChar = probe.getBoundingClientRect().width / probe.textContent.length || 8;
    probe.remove();
    const lh = parseFloat(getComputedStyle(this.content).lineHeight) || 28;
    const width = this.lines.clientWidth;
    this.metrics = { width, lh, perRow: Math.max(10, Math.floor(width / perChar)) };
    return this.metrics;
  }

  /** The width changed: estimates are made again, and heights measured again as lines show. */
  invalidate() {
    this.metrics = null;
    this.heights.fill(0);
  }

  heightOf(i) {
    if (this.heights[i]) return this.heights[i];
    const m = this.measure();
    const len = this.index.end(i) - this.index.start(i);
    return Math.max(1, Math.ceil(len / m.perRow)) * m.lh;
  }

  sum(from, to) {
    let h = 0;
    for (let i = from; i < to; i += 1) h += this.heightOf(i);
    return h;
  }

  setSpacers() {
    const a = `${this.sum(0, this.first)}px`;
    const b = `${this.sum(this.last + 1, this.index.count)}px`;
    if (this.above.style.height !== a) this.above.style.height = a;
    if (this.below.style.height !== b) this.below.style.height = b;
  }

  /** Records the heights of shown lines [from, to) (a layout, which the frame needs anyway). */
  record(from, to) {
    for (let i = from; i < to; i += 1) {
      const h = this.els[i - this.first].getBoundingClientRect().height;
      if (h) this.heights[i] = h;
    }
  }

  /** The y of `line`'s top in the content (measured or estimated above it). */
  lineTop(line) {
    if (line >= this.first && line <= this.last) return this.els[line - this.first].offsetTop;
    return this.above.offsetTop + this.sum(0, line);
  }

  /** The line at height y of the content, by the heights known or estimated. */
  lineAtY(y) {
    let top = this.above.offsetTop;
    const n = this.index.count;
    for (let i = 0; i < n; i += 1) {
      top += this.heightOf(i);
      if (top > y) return i;
    }
    return n - 1;
  }

  /**
   * Shows the lines around the view. Lines still wanted stay as they are (the caret and
   * native editing keep their nodes); `force` rebuilds them all.
   */
  render(force = false) {
    const top = this.scroller.scrollTop;
    const view = this.scroller.clientHeight || 900;
    const needA = this.lineAtY(top - SLACK);
    const needB = this.lineAtY(top + view + SLACK);
    if (!force && this.els.length && needA >= this.first && needB <= this.last) return false;
    const a = this.lineAtY(top - MARGIN);
    const b = this.lineAtY(top + view + MARGIN);
    if (force || b < this.first || a > this.last || !this.els.length) {
      if (this.els.length) this.record(this.first, this.last + 1);
      this.lines.textContent = '';
      this.first = a;
      this.els = [];
      const frag = document.createDocumentFragment();
      for (let i = a; i <= b; i += 1) { const el = this.makeLine(i); this.els.push(el); frag.append(el); }
      this.lines.append(frag);
      this.setSpacers();
      this.record(a, b + 1);
      this.setSpacers();
      return true;
    }
    // Drop lines that left, remembering their heights.
    if (a > this.first) {
      this.record(this.first, a);
      for (const el of this.els.splice(0, a - this.first)) el.remove();
      this.first = a;
    }
    if (b < this.last) {
      this.record(b + 1, this.last + 1);
      for (const el of this.els.splice(b - this.first + 1)) el.remove();
    }
    // Add those that came in; lines added above move the text by what their estimate
    // missed, which the scroll takes back so the view stays on the same words.
    let missed = 0;
    if (a < this.first) {
      const estimate = this.sum(a, this.first);
      const added = [];
      for (let i = a; i < this.first; i += 1) added.push(this.makeLine(i));
      this.lines.prepend(...added);
      this.els.unshift(...added);
      const oldFirst = this.first;
      this.first = a;
      this.record(a, oldFirst);
      missed = this.sum(a, oldFirst) - estimate;
    }
    if (b > this.last) {
      const from = this.last + 1;
      const added = [];
      for (let i = from; i <= b; i += 1) added.push(this.makeLine(i));
      this.lines.append(...added);
      this.els.push(...added);
      this.record(from, b + 1);
    }
    this.setSpacers();
    if (missed) this.scroller.scrollTop += missed;
    return true;
  }

  /**
   * [from, oldEnd) of the text became [from, newEnd) of `text`. Shown lines it falls in are
   * rewritten (one text node's data when a line stays a line); lines not shown change
   * only a spacer. Returns true when shown lines changed.
   */
  change(text, from, oldEnd, newEnd) {
    const oldFirstShown = this.first;
    const oldLastShown = this.last;
    this.text = text;
    const r = this.index.splice(text, from, oldEnd, newEnd);
    const fresh = new Array(r.added).fill(0);
    this.heights = this.heights.slice(0, r.first).concat(fresh, this.heights.slice(r.first + r.removed));
    const lastChanged = r.first + r.removed - 1;
    const shift = r.added - r.removed;
    if (!this.els.length) { this.render(true); return true; }
    if (lastChanged < oldFirstShown) {
      // Above the view: the text in view keeps its place on screen.
      const before = parseFloat(this.above.style.height) || 0;
      this.first += shift;
      this.setSpacers();
      const moved = (parseFloat(this.above.style.height) || 0) - before;
      if (moved) this.scroller.scrollTop += moved;
      return false;
    }
    if (r.first > oldLastShown) { this.setSpacers(); return false; }
    // Past the shown lines, or bringing many (a long paste): the lines around the view afresh.
    if (r.first < oldFirstShown || lastChanged > oldLastShown || r.added > MANY) { this.render(true); return true; }
    const k = r.first - this.first;
    if (r.removed === 1 && r.added === 1) {
      const el = this.els[k];
      const t = this.lineText(r.first);
      const node = el.firstChild;
      if (t && node && node.nodeType === Node.TEXT_NODE && el.childNodes.length === 1) {
        if (node.data !== t) node.data = t;
        return true;
      }
    }
    const added = [];
    for (let i = r.first; i < r.first + r.added; i += 1) added.push(this.makeLine(i));
    const old = this.els.splice(k, r.removed, ...added);
    old[0].before(...added);
    for (const el of old) el.remove();
    this.setSpacers();
    return true;
  }

  // ---- positions and the page ----

  /** The text position of a point in the page (a selection's end), or null outside the lines. */
  posOf(node, offset) {
    if (node === this.lines) {
      if (offset <= 0) return this.index.start(this.first);
      const k = Math.min(offset, this.els.length) - 1;
      return offset >= this.els.length ? this.index.end(this.last) : this.index.start(this.first + k + 1);
    }
    let el = node;
    while (el && el.parentNode !== this.lines) el = el.parentNode;
    if (!el) return null;
    const k = this.els.indexOf(el);
    if (k < 0) return null;
    const line = this.first + k;
    const start = this.index.start(line);
    const len = this.index.end(line) - start;
    let off = 0;
    if (node === el) {
      off = offset === 0 ? 0 : len;
    } else if (node.nodeType === Node.TEXT_NODE) {
      // Native editing (a composition) may leave several text nodes in a line.
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let t = walker.nextNode(); t && t !== node; t = walker.nextNode()) off += t.length;
      off += offset;
    } else {
      off = offset === 0 ? 0 : len;
    }
    return start + Math.min(off, len);
  }

  /** The page point of text position `pos`; one outside the shown lines is put at their edge. */
  pointOf(pos) {
    if (!this.els.length) return [this.lines, 0];
    const line = this.index.lineAt(Math.max(0, Math.min(pos, this.text.length)));
    if (line < this.first) return this.textPoint(this.first, 0);
    if (line > this.last) return this.textPoint(this.last, Infinity);
    return this.textPoint(line, pos - this.index.start(line));
  }

  textPoint(line, off) {
    const el = this.els[line - this.first];
    const node = el.firstChild;
    if (node && node.nodeType === Node.TEXT_NODE) return [node, Math.min(off, node.length)];
    return [el, 0];
  }

  /** Whether position `pos` is in a shown line. */
  shows(pos) {
    if (!this.els.length) return false;
    const line = this.index.lineAt(pos);
    return line >= this.first && line <= this.last;
  }

  /** The text of the shown lines as the page has it now (native editing included). */
  shownText() {
    const parts = [];
    for (const n of this.lines.childNodes) parts.push(n.textContent);
    return parts.join('\n');
  }

  /** The positions of the shown lines: [from, to). */
  shownSpan() {
    if (!this.els.length) return { from: 0, to: 0 };
    return { from: this.index.start(this.first), to: this.index.end(this.last) };
  }
}
