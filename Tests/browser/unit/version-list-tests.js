// Unit tests for Public/js/version-list.js: the Versions panel's list as data, kinds,
// names, the `saved` event's replacements, and runs of checkpoints folded into groups.
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
