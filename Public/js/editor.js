// The text surface: a textarea whose input is diffed into operations, which remote
// operations update in place (keeping the caret where the typist expects it), with an
// overlay behind it that mirrors its text layout to draw other people's carets and
// selections.
import * as ot from './ot.js';

// A textarea's value turns every CR into LF; a stand-in of the same UTF-16 length keeps
// positions equal to the server's.
const CR = '\r';
const CR_STAND_IN = '\u240D';
const toDisplay = (s) => (s.includes(CR) ? s.replaceAll(CR, CR_STAND_IN) : s);
const fromDisplay = (s) => (s.includes(CR_STAND_IN) ? s.replaceAll(CR_STAND_IN, CR) : s);

const FLAG_MS = 2500; // how long a name flag shows after its person's caret moved

const ACTION_FOR_INPUT = {
  insertFromPaste: 'Paste',
  insertFromPasteAsQuotation: 'Paste',
  deleteByCut: 'Cut',
  insertFromDrop: 'Drag',
  deleteByDrag: 'Drag',
};

export class Editor extends EventTarget {
  constructor(root) {
    super();
    this.root = root;
    this.textarea = root.querySelector('textarea');
    this.overlay = root.querySelector('.overlay');
    this.overlayInner = root.querySelector('.overlay-inner');
    this.mirror = root.querySelector('.mirror');
    this.value = '';
    this.sink = null; // (op, meta) => void, the collab client
    this.composing = false;
    this.others = [];
    this.movedAt = new Map(); // person id → when their caret last moved, for the name flag
    this.flagTimer = null;
    this.pendingInputType = null;

    const ta = this.textarea;
    ta.addEventListener('beforeinput', (e) => {
      if (e.inputType === 'historyUndo' || e.inputType === 'historyRedo') {
        // The browser's own undo would fight the server's: ask the server instead.
        e.preventDefault();
        this.emit(e.inputType === 'historyUndo' ? 'undo' : 'redo');
        return;
      }
      this.pendingInputType = e.inputType;
    });
    ta.addEventListener('input', (e) => {
      if (this.composing || e.isComposing) return;
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
    ta.addEventListener('scroll', () => this.syncScroll());
    document.addEventListener('selectionchange', () => {
      if (document.activeElement === ta) this.emit('selection');
    });
    ta.addEventListener('select', () => this.emit('selection'));
    new ResizeObserver(() => this.render()).observe(ta);
  }

  emit(type, detail) { this.dispatchEvent(new CustomEvent(type, { detail })); }

  setText(text) {
    this.value = text;
    this.textarea.value = toDisplay(text);
    this.render();
  }

  getText() { return this.value; }

  /** Turns whatever the textarea gained since last time into one local operation. */
  flushInput(inputType = this.pendingInputType) {
    if (this.composing) return;
    const now = fromDisplay(this.textarea.value);
    if (now === this.value) return;
    const op = ot.diff(this.value, now, this.textarea.selectionEnd);
    this.value = now;
    const actionName = ACTION_FOR_INPUT[inputType];
    this.pendingInputType = null;
    if (this.sink) this.sink(op, actionName ? { actionName, newGroup: true } : {});
    this.render();
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
    ta.value = toDisplay(this.value);
    // A caret pushed by an insert right at it would jump over the other person's
    // words; one that stays put is what editors do for remote typing at the caret.
    const caret = start === end;
    const s = ot.transformPosition(start, op, caret);
    const e = caret ? s : Math.max(s, ot.transformPosition(end, op, true));
    ta.setSelectionRange(s, e, dir);
    ta.scrollTop = scroll;
    if (!focused && document.activeElement === ta) ta.blur();
    this.render();
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

  /** The y offset of a position inside the textarea's content. */
  offsetOf(pos) {
    const m = this.mirror;
    m.style.width = `${this.textarea.clientWidth}px`;
    m.textContent = '';
    m.append(document.createTextNode(toDisplay(this.value.slice(0, pos))));
    const marker = document.createElement('span');
    marker.textContent = '\u200b';
    m.append(marker);
    const y = marker.offsetTop;
    m.textContent = '';
    return y;
  }

  setOthers(list) {
    this.others = list.filter((p) => p.selection);
    this.render();
  }

  /** These people just moved or typed: their name flags show for a moment. */
  markMoved(ids) {
    const now = Date.now();
    for (const id of ids) this.movedAt.set(id, now);
  }

  /** Whose name flag shows: only someone who moved or typed in the last moments. */
  flagShown(p, now) {
    const at = this.movedAt.get(p.id);
    return at !== undefined && now - at < FLAG_MS;
  }

  /** Redraws once the next shown flag is due to go. */
  scheduleFlags(now) {
    clearTimeout(this.flagTimer);
    const due = this.others.map((p) => this.movedAt.get(p.id)).filter((at) => at !== undefined && now - at < FLAG_MS);
    if (due.length) this.flagTimer = setTimeout(() => this.render(), FLAG_MS - (now - Math.min(...due)) + 20);
  }

  syncScroll() {
    this.overlayInner.style.transform = `translate(${-this.textarea.scrollLeft}px, ${-this.textarea.scrollTop}px)`;
  }

  /** Redraws other people's carets and selections on the overlay. */
  render() {
    const ta = this.textarea;
    this.overlay.style.width = `${ta.clientWidth}px`;
    this.overlay.style.height = `${ta.clientHeight}px`;
    const inner = this.overlayInner;
    if (!this.others.length) {
      if (inner.childNodes.length) inner.textContent = '';
      return;
    }
    const text = this.value;
    const len = text.length;
    const now = Date.now();
    this.scheduleFlags(now);
    const marks = [];
    for (const p of this.others) {
      const a = Math.min(Math.max(p.selection.anchor, 0), len);
      const h = Math.min(Math.max(p.selection.head, 0), len);
      if (a !== h) marks.push({ at: Math.min(a, h), kind: 'start', p }, { at: Math.max(a, h), kind: 'end', p });
      marks.push({ at: h, kind: 'caret', p });
    }
    const order = { end: 0, caret: 1, start: 2 };
    marks.sort((x, y) => x.at - y.at || order[x.kind] - order[y.kind]);
    const frag = document.createDocumentFragment();
    const open = [];
    let index = 0;
    const flushText = (to) => {
      if (to <= index) return;
      const piece = toDisplay(text.slice(index, to));
      if (open.length) {
        const span = document.createElement('span');
        span.className = 'remote-selection';
        span.style.setProperty('--who', open[open.length - 1].color);
        span.textContent = piece;
        frag.append(span);
      } else {
        frag.append(document.createTextNode(piece));
      }
      index = to;
    };
    for (const m of marks) {
      flushText(m.at);
      if (m.kind === 'start') open.push(m.p);
      else if (m.kind === 'end') open.splice(open.indexOf(m.p), 1);
      else {
        const caret = document.createElement('span');
        caret.className = this.flagShown(m.p, now) ? 'remote-caret recent' : 'remote-caret';
        caret.style.setProperty('--who', m.p.color);
        const label = document.createElement('span');
        label.className = 'remote-label';
        label.textContent = m.p.name;
        caret.append(label);
        frag.append(caret);
      }
    }
    flushText(len);
    frag.append(document.createTextNode('\u200b'));
    inner.textContent = '';
    inner.append(frag);
    this.syncScroll();
  }
}
