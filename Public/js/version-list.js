// The Versions panel's list as data: what kind each version is, what it is called, the
// `saved`, `version` and `versionRemoved` events' changes to the list, and runs of autosave checkpoints grouped the way
// Google Docs' version history folds them. Plain data and pure functions (no DOM).
//
// A version is {number, revision, time, length, name, automatic, since}: `automatic` for
// autosave's checkpoints, which cover `since`..`time` (seconds since 1970); `name` for a
// save made on purpose, or one named afterwards. A checkpoint given a name is kept (no
// longer automatic) and keeps its `since`.
import { msOf } from './relative-time.js';

/** 'named' (saved on purpose with a name), 'saved' (on purpose, no name) or 'automatic'. */
export function kindOf(v) {
  if (v.automatic) return 'automatic';
  return typeof v.name === 'string' && v.name ? 'named' : 'saved';
}

const CLOCK = { hour: 'numeric', minute: '2-digit' };

/**
 * The time from `since` to `time` in words short enough for a list: "10:02 – 10:09 AM"
 * today, with the date before that ("Mar 3, 10:02 – 10:09 AM"), one time when both fall
 * in the same minute. `now` (ms) is when "today" is.
 */
export function spanText(since, time, now = Date.now(), locale = undefined) {
  const end = msOf(time);
  if (!Number.isFinite(end)) return '';
  let start = msOf(since);
  if (!Number.isFinite(start) || start > end) start = end;
  const today = new Date(now);
  const last = new Date(end);
  const options = { ...CLOCK };
  if (last.toDateString() !== today.toDateString() || new Date(start).toDateString() !== today.toDateString()) {
    options.month = 'short';
    options.day = 'numeric';
    if (last.getFullYear() !== today.getFullYear()) options.year = 'numeric';
  }
  const format = new Intl.DateTimeFormat(locale, options);
  return format.formatRange ? format.formatRange(new Date(start), last) : format.format(last);
}

/** What the list calls `v`: its name, "Saved version", or "Autosaved" (its span beside it). */
export function titleOf(v) {
  const kind = kindOf(v);
  if (kind === 'named') return v.name;
  return kind === 'saved' ? 'Saved version' : 'Autosaved';
}

/**
 * What the name form sends for `v` when `typed` is submitted: {name} (a string, or null to
 * take its name away when left empty), {unchanged: true} for the name it has, {empty: true}
 * for no name on a version that has none.
 */
export function nameChange(v, typed) {
  const name = String(typed ?? '').trim();
  const named = kindOf(v) === 'named';
  if (!name) return named ? { name: null } : { empty: true };
  if (named && name === v.name) return { unchanged: true };
  return { name };
}

/** `v` in a sentence ("since …", "View …"): the name or kind, and its number. */
export function describe(v, now = Date.now()) {
  const kind = kindOf(v);
  if (kind === 'named') return `“${v.name}” (version ${v.number})`;
  if (kind === 'saved') return `version ${v.number}`;
  return `the autosave of ${spanText(v.since, v.time, now)} (version ${v.number})`;
}

/** `list` sorted by number, oldest first, one entry per number. */
export function sorted(list) {
  const byNumber = new Map();
  for (const v of list || []) if (v && Number.isInteger(v.number)) byNumber.set(v.number, v);
  return [...byNumber.values()].sort((a, b) => a.number - b.number);
}

/**
 * The list after a `saved` event (or a save's answer): `v` is in it, and the version it
 * took the place of (`v.replaced`, a number, or null) is not, unless it is no longer a
 * checkpoint here (named meanwhile: the server keeps it, as it keeps every named one);
 * nor are the checkpoints it dropped to stay within the document's budget (`v.dropped`).
 */
export function applySaved(list, v) {
  const kept = list.find((x) => x.number === v.replaced);
  const gone = new Set(droppedBy(v));
  if (Number.isInteger(v.replaced) && !(kept && !kept.automatic)) gone.add(v.replaced);
  const { replaced, dropped, ...version } = v;
  return sorted(list.filter((x) => !gone.has(x.number) && x.number !== v.number).concat([version]));
}

/** The numbers of the checkpoints a `saved` event dropped (`dropped`), oldest first. */
export function droppedBy(v) {
  return Array.isArray(v && v.dropped) ? v.dropped.filter(Number.isInteger) : [];
}

/**
 * The list after a `versionRemoved` event (or a DELETE's answer): version `number` is not
 * in it. Heard twice, or for a version not listed, the list is the same one.
 */
export function applyRemoved(list, number) {
  if (!list.some((x) => x.number === number)) return list;
  return list.filter((x) => x.number !== number);
}

/**
 * The list after a `version` event (or a PATCH's answer): `v` takes the place of the
 * version of its number, so a checkpoint given a name is one no longer; one not listed
 * yet is added in order.
 */
export function applyVersion(list, v) {
  if (!v || !Number.isInteger(v.number)) return list;
  const { replaced, dropped, ...version } = v;
  return sorted(list.filter((x) => x.number !== v.number).concat([version]));
}

/**
 * The rows of the panel, newest first: {version} for a save made on purpose or a lone
 * checkpoint, {group: [versions, newest first]} for two or more checkpoints in a row.
 */
export function rows(list) {
  const out = [];
  let run = [];
  const flush = () => {
    if (run.length === 1) out.push({ version: run[0] });
    else if (run.length > 1) out.push({ group: run });
    run = [];
  };
  for (const v of sorted(list).reverse()) {
    if (v.automatic) { run.push(v); continue; }
    flush();
    out.push({ version: v });
  }
  flush();
  return out;
}

/** A group's key, kept while it grows or its newest checkpoint is replaced: its oldest number. */
export function groupKey(group) { return group[group.length - 1].number; }

/**
 * The groups open after the list went from `before` to `after`, given those open before
 * (`open`, a Set of keys): a group stays open while it lasts, and one holding a checkpoint
 * of an open group is open (naming a checkpoint splits its group: both parts stay open).
 */
export function openGroups(before, after, open) {
  const shown = new Set();
  for (const r of rows(before)) if (r.group && open.has(groupKey(r.group))) for (const v of r.group) shown.add(v.number);
  const out = new Set();
  for (const r of rows(after)) {
    if (!r.group) continue;
    const key = groupKey(r.group);
    if (open.has(key) || r.group.some((v) => shown.has(v.number))) out.add(key);
  }
  return out;
}

/** The time a group covers, from its oldest checkpoint's start to its newest's end. */
export function groupSpan(group, now = Date.now()) {
  const oldest = group[group.length - 1];
  return spanText(oldest.since ?? oldest.time, group[0].time, now);
}
