// The text surface for long documents: the same interface as editor.js's textarea, over a
// contenteditable that holds only the lines in view (viewport-lines.js). The text lives
// here, not in the page: typing is read from `beforeinput`, applied to the text, and
// becomes the same operations the textarea sends; a composition (IME) happens natively
// in its line and is read when it ends. Copy and select-all work on the whole text.
import * as ot from './ot.js';
import { spanOf, fromDisplay, ACTION_FOR_INPUT } from './editor.js';
import { RemoteMarks, tintMarks } from './remote-marks.js';
import { ViewportLines } from './viewport-lines.js';

const VIEWPORT_FROM = 128 * 1024; // UTF-16 units from which a document opens here (docs/performance.md: why)

/** Whether a document of this text opens here (?editor=viewport|textarea chooses). */
export function wantsViewport(text) {
  const chosen = new URLSearchParams(location.search).get('editor');
  if (chosen === 'viewport') return true;
  if (chosen === 'textarea') return false;
  return text.length >= VIEWPORT_FROM;
}

const INSERTS = new Set(['insertText', 'insertReplacementText', 'insertFromPaste', 'insertFromPasteAsQuotation',
  'insertFromDrop', 'insertFromYank', 'insertLineBreak', 'insertParagraph']);

export class ViewportEditor extends EventTarget {
  constructor(root) {
    super();
    this.root = root;
    this.view = new ViewportLines(root);
    this.lines = this.view.lines;
    this.scroller = this.view.scroller;
    this.marks = new RemoteMarks(root.querySelector('.vp-marks'), () => this.scheduleRender());
    this.sel = { anchor: 0, head: 0 }; // in the text; the page shows the part in view
    this.shown = null; // the selection as last put in the page (clamped to the shown lines)
    this.sink = null;
    this.composing = false;
    this.dirty = false; // the page's lines changed natively (not through beforeinput)
    this.others = [];
    this.tints = null; // {active(), runs(from, to)}: authors' runs to tint (authorship-ui.js)
    this.frame = 0;
    this.isReadOnly = false;

    const f = this.lines;
    f.addEventListener('beforeinput', (e) => this.onBeforeInput(e));
    f.addEventListener('input', (e) => {
      if (this.composing || e.isComposing) return;
      this.dirty = true;
      this.flushInput(e.inputType);
    });
    f.addEventListener('compositionstart', () => { this.composing = true; this.emit('compositionstart'); });
    f.addEventListener('compositionend', () => {
      this.composing = false;
      this.dirty = true;
      this.flushInput('insertCompositionText');
      this.emit('compositionend');
    });
    f.addEventListener('keydown', (e) => this.onKey(e));
    f.addEventListener('focus', () => this.showSelection());
    // A click beside the lines (the padding, a spacer not yet filled) still puts the focus in the text.
    this.view.content.addEventListener('mousedown', (e) => {
      if (f.contains(e.target) || e.button !== 0) return;
      e.preventDefault();
      this.focus({ preventScroll: true });
    });
    // The clipboard panel may have taken the event (the server's pasteboard): else the text's.
    root.addEventListener('copy', (e) => this.onCopy(e, false));
    root.addEventListener('cut', (e) => this.onCopy(e, true));
    document.addEventListener('selectionchange', () => {
      if (document.activeElement === f && this.readSelection()) this.emit('selection');
    });
    this.scroller.addEventListener('scroll', () => {
      // A key (PageDown) may have moved the caret before its selectionchange came: read it
      // before the lines under it change.
      if (document.activeElement === f) this.readSelection();
      this.renderLines();
      this.scheduleRender();
    });
    new ResizeObserver(() => {
      this.view.invalidate();
      this.renderLines(true);
      this.scheduleRender();
    }).observe(this.scroller);
  }

  emit(type, detail) { this.dispatchEvent(new CustomEvent(type, { detail })); }

  /** Shows the lines around the view; lines built afresh get the selection back. */
  renderLines(force = false) {
    const changed = this.view.render(force);
    if (changed) this.showSelection();
    return changed;
  }

  get field() { return this.lines; }

  get value() { return this.view.text; }

  getText() { return this.view.text; }

  /** `keepScroll`: the same document again (a reload), the view stays where it was. */
  setText(text, { keepScroll = false } = {}) {
    this.sel = { anchor: 0, head: 0 };
    this.view.reset(text, keepScroll);
    this.showSelection();
    this.scheduleRender();
  }

  focus(options) {
    this.lines.focus(options);
    this.showSelection();
  }

  get readOnly() { return this.isReadOnly; }

  set readOnly(on) {
    this.isReadOnly = on;
    // Still focusable and selectable, to read and copy.
    this.lines.contentEditable = on ? 'false' : 'true';
    this.lines.tabIndex = 0;
    this.lines.setAttribute('aria-readonly', String(on));
  }

  // ---- the selection ----

  selection() {
    if (document.activeElement === this.lines) this.readSelection();
    return { ...this.sel };
  }

  /** Reads the page's selection into the text's; true when it moved. Ends still where they were put keep their place outside the view. */
  readSelection() {
    const s = getSelection();
    if (!s.rangeCount || !this.lines.contains(s.anchorNode) || !this.lines.contains(s.focusNode)) return false;
    const a = this.view.posOf(s.anchorNode, s.anchorOffset);
    const h = this.view.posOf(s.focusNode, s.focusOffset);
    if (a === null || h === null) return false;
    const shown = this.shown;
    let anchor = shown && a === shown.anchor ? this.sel.anchor : a;
    let head = shown && h === shown.head ? this.sel.head : h;
    // The browser's own Select All (its menu) selects the shown lines: the whole text is meant.
    const span = this.view.shownSpan();
    const all = Math.min(a, h) === span.from && Math.max(a, h) === span.to && (span.from > 0 || span.to < this.value.length);
    if (all && !(shown && Math.min(shown.anchor, shown.head) === span.from && Math.max(shown.anchor, shown.head) === span.to)) {
      anchor = 0;
      head = this.value.length;
    }
    this.shown = { anchor: a, head: h };
    if (anchor === this.sel.anchor && head === this.sel.head) return false;
    this.sel = { anchor, head };
    return true;
  }

  /** Puts the text's selection in the page (the part of it in the shown lines). */
  showSelection() {
    if (document.activeElement !== this.lines) { this.shown = null; return; }
    const [an, ao] = this.view.pointOf(this.sel.anchor);
    const [hn, ho] = this.view.pointOf(this.sel.head);
    const s = getSelection();
    if (s.anchorNode !== an || s.anchorOffset !== ao || s.focusNode !== hn || s.focusOffset !== ho) {
      s.setBaseAndExtent(an, ao, hn, ho);
    }
    this.shown = { anchor: this.view.posOf(an, ao), head: this.view.posOf(hn, ho) };
  }

  setSelection(anchor, head) {
    const len = this.value.length;
    this.sel = { anchor: clamp(anchor, len), head: clamp(head, len) };
    this.showSelection();
  }

  selectAll() {
    this.lines.focus({ preventScroll: true });
    this.setSelection(0, this.value.length);
    this.emit('selection');
  }

  /** Selects [from, to) and scrolls it into the middle of the view. */
  select(from, to, { focus = true } = {}) {
    const len = this.value.length;
    from = clamp(from, len);
    to = Math.max(from, clamp(to, len));
    if (focus) this.lines.focus({ preventScroll: true });
    this.sel = { anchor: from, head: to };
    this.scrollToPosition(from, to);
    this.showSelection();
    this.emit('selection');
  }

  // ---- scrolling ----

  lineHeight() { return this.view.measure().lh; }

  /** The y offset of a position in the content. */
  offsetOf(pos) {
    if (!this.view.shows(pos)) return this.view.lineTop(this.view.index.lineAt(pos));
    return this.caretRect(pos).y;
  }

  /** Where a caret at `pos` (a shown one) is: {x, y, h} in the content's coordinates. */
  caretRect(pos) {
    const origin = this.view.content.getBoundingClientRect();
    const [node, off] = this.view.pointOf(pos);
    const r = document.createRange();
    r.setStart(node, off);
    const rects = r.getClientRects();
    const box = rects[rects.length - 1] || (node.nodeType === Node.TEXT_NODE ? node.parentElement : node).getBoundingClientRect();
    return { x: box.left - origin.left, y: box.top - origin.top, h: box.height };
  }

  /** Scrolls so that text between `from` and `to` is in view (centered if it fits). */
  scrollToPosition(from, to = from) {
    const sc = this.scroller;
    const lh = this.lineHeight();
    const view = sc.clientHeight;
    const place = () => {
      const top = this.offsetOf(from);
      const bottom = (from === to ? top : this.offsetOf(to)) + lh;
      return { top, bottom };
    };
    let { top, bottom } = place();
    if (this.view.shows(from) && top >= sc.scrollTop && bottom <= sc.scrollTop + view) return;
    // Estimated heights put it near; once its lines are shown it is measured and put right.
    for (let i = 0; i < 3; i += 1) {
      const span = bottom - top;
      sc.scrollTop = span < view ? top - (view - span) / 2 : top - lh;
      this.renderLines();
      ({ top, bottom } = place());
      if (this.view.shows(from) && top >= sc.scrollTop && bottom <= sc.scrollTop + view) break;
    }
    this.scheduleRender();
  }

  /** After typing: the caret stays in view, as a textarea keeps it. */
  revealCaret() {
    const pos = this.sel.head;
    const sc = this.scroller;
    if (!this.view.shows(pos)) { this.scrollToPosition(pos); return; }
    const c = this.caretRect(pos);
    const lh = c.h || this.lineHeight();
    if (c.y < sc.scrollTop) sc.scrollTop = c.y;
    else if (c.y + lh > sc.scrollTop + sc.clientHeight) sc.scrollTop = c.y + lh - sc.clientHeight;
  }

  // ---- typing ----

  onBeforeInput(e) {
    const t = e.inputType;
    if (t === 'historyUndo' || t === 'historyRedo') {
      // The browser's own undo would fight the server's: ask the server instead.
      e.preventDefault();
      this.emit(t === 'historyUndo' ? 'undo' : 'redo');
      return;
    }
    if (this.isReadOnly) { e.preventDefault(); return; }
    if (this.composing || t === 'insertCompositionText') return; // native, read at compositionend
    this.readSelection();
    let from = Math.min(this.sel.anchor, this.sel.head);
    let to = Math.max(this.sel.anchor, this.sel.head);
    const target = this.targetRange(e);
    let text = '';
    if (INSERTS.has(t)) {
      if (t === 'insertLineBreak' || t === 'insertParagraph') text = '\n';
      else text = e.data ?? (e.dataTransfer ? e.dataTransfer.getData('text/plain') : '');
      // A replacement (spelling) or a drop says where; typing replaces the selection.
      if ((t === 'insertReplacementText' || t === 'insertFromDrop') && target) ({ from, to } = target);
    } else if (t.startsWith('delete')) {
      if (t === 'deleteByDrag') {
        if (target && target.from !== target.to) ({ from, to } = target);
      } else if (from === to) {
        if (target && target.from !== target.to) ({ from, to } = target);
        else if (t.includes('Backward')) from = Math.max(0, from - 1);
        else to = Math.min(this.value.length, to + 1);
      }
    } else {
      e.preventDefault(); // formatting and the like: plain text has none
      return;
    }
    e.preventDefault();
    this.edit(from, to, fromDisplay(text).replace(/\r\n?/g, '\n'), t);
  }

  /** The first target range of an input event, as text positions, or null. */
  targetRange(e) {
    const r = e.getTargetRanges ? e.getTargetRanges()[0] : null;
    if (!r) return null;
    const a = this.view.posOf(r.startContainer, r.startOffset);
    const b = this.view.posOf(r.endContainer, r.endOffset);
    return a === null || b === null ? null : { from: Math.min(a, b), to: Math.max(a, b) };
  }

  /** Replaces [from, to) with `text` as typing of ours, and sends it. */
  edit(from, to, text, inputType) {
    const before = this.value;
    if (from === to && !text) return;
    const op = new ot.Builder().retain(from).delete(to - from).insert(text).retain(before.length - to).build();
    const after = before.slice(0, from) + text + before.slice(to);
    this.sel = { anchor: from + text.length, head: from + text.length };
    this.view.change(after, from, to, from + text.length);
    this.revealCaret();
    this.showSelection();
    this.send(op, inputType);
  }

  send(op, inputType) {
    const actionName = ACTION_FOR_INPUT[inputType];
    if (this.sink) this.sink(op, actionName ? { actionName, newGroup: true } : {});
    this.emit('selection');
    this.scheduleRender();
  }

  /** The selection as the clipboard's fallback edits it. */
  replaceSelection(text, inputType) {
    const { anchor, head } = this.selection();
    this.edit(Math.min(anchor, head), Math.max(anchor, head), text, inputType);
  }

  /**
   * Turns what changed natively in the shown lines (a composition, an input not read
   * from beforeinput) into one local operation, and puts the lines back as the text has them.
   */
  flushInput(inputType) {
    if (this.composing || !this.dirty) return;
    this.dirty = false;
    const { from, to } = this.view.shownSpan();
    const before = this.value.slice(from, to);
    const now = fromDisplay(this.view.shownText());
    this.readSelection();
    if (now === before) { this.view.render(true); this.showSelection(); return; }
    const inner = ot.diff(before, now, clamp(this.sel.head - from, now.length));
    const op = new ot.Builder().retain(from);
    for (const c of inner) {
      if (ot.isRetain(c)) op.retain(c); else if (ot.isInsert(c)) op.insert(c); else op.delete(c);
    }
    op.retain(this.value.length - to);
    const built = op.build();
    const span = spanOf(built, this.value.length, this.value.length + now.length - before.length);
    const after = ot.apply(this.value, built);
    // The page's lines are native now: shown again from the text.
    this.view.change(after, span.from, span.oldEnd, span.newEnd);
    this.view.render(true);
    this.showSelection();
    this.send(built, inputType);
  }

  onKey(e) {
    const mod = e.ctrlKey || e.metaKey;
    if (!mod || e.altKey) return;
    const key = e.key;
    if (key === 'a' || key === 'A') {
      e.preventDefault();
      this.selectAll();
    } else if (key === 'Home' || key === 'End' || (e.metaKey && (key === 'ArrowUp' || key === 'ArrowDown'))) {
      // The text's ends (Ctrl+Home/End; Cmd+Up/Down on a Mac) are not in the page: go
      // there, then show them.
      e.preventDefault();
      const pos = key === 'Home' || key === 'ArrowUp' ? 0 : this.value.length;
      this.readSelection();
      this.sel = { anchor: e.shiftKey ? this.sel.anchor : pos, head: pos };
      this.scrollToPosition(pos);
      this.showSelection();
      this.emit('selection');
    }
  }

  onCopy(e, cut) {
    if (e.defaultPrevented || !e.clipboardData) return;
    const { anchor, head } = this.selection();
    const from = Math.min(anchor, head);
    const to = Math.max(anchor, head);
    if (from === to) return;
    e.preventDefault();
    e.clipboardData.setData('text/plain', this.value.slice(from, to));
    if (cut && !this.isReadOnly) this.edit(from, to, '', 'deleteByCut');
  }

  // ---- others' changes ----

  /** Applies another person's (already transformed) operation to the text. */
  applyRemote(op) {
    const focused = document.activeElement === this.lines;
    if (focused) this.readSelection();
    const before = this.value;
    const after = ot.apply(before, op);
    const { from, oldEnd, newEnd } = spanOf(op, before.length, after.length);
    // A caret stays put before an insert right at it (as editor.js's does).
    const { anchor, head } = this.sel;
    const caret = anchor === head;
    const s = ot.transformPosition(Math.min(anchor, head), op, caret);
    const t = caret ? s : Math.max(s, ot.transformPosition(Math.max(anchor, head), op, true));
    this.sel = anchor <= head ? { anchor: s, head: t } : { anchor: t, head: s };
    this.view.change(after, from, oldEnd, newEnd);
    if (focused) this.showSelection();
    this.scheduleRender();
  }

  // ---- others' carets and selections (only in the shown lines) ----

  setOthers(list) {
    this.others = list.filter((p) => p.selection);
    this.scheduleRender();
  }

  markMoved(ids) { this.marks.markMoved(ids); }

  scheduleRender() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.render(); });
  }

  render() {
    const tinting = !!(this.tints && this.tints.active());
    if ((!this.others.length && !tinting) || this.root.hidden) { this.marks.draw([]); return; }
    const len = this.value.length;
    const now = Date.now();
    this.marks.scheduleFlags(this.others, now);
    const span = this.view.shownSpan();
    const origin = this.view.content.getBoundingClientRect();
    // Authors' tints, for the shown lines only, under others' selections and carets.
    const marks = tinting ? tintMarks(this.tints.runs(span.from, span.to), (a, b) => this.rectsOf(a, b, origin)) : [];
    for (const p of this.others) {
      const a = clamp(p.selection.anchor, len);
      const head = clamp(p.selection.head, len);
      const from = Math.max(Math.min(a, head), span.from);
      const to = Math.min(Math.max(a, head), span.to);
      if (from < to) {
        const r = document.createRange();
        r.setStart(...this.view.pointOf(from));
        r.setEnd(...this.view.pointOf(to));
        for (const b of r.getClientRects()) {
          if (b.width <= 0) continue;
          marks.push({ tag: 'div', className: 'remote-selection', who: p.color,
            css: `left:${b.left - origin.left}px;top:${b.top - origin.top}px;width:${b.width}px;height:${b.height}px` });
        }
      }
      if (head >= span.from && head <= span.to) {
        const c = this.caretRect(head);
        marks.push({ tag: 'span', className: this.marks.flagShown(p, now) ? 'remote-caret recent' : 'remote-caret',
          who: p.color, label: p.name, css: `left:${c.x}px;top:${c.y}px;height:${c.h || this.lineHeight()}px` });
      }
    }
    this.marks.draw(marks);
  }

  /** Rectangles of [from, to) of the shown lines, in the content's coordinates. */
  rectsOf(from, to, origin) {
    const r = document.createRange();
    r.setStart(...this.view.pointOf(from));
    r.setEnd(...this.view.pointOf(to));
    return [...r.getClientRects()].filter((b) => b.width > 0)
      .map((b) => ({ x: b.left - origin.left, y: b.top - origin.top, w: b.width, h: b.height }));
  }
}

function clamp(pos, len) { return Math.max(0, Math.min(pos, len)); }
