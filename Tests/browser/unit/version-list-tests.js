// Unit tests for Public/js/version-list.js: the Versions panel's list as data, kinds,
// names, the `saved`, `version` and `versionRemoved` events, and runs of checkpoints folded
// into groups.
import * as vl from '../../../Public/js/version-list.js';
import { eq, suite } from './harness.js';

const { tests, test, run } = suite();
export { tests, run };

const T = Date.UTC(2031, 2, 3, 10, 2, 0) / 1000; // seconds, as the server sends them
const saved = (number, name = null) => ({ number, revision: number, time: T + number, length: 1, name, automatic: false, since: null });
const auto = (number, since = T) => ({ number, revision: number, time: T + number * 60, length: 1, name: null, automatic: true, since });

test('a version is named, saved without a name, or automatic', () => {
  eq([vl.kindOf(saved(1, 'Draft')), vl.kindOf(saved(2)), vl.kindOf(saved(3, '')), vl.kindOf(auto(4))],
    ['named', 'saved', 'saved', 'automatic']);
  eq([vl.titleOf(saved(1, 'Draft')), vl.titleOf(saved(2)), vl.titleOf(auto(4))], ['Draft', 'Saved version', 'Autosaved']);
});

test('a saved event adds its version in order and removes the one it replaced', () => {
  let list = [saved(1), auto(2)];
  list = vl.applySaved(list, { ...auto(3), replaced: 2 });
  eq(list.map((v) => v.number), [1, 3]);
  eq('replaced' in list[1], false, 'the event\'s extra field is not kept');
  list = vl.applySaved(list, { ...auto(3), replaced: 2 });
  eq(list.map((v) => v.number), [1, 3], 'heard twice, listed once');
  list = vl.applySaved(list, { ...saved(4, 'Final'), replaced: null });
  eq(list.map((v) => v.number), [1, 3, 4]);
});

test('two or more checkpoints in a row fold into a group, newest first; a lone one does not', () => {
  const list = [saved(1, 'Draft'), auto(2), auto(3), auto(4), saved(5), auto(6)];
  const rows = vl.rows(list);
  eq(rows.map((r) => (r.group ? r.group.map((v) => v.number) : r.version.number)), [6, 5, [4, 3, 2], 1]);
  eq(vl.groupKey(rows[2].group), 2, 'a group is known by its oldest checkpoint');
  eq(vl.rows([]), []);
});

test('a span is one clock time within a minute and a range across minutes, today without the date', () => {
  const now = (T + 7 * 60) * 1000; // the same day as T in every time zone
  const clock = new Intl.DateTimeFormat('en-US', { hour: 'numeric', minute: '2-digit' });
  const start = new Date(T * 1000);
  const end = new Date((T + 7 * 60) * 1000);
  eq(vl.spanText(T, T + 20, now, 'en-US'), clock.format(start));
  eq(vl.spanText(T, T + 7 * 60, now, 'en-US'), clock.formatRange(start, end));
  eq(/^\d{1,2}:\d\d\s?[AP]M\s?–\s?\d{1,2}:\d\d\s?[AP]M$|^\d{1,2}:\d\d\s?–\s?\d{1,2}:\d\d\s?[AP]M$/.test(vl.spanText(T, T + 7 * 60, now, 'en-US')), true,
    vl.spanText(T, T + 7 * 60, now, 'en-US'));
});

test('a span on another day than today names the date', () => {
  const now = (T + 3 * 86400) * 1000;
  const text = vl.spanText(T, T + 7 * 60, now, 'en-US');
  eq(text.startsWith('Mar 3, '), true, text);
  const nextYear = vl.spanText(T, T + 60, (T + 400 * 86400) * 1000, 'en-US');
  eq(nextYear.includes('2031'), true, nextYear);
});

test('a version in a sentence names it, or says what kind it is', () => {
  const now = (T + 3600) * 1000;
  eq(vl.describe(saved(1, 'Draft'), now), '“Draft” (version 1)');
  eq(vl.describe(saved(2), now), 'version 2');
  eq(vl.describe(auto(3), now), `the autosave of ${vl.spanText(T, T + 180, now)} (version 3)`);
});

test('a group covers its oldest checkpoint\'s start to its newest\'s end', () => {
  const now = (T + 3600) * 1000;
  const group = [auto(4, T + 200), auto(3, T + 100)];
  eq(vl.groupSpan(group, now), vl.spanText(T + 100, T + 240, now));
});

test('a version event names a version in place: same numbers, the new name, the named kind', () => {
  const list = [saved(1), saved(2, 'Draft'), saved(3)];
  const after = vl.applyVersion(list, { ...saved(1), name: 'First' });
  eq(after.map((v) => [v.number, vl.kindOf(v), vl.titleOf(v)]), [[1, 'named', 'First'], [2, 'named', 'Draft'], [3, 'saved', 'Saved version']]);
  eq(list[0].name, null, 'the list it was given is not changed');
  const unnamed = vl.applyVersion(after, { ...saved(2), name: null });
  eq(unnamed.map((v) => vl.titleOf(v)), ['First', 'Saved version', 'Saved version'], 'a name taken away');
  eq(vl.applyVersion(after, { ...saved(1), name: 'First' }), after, 'heard twice, the same list');
});

test('a checkpoint named inside a group leaves it, keeps its span, and splits the group', () => {
  const list = [saved(1, 'Outline'), auto(2, T + 60), auto(3, T + 150), auto(4, T + 210), auto(5, T + 270)];
  eq(vl.rows(list).map((r) => (r.group ? r.group.map((v) => v.number) : r.version.number)), [[5, 4, 3, 2], 1]);
  const named = { ...auto(3, T + 150), name: 'Before the cut', automatic: false };
  const after = vl.applyVersion(list, named);
  eq(after.map((v) => v.number), [1, 2, 3, 4, 5]);
  eq([vl.kindOf(after[2]), vl.titleOf(after[2]), after[2].since, after[2].time], ['named', 'Before the cut', T + 150, T + 180]);
  eq(vl.rows(after).map((r) => (r.group ? r.group.map((v) => v.number) : r.version.number)), [[5, 4], 3, 2, 1]);
  // The group was open: what is left of it stays open under its new key.
  eq([...vl.openGroups(list, after, new Set([2]))], [4]);
  eq([...vl.openGroups(list, after, new Set())], [], 'a closed group stays closed');
  // Its name taken away, it is a save without a name, still out of the group.
  const unnamed = vl.applyVersion(after, { ...named, name: null });
  eq([vl.kindOf(unnamed[2]), unnamed[2].since], ['saved', T + 150]);
  eq(vl.rows(unnamed).map((r) => (r.group ? r.group.map((v) => v.number) : r.version.number)), [[5, 4], 3, 2, 1]);
});

test('a version event for a version not listed yet adds it in order', () => {
  eq(vl.applyVersion([saved(1), saved(3)], saved(2, 'Middle')).map((v) => [v.number, v.name]), [[1, null], [2, 'Middle'], [3, null]]);
  eq(vl.applyVersion([saved(1)], { number: 'x' }).map((v) => v.number), [1], 'one without a number changes nothing');
});

test('a saved event does not remove the checkpoint it replaced once that was named', () => {
  const list = vl.applyVersion([saved(1), auto(2)], { ...auto(2), name: 'Kept', automatic: false });
  eq(vl.applySaved(list, { ...auto(3), replaced: 2 }).map((v) => [v.number, vl.titleOf(v)]), [[1, 'Saved version'], [2, 'Kept'], [3, 'Autosaved']]);
});

test('the name form sends a new name, null for an emptied name, and nothing otherwise', () => {
  eq(vl.nameChange(auto(2), '  Sent to Ann '), { name: 'Sent to Ann' });
  eq(vl.nameChange(saved(1), 'First'), { name: 'First' });
  eq(vl.nameChange(saved(1, 'Draft'), 'Final'), { name: 'Final' });
  eq(vl.nameChange(saved(1, 'Draft'), '   '), { name: null });
  eq(vl.nameChange(saved(1, 'Draft'), ' Draft'), { unchanged: true });
  eq(vl.nameChange(auto(2), ''), { empty: true });
  eq(vl.nameChange(saved(1), ''), { empty: true });
});

const numbers = (list) => list.map((v) => v.number);
const shape = (list) => vl.rows(list).map((r) => (r.group ? r.group.map((v) => v.number) : r.version.number));

test('a saved event removes the checkpoints it dropped, also from inside a group, and keeps no dropped field', () => {
  const list = [auto(1), auto(2), saved(3, 'Draft'), auto(4), auto(5), auto(6), saved(7)];
  eq(shape(list), [7, [6, 5, 4], 3, [2, 1]]);
  const after = vl.applySaved(list, { ...saved(8, 'Final'), replaced: null, dropped: [1, 2, 4] });
  eq(numbers(after), [3, 5, 6, 7, 8]);
  eq(shape(after), [8, 7, [6, 5], 3]);
  eq(Object.keys(after[4]), ['number', 'revision', 'time', 'length', 'name', 'automatic', 'since'], 'the event\'s extra fields are not kept');
  eq(vl.applySaved(after, { ...saved(8, 'Final'), replaced: null, dropped: [1, 2, 4] }), after, 'heard twice, the same list');
  eq(list.length, 7, 'the list it was given is not changed');
});

test('a saved event can replace the newest checkpoint and drop the oldest at once', () => {
  const list = [auto(1), saved(2), auto(3)];
  eq(numbers(vl.applySaved(list, { ...auto(4), replaced: 3, dropped: [1] })), [2, 4]);
  eq(numbers(vl.applySaved(list, { ...auto(4), replaced: 3 })), [1, 2, 4], 'an event without dropped drops nothing');
  eq(numbers(vl.applySaved(list, { ...auto(4), replaced: 3, dropped: ['1', null] })), [1, 2, 4], 'only numbers are dropped');
  eq([vl.droppedBy({ dropped: [5, 2] }), vl.droppedBy({}), vl.droppedBy(null)], [[5, 2], [], []]);
});

test('a removed version leaves the list, a group included, and removing it again changes nothing', () => {
  const list = [saved(1, 'Outline'), auto(2), auto(3), auto(4), saved(5)];
  const after = vl.applyRemoved(list, 3);
  eq(numbers(after), [1, 2, 4, 5]);
  eq(shape(after), [5, [4, 2], 1]);
  eq(vl.applyRemoved(after, 3), after, 'heard twice (our DELETE\'s answer, then the event): the same list');
  eq(numbers(vl.applyRemoved(after, 99)), [1, 2, 4, 5], 'one not listed changes nothing');
  eq(numbers(list), [1, 2, 3, 4, 5], 'the list it was given is not changed');
  // Down to one checkpoint, the group is a lone entry; a named version removed leaves its neighbours apart.
  eq(shape(vl.applyRemoved(after, 2)), [5, 4, 1]);
  eq(shape(vl.applyRemoved([auto(1), saved(2), auto(3)], 2)), [[3, 1]], 'checkpoints on both sides fold together');
  eq(vl.applyRemoved([], 1), []);
});

test('an open group whose oldest checkpoint is dropped or removed stays open', () => {
  const list = [saved(1), auto(2), auto(3), auto(4)];
  eq(vl.groupKey(vl.rows(list)[0].group), 2);
  const dropped = vl.applySaved(list, { ...saved(5, 'Kept'), replaced: null, dropped: [2] });
  eq([...vl.openGroups(list, dropped, new Set([2]))], [3], 'open under its new key');
  eq([...vl.openGroups(list, dropped, new Set())], [], 'closed stays closed');
  const removed = vl.applyRemoved(list, 2);
  eq([...vl.openGroups(list, removed, new Set([2]))], [3]);
});
