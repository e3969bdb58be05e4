// Where each line of a text starts, kept up to date through changes: the viewport editor
// finds a position's line, and a line's text, without scanning the text.

import { lastAtOrBefore } from './sorted.js';

export class LineIndex {
  constructor(text = '') { this.reset(text); }

  reset(text) {
    this.starts = [0, ...breaksIn(text, 0, text.length)];
    this.length = text.length;
  }

  get count() { return this.starts.length; }

  start(line) { return this.starts[line]; }

  /** Where `line` ends, before its line break. */
  end(line) { return line + 1 < this.starts.length ? this.starts[line + 1] - 1 : this.length; }

  /** The line holding position `pos` (a line's start is its own). */
  lineAt(pos) {
    return lastAtOrBefore(this.starts, pos);
  }

  /**
   * [from, oldEnd) of the old text became [from, newEnd) of `text`. Returns the old lines
   * replaced ({first, removed}) and how many new lines took their place (`added`).
   */
  splice(text, from, oldEnd, newEnd) {
    const first = this.lineAt(from);
    const oldLast = this.lineAt(oldEnd);
    const breaks = breaksIn(text, from, newEnd);
    const delta = newEnd - oldEnd;
    const tail = this.starts.slice(oldLast + 1);
    for (let i = 0; i < tail.length; i += 1) tail[i] += delta;
    this.starts.length = first + 1;
    for (const b of breaks) this.starts.push(b);
    for (const t of tail) this.starts.push(t);
    this.length = text.length;
    return { first, removed: oldLast - first + 1, added: breaks.length + 1 };
  }
}

/** The line starts in (from, to] of `text`: the positions after its line breaks. */
function breaksIn(text, from, to) {
  const out = [];
  for (let i = text.indexOf('\n', from); i >= 0 && i < to; i = text.indexOf('\n', i + 1)) out.push(i + 1);
  return out;
}
