// Sharing a pasteboard with people by their sign-in names: the names typed in one field,
// which typed name is which person the server answers, and what its unknown_user says.
// Pure, for the clipboard panel (clipboard-ui.js) and its unit tests.

export const MAX_PEOPLE = 100;
// What the server takes as a sign-in name (1 to 64 letters, digits and . _ - @).
const SIGN_IN_NAME = /^[\p{L}\p{N}._@-]{1,64}$/u;

/**
 * The sign-in names typed in one field, split at commas (and spaces, which no name has),
 * each once: {names} or {error} saying what is wrong. Pure.
 */
export function parseNames(text) {
  const names = [];
  const seen = new Set();
  for (const name of String(text).split(/[\s,;]+/).filter(Boolean)) {
    if (!SIGN_IN_NAME.test(name)) return { error: `“${name}” is not a sign-in name: they have letters, digits and . _ - @ only.` };
    const key = name.normalize('NFC').toLowerCase();
    if (!seen.has(key)) { seen.add(key); names.push(name); }
  }
  if (!names.length) return { error: 'Enter the sign-in names of the people to share it with, separated by commas.' };
  if (names.length > MAX_PEOPLE) return { error: `A pasteboard can be shared with at most ${MAX_PEOPLE} people.` };
  return { names };
}

/**
 * Which typed sign-in name is which person of `people` (sharedWith: sorted and each once,
 * not in the order typed): a person named as typed, else the one person left for the one
 * name left, else as remembered before. Pure: {person → sign-in name}.
 */
export function matchNames(people, names, before = {}) {
  const key = (n) => String(n).normalize('NFC').toLowerCase();
  const out = {};
  const left = new Map(names.map((n) => [key(n), n]));
  const unmatched = [];
  for (const e of people) {
    const k = e.name == null ? null : key(e.name);
    if (k !== null && left.has(k)) { out[e.person] = left.get(k); left.delete(k); } else unmatched.push(e);
  }
  if (unmatched.length === 1 && left.size === 1) out[unmatched[0].person] = [...left.values()][0];
  else for (const e of unmatched) if (before[e.person] && left.has(key(before[e.person]))) out[e.person] = before[e.person];
  return out;
}

/** What a 422 unknown_user says: the name nobody has, when the server's message names it. */
export function unknownUser(names, message = '') {
  // The server's message quotes the name ("no user signs in as 'nobody'").
  const lower = String(message).toLowerCase();
  const quoted = names.filter((n) => new RegExp(`['"“‘]${n.normalize('NFC').toLowerCase().replace(/[.]/g, '\\.')}['"”’]`, 'u').test(lower));
  const named = quoted.length ? quoted : names.filter((n) => lower.includes(n.normalize('NFC').toLowerCase()));
  if (names.length === 1 || named.length === 1) return `No one has the user name “${named.length === 1 ? named[0] : names[0]}”. Nothing was shared.`;
  return `No one has one of these user names: ${names.join(', ')}. Nothing was shared.`;
}
