// The text surface: a textarea whose input is diffed into operations, which remote
// operations update in place (keeping the caret where the typist expects it), with an
// overlay over it for other people's carets and selections. Their places are measured
// in a hidden copy of the text cut into blocks (text-mirror.js): a change rewrites one
// block, and only what is in view is drawn, once a frame, so a keystroke costs the same
// in a page of text as in a book.
import * as ot from './ot.js';
import { TextMirror } from './text-mirror.js';
import { RemoteMarks, tintMarks } from './remote-marks.js';

// A textarea's value turns every CR into LF; a stand-in of the same UTF-16 length keeps
// positions equal to the server's.
const CR = '\r';
const CR_STAND_IN = '\u240D';
export const toDisplay = (s) => (s.includes(CR) ? s.replaceAll(CR, CR_STAND_IN) : s);
export const fromDisplay = (s) => (s.includes(CR_STAND_IN) ? s.replaceAll(CR_STAND_IN, CR) : s);

const MARGIN = 400; // px above and below the view where others' marks are drawn too

export const ACTION_FOR_INPUT = {
  insertFromPaste: 'Paste',
  insertFromPasteAsQuotation: 'Paste',
  deleteByCut: 'Cut',
  insertFromDrop: 'Drag',
  deleteByDrag: 'Drag',
};

/** What `op` changes, as one span: [from, oldEnd) of the old text became [from, newEnd). */
export function spanOf(op, oldLength, newLength) {
  const lead = typeof op[0] === 'number' && op[0] > 0 ? op[0] : 0;
  const last = op[op.length - 1];
  const trail = op.length > 1 && typeof last === 'number' && last > 0 ? last : 0;
  return { from: lead, oldEnd: oldLength - trail, newEnd: newLength - trail };
}

export class Editor extends EventTarget {
  constructor(root) {
    super();
    this.root = root;
    this.textarea = root.querySelector('textarea');
    this.overlay = root.querySelector('.overlay');
    this.overlayInner = root.querySelector('.overlay-inner');
    this.mirror = new TextMirror(root.querySelector('.mirror'));
    this.value = '';
    this.sink = null; // (op, meta) => void, the collab client
    this.composing = false;
    this.others = [];
    this.marks = new RemoteMarks(this.overlayInner, () => this.scheduleRender());
    this.tints = null; // {active(), runs(from, to)}: authors' runs to tint (authorship-ui.js)
    this.frame = 0;
    this.applying = false; // true while another person's change is put into the textarea
    this.pendingInputType = null;

    const ta = this.textarea;
    ta.addEventListener('beforeinput', (e) => {
      if (this.applying) return; // another person's change, put in as typing is (replaceRange)
      if (e.inputType === 'historyUndo' || e.inputType === 'historyRedo') {
        // The browser's own undo would fight the server's: ask the server instead.
        e.preventDefault();
        this.emit(e.inputType === 'historyUndo' ? 'undo' : 'redo');
        return;
      }
      this.pendingInputType = e.inputType;
    });
    ta.addEventListener('input', (e) => {
      if (this.applying || this.composing || e.isComposing) return;
      this.flushInput(e.inputType);
    });
    ta.addEventListener('compositionstart', () => {
      this.composing = true;
      this.emit('compositionstart');
    });
    ta.addEventListener('compositionend', () => {
      this.composing = false;
      this.flushInput('insertCompositionText');
      this.emit('compositionend');
    });
    // Others' marks move with the text at once; those coming into view are drawn next frame.
    ta.addEventListener('scroll', () => { this.syncScroll(); this.scheduleRender(); });
    document.addEventListener('selectionchange', () => {
      if (document.activeElement === ta && !this.applying) this.emit('selection');
    });
    ta.addEventListener('select', () => this.emit('selection'));
    new ResizeObserver(() => this.scheduleRender()).observe(ta);
  }

  emit(type, detail) { this.dispatchEvent(new CustomEvent(type, { detail })); }

  setText(text) {
    this.value = text;
    const shown = toDisplay(text);
    this.textarea.value = shown;
    this.mirror.reset(shown);
    this.scheduleRender();
  }

  getText() { return this.value; }

  /** Turns whatever the textarea gained since last time into one local operation. */
  flushInput(inputType = this.pendingInputType) {
    if (this.composing) return;
    const shown = this.textarea.value;
    const now = fromDisplay(shown);
    if (now === this.value) return;
    const before = this.value;
    const op = ot.diff(before, now, this.textarea.selectionEnd);
    this.value = now;
    const { from, oldEnd, newEnd } = spanOf(op, before.length, now.length);
    this.mirror.splice(shown, from, oldEnd, newEnd);
    const actionName = ACTION_FOR_INPUT[inputType];
    this.pendingInputType = null;
    if (this.sink) this.sink(op, actionName ? { actionName, newGroup: true } : {});
    this.scheduleRender();
  }

  /** Applies another person's (already transformed) operation to the text. */
  applyRemote(op) {
    const ta = this.textarea;
    const start = ta.selectionStart;
    const end = ta.selectionEnd;
    const dir = ta.selectionDirection;
    const scroll = ta.scrollTop;
    const focused = document.activeElement === ta;
    const before = this.value;
    this.value = ot.apply(before, op);
    const { from, oldEnd, newEnd } = spanOf(op, before.length, this.value.length);
    this.replaceRange(from, oldEnd, toDisplay(this.value.slice(from, newEnd)));
    this.mirror.splice(ta.value, from, oldEnd, newEnd);
    // A caret pushed by an insert right at it would jump over the other person's
    // words; one that stays put is what editors do for remote typing at the caret.
    const caret = start === end;
    const s = ot.transformPosition(start, op, caret);
    const e = caret ? s : Math.max(s, ot.transformPosition(end, op, true));
    ta.setSelectionRange(s, e, dir);
    if (ta.scrollTop !== scroll) ta.scrollTop = scroll;
    if (!focused && document.activeElement === ta) ta.blur();
    this.scheduleRender();
  }

  /**
   * Replaces [from, to) of the textarea's text with `text`; the caller puts the caret back.
   * As typing does it when it can (an editing command: the textarea lays out again from
   * the change, a few ms in a megabyte), else by its value (all of it laid out again, a
   * third of a second in a megabyte), where a command would take the focus from elsewhere.
   */
  replaceRange(from, to, text) {
    const ta = this.textarea;
    const active = document.activeElement;
    const mayFocus = active === ta || ((!active || active === document.body) && matchMedia('(pointer: fine)').matches);
    if (mayFocus && !this.composing) {
      const readOnly = ta.readOnly;
      // The command reveals the place it edits: the page stays where the reader has it
      // (the textarea's own scroll is put back by the caller).
      const { scrollX, scrollY } = window;
      this.applying = true;
      try {
        if (active !== ta) ta.focus({ preventScroll: true });
        if (readOnly) ta.readOnly = false;
        ta.setSelectionRange(from, to);
        const done = text ? document.execCommand('insertText', false, text) : (from === to || document.execCommand('delete'));
        if (readOnly) ta.readOnly = true;
        if (active !== ta) ta.blur();
        if (window.scrollX !== scrollX || window.scrollY !== scrollY) window.scrollTo(scrollX, scrollY);
        if (done && ta.value.length === this.value.length) return;
      } finally {
        this.applying = false;
      }
    }
    // Not done (or not as expected): the value itself, which cannot go wrong.
    const shown = toDisplay(this.value);
    if (ta.value !== shown) ta.value = shown;
  }

  /** The element that takes the focus and the clipboard's events. */
  get field() { return this.textarea; }

  focus(options) { this.textarea.focus(options); }

  get readOnly() { return this.textarea.readOnly; }

  set readOnly(on) {
    this.textarea.readOnly = on;
    this.textarea.setAttribute('aria-readonly', String(on));
  }

  selectAll() {
    this.textarea.focus({ preventScroll: true });
    this.textarea.select();
  }

  /** Puts the selection at anchor → head without scrolling. */
  setSelection(anchor, head) {
    this.textarea.setSelectionRange(Math.min(anchor, head), Math.max(anchor, head), anchor > head ? 'backward' : 'forward');
  }

  /** Replaces the selection with `text` as a change of ours named by `inputType` (the clipboard's fallback). */
  replaceSelection(text, inputType) {
    const ta = this.textarea;
    ta.setRangeText(text, ta.selectionStart, ta.selectionEnd, 'end');
    this.flushInput(inputType);
  }

  selection() {
    const ta = this.textarea;
    const backward = ta.selectionDirection === 'backward';
    return backward
      ? { anchor: ta.selectionEnd, head: ta.selectionStart }
      : { anchor: ta.selectionStart, head: ta.selectionEnd };
  }

  /** Selects [from, to) and scrolls it into the middle of the view. */
  select(from, to, { focus = true } = {}) {
    const ta = this.textarea;
    from = Math.max(0, Math.min(from, this.value.length));
    to = Math.max(from, Math.min(to, this.value.length));
    if (focus) ta.focus({ preventScroll: true });
    ta.setSelectionRange(from, to);
    this.scrollToPosition(from, to);
    this.emit('selection');
  }

  /** Scrolls so that text between `from` and `to` is in view (centered if it fits). */
  scrollToPosition(from, to = from) {
    const ta = this.textarea;
    const top = this.offsetOf(from);
    const bottom = this.offsetOf(to) + this.lineHeight();
    const view = ta.clientHeight;
    if (top >= ta.scrollTop && bottom <= ta.scrollTop + view) return;
    const span = bottom - top;
    ta.scrollTop = span < view ? top - (view - span) / 2 : top - this.lineHeight();
    this.syncScroll();
  }

  lineHeight() {
    const lh = parseFloat(getComputedStyle(this.textarea).lineHeight);
    return Number.isFinite(lh) ? lh : 20;
  }

  /** The mirror wraps where the textarea does: at its width without the scroll bar. */
  syncWidth() {
    const w = `${this.textarea.clientWidth}px`;
    if (this.mirror.root.style.width !== w) this.mirror.root.style.width = w;
  }

  /** The y offset of a position inside the textarea's content. */
  offsetOf(pos) {
    this.syncWidth();
    return this.mirror.offsetOf(pos);
  }

  setOthers(list) {
    this.others = list.filter((p) => p.selection);
    this.scheduleRender();
  }

  /** These people just moved or typed: their name flags show for a moment. */
  markMoved(ids) { this.marks.markMoved(ids); }

  /** Draws once in the next frame, however many changes come before it. */
  scheduleRender() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.render(); });
  }

  /**
   * Draws other people's carets and selections that are in (or near) the view. Each mark
   * is described first; only marks whose description changed touch the page, so a frame in
   * which nobody's mark moved on screen costs the measuring alone (no style, layout, paint).
   */
  render() {
    const ta = this.textarea;
    const tinting = !!(this.tints && this.tints.active());
    if (!this.others.length && !tinting) {
      this.draw([]);
      return;
    }
    const w = `${ta.clientWidth}px`;
    const h = `${ta.clientHeight}px`;
    if (this.overlay.style.width !== w) this.overlay.style.width = w;
    if (this.overlay.style.height !== h) this.overlay.style.height = h;
    this.syncWidth();
    const len = this.value.length;
    const now = Date.now();
    this.marks.scheduleFlags(this.others, now);
    const view = this.mirror.visibleSpan(ta.scrollTop - MARGIN, ta.scrollTop + ta.clientHeight + MARGIN);
    // Authors' tints first: drawn under others' selections and carets.
    const marks = tinting ? tintMarks(this.tints.runs(view.from, view.to), (a, b) => this.mirror.rects(a, b)) : [];
    const carets = [];
    for (const p of this.others) {
      const a = Math.min(Math.max(p.selection.anchor, 0), len);
      const head = Math.min(Math.max(p.selection.head, 0), len);
      const from = Math.max(Math.min(a, head), view.from);
      const to = Math.min(Math.max(a, head), view.to);
      if (from < to) {
        for (const r of this.mirror.rects(from, to)) {
          marks.push({ tag: 'div', className: 'remote-selection', who: p.color,
            css: `left:${r.x}px;top:${r.y}px;width:${r.w}px;height:${r.h}px` });
        }
      }
      if (head >= view.from && (head < view.to || head === len)) carets.push([p, head]);
    }
    const lh = carets.length ? this.lineHeight() : 0;
    for (const [p, head] of carets) {
      const c = this.mirror.caret(head);
      marks.push({ tag: 'span', className: this.marks.flagShown(p, now) ? 'remote-caret recent' : 'remote-caret',
        who: p.color, label: p.name, css: `left:${c.x}px;top:${c.y}px;height:${c.h || lh}px` });
    }
    this.draw(marks);
    this.syncScroll();
  }

  /** Puts `marks` in the overlay, replacing only those that differ from the ones drawn. */
  draw(marks) { this.marks.draw(marks); }

  syncScroll() {
    const t = `translate(${-this.textarea.scrollLeft}px, ${-this.textarea.scrollTop}px)`;
    if (t !== this.shownScroll) this.overlayInner.style.transform = this.shownScroll = t;
  }
}
