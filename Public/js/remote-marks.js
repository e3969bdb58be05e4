// Other people's carets and selections as marks over the text, for either text surface:
// each mark is described first, and only marks whose description changed touch the page
// (a frame in which nobody's mark moved costs no style, layout or paint). A name flag shows
// only for a moment after its person moved or typed: it would hide the line above.
import { textOn } from './contrast.js';

const FLAG_MS = 2500; // how long a name flag shows after its person's caret moved

export class RemoteMarks {
  /** `inner`: the element the marks go in; `redraw`: asks for a drawing (a flag went). */
  constructor(inner, redraw) {
    this.inner = inner;
    this.redraw = redraw;
    this.drawn = [];
    this.movedAt = new Map(); // person id → when their caret last moved
    this.timer = null;
  }

  /** These people just moved or typed: their name flags show for a moment. */
  markMoved(ids) {
    const now = Date.now();
    for (const id of ids) this.movedAt.set(id, now);
  }

  flagShown(p, now) {
    const at = this.movedAt.get(p.id);
    return at !== undefined && now - at < FLAG_MS;
  }

  /** Redraws once the next shown flag among `others` is due to go. */
  scheduleFlags(others, now) {
    clearTimeout(this.timer);
    const due = others.map((p) => this.movedAt.get(p.id)).filter((at) => at !== undefined && now - at < FLAG_MS);
    if (due.length) this.timer = setTimeout(() => this.redraw(), FLAG_MS - (now - Math.min(...due)) + 20);
  }

  /** Puts `marks` in the page, replacing only those that differ from the ones drawn. */
  draw(marks) {
    const drawn = this.drawn;
    const keys = marks.map((m) => `${m.tag}|${m.className}|${m.who}|${m.label || ''}|${m.author || ''}|${m.css}`);
    for (let i = 0; i < marks.length; i += 1) {
      if (drawn[i] && drawn[i].key === keys[i]) continue;
      const el = markElement(marks[i]);
      if (drawn[i]) drawn[i].el.replaceWith(el); else this.inner.append(el);
      drawn[i] = { key: keys[i], el };
    }
    for (const d of drawn.splice(marks.length)) d.el.remove();
  }
}

/** The element of one described mark. */
function markElement(m) {
  const e = document.createElement(m.tag);
  e.className = m.className;
  e.style.cssText = m.css;
  e.style.setProperty('--who', m.who);
  if (m.author) e.dataset.author = m.author;
  if (m.label !== undefined) {
    e.style.setProperty('--who-text', textOn(m.who));
    const label = document.createElement('span');
    label.className = 'remote-label';
    label.textContent = m.label;
    e.append(label);
  }
  return e;
}

/** Marks tinting authors' runs ({from, to, author, color, alpha}), measured by `rects(from, to)`. */
export function tintMarks(runs, rects) {
  const marks = [];
  for (const run of runs) {
    for (const r of rects(run.from, run.to)) {
      marks.push({ tag: 'div', className: 'author-tint', who: run.color,
        css: `left:${r.x}px;top:${r.y}px;width:${r.w}px;height:${r.h}px;--tint:${Math.round(run.alpha * 100)}%`,
        author: run.author });
    }
  }
  return marks;
}
