// What an undo group did, in words, from the server's preview of it (the first 40 UTF-16
// units it inserted and deleted): `Typing "Thanks from you" at 10`, `Deleted "Dear "`.

/** `text` quoted, its line breaks and tabs visible, "…" when the group did more than that. */
export function quote(text, count) {
  const shown = String(text || '').replace(/\r\n?|\n/g, '⏎').replace(/\t/g, '⇥');
  const more = Number.isInteger(count) && count > String(text || '').length;
  return `"${shown}${more ? '…' : ''}"`;
}

/** One line saying what an entry did, or '' without a preview. */
export function describe(entry) {
  const p = entry && entry.preview;
  if (!p) return '';
  const name = entry.actionName || 'Change';
  const ins = p.insertedCount > 0 || p.inserted;
  const del = p.deletedCount > 0 || p.deleted;
  const at = Number.isInteger(p.position) ? ` at ${p.position}` : '';
  if (ins && del) return `${name}: ${quote(p.deleted, p.deletedCount)} → ${quote(p.inserted, p.insertedCount)}${at}`;
  if (ins) return `${name} ${quote(p.inserted, p.insertedCount)}${at}`;
  if (del) return `Deleted ${quote(p.deleted, p.deletedCount)}${at}`;
  return '';
}
