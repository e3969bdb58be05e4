// What changed since a saved version: the server's diff (GET …/versions/{n}/diff?to=current)
// laid over the version's text, insertions and deletions inline with who made them, long
// unchanged stretches cut to a little context around each change.
import { el, plural } from './ui.js';

const CONTEXT = 60; // characters of unchanged text kept on each side of a change

/**
 * The later text as pieces: {kind: 'same'|'insert'|'delete', text, author}. `changes` are in
 * order of place, `at` in the later text; applied in order to `earlier` they give the later.
 */
export function pieces(earlier, changes) {
  const out = [];
  let src = 0; // position in the earlier text
  let pos = 0; // position in the later text
  for (const c of changes) {
    const same = Math.max(0, c.at - pos);
    if (same) out.push({ kind: 'same', text: earlier.slice(src, src + same) });
    src += same;
    pos += same;
    if (c.kind === 'insert') {
      out.push({ kind: 'insert', text: c.text, author: c.author });
      pos += c.text.length;
    } else {
      out.push({ kind: 'delete', text: c.text, author: c.author });
      src += c.text.length;
    }
  }
  if (src < earlier.length) out.push({ kind: 'same', text: earlier.slice(src) });
  return out;
}

/** Unchanged pieces cut to CONTEXT characters next to a change ("…" for what is left out). */
export function trimmed(list) {
  return list.map((p, i) => {
    if (p.kind !== 'same' || p.text.length <= 2 * CONTEXT + 3) return p;
    const head = i > 0 ? p.text.slice(0, CONTEXT) : '';
    const tail = i < list.length - 1 ? p.text.slice(-CONTEXT) : '';
    return { kind: 'same', text: `${head}…${tail}` };
  });
}

/** A name for an author id from the diff's authors (then the people here), or "Someone". */
export function authorName(id, authors, people) {
  if (!id) return 'an unknown author';
  const a = authors.get(id);
  return (a && a.name) || (people && people.get(id)) || 'Someone';
}

/** Fills `box` with the diff: a summary, the text with its changes, and a key of who made them. */
export function renderDiff(box, earlier, diff, people) {
  const authors = new Map((diff.authors || []).map((a) => [a.id, a]));
  const changes = diff.changes || [];
  box.textContent = '';
  const counts = [diff.inserted ? `${plural(diff.inserted, 'character')} inserted` : null,
    diff.deleted ? `${plural(diff.deleted, 'character')} deleted` : null].filter(Boolean);
  box.append(el('p', { class: 'diff-summary', text: changes.length ? counts.join(', ') : 'No changes since this version.' }));
  // Past what the log still holds the server compares lines, and cannot say who did what.
  if (diff.method === 'text' && changes.length) {
    box.append(el('p', { class: 'diff-summary', text: 'Compared line by line: this version is too old to tell who changed what.' }));
  }
  if (!changes.length) return;
  const text = el('div', { class: 'diff-text', tabindex: '0', role: 'document', 'aria-label': 'The text now, with its changes' });
  for (const p of trimmed(pieces(earlier, changes))) {
    if (p.kind === 'same') { text.append(p.text); continue; }
    const who = authorName(p.author, authors, people);
    const color = authors.get(p.author) && authors.get(p.author).color;
    const mark = el(p.kind === 'insert' ? 'ins' : 'del', {
      // A deletion's author is who wrote the text deleted (the server knows no more).
      class: `diff-${p.kind}`, title: p.kind === 'insert' ? `Inserted by ${who}` : `Deleted; written by ${who}`,
      'data-author': p.author || '', text: p.text });
    if (color) mark.style.setProperty('--who', color);
    text.append(mark);
  }
  box.append(text);
  const list = el('ul', { class: 'diff-changes', 'aria-label': 'Changes, in order of place' });
  for (const c of changes) {
    const who = authorName(c.author, authors, people);
    const a = authors.get(c.author);
    const swatch = el('span', { class: 'swatch', 'aria-hidden': 'true' });
    if (a && a.color) swatch.style.background = a.color;
    const quoted = el('span', { class: 'diff-quote', text: `"${c.text.length > 80 ? `${c.text.slice(0, 80)}…` : c.text}"` });
    const whoEl = el('span', { class: 'diff-who', text: c.kind === 'insert' ? who[0].toUpperCase() + who.slice(1) : who });
    list.append(c.kind === 'insert'
      ? el('li', { class: 'diff-change diff-change-insert' }, swatch, whoEl, ' inserted ', quoted, ` at ${c.at}`)
      : el('li', { class: 'diff-change diff-change-delete' }, swatch, 'Deleted ', quoted, ` at ${c.at}, written by `, whoEl));
  }
  box.append(list);
}
