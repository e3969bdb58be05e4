// Unit tests for Public/js/line-index.js: line starts kept right through every kind of
// change, checked against the starts of the changed text found afresh.
import { LineIndex } from '../../../Public/js/line-index.js';
import { eq, suite } from './harness.js';

const { tests, test, run } = suite();
export { tests, run };

const fresh = (text) => new LineIndex(text).starts;

/** Replaces [from, to) of `text` with `insert` in an index and compares with a fresh one. */
function check(text, from, to, insert) {
  const idx = new LineIndex(text);
  const after = text.slice(0, from) + insert + text.slice(to);
  idx.splice(after, from, to, from + insert.length);
  eq(idx.starts, fresh(after), `${JSON.stringify(text)} [${from}, ${to}) → ${JSON.stringify(insert)}`);
  eq(idx.length, after.length);
}

test('a text\'s lines start after each line break', () => {
  eq(fresh(''), [0]);
  eq(fresh('ab\ncd\n'), [0, 3, 6]);
  const idx = new LineIndex('ab\ncd\n\nef');
  eq([idx.count, idx.lineAt(0), idx.lineAt(2), idx.lineAt(3), idx.lineAt(6), idx.lineAt(7), idx.lineAt(9)], [4, 0, 0, 1, 2, 3, 3]);
  eq([idx.start(1), idx.end(1), idx.end(3)], [3, 5, 9]);
});

test('typing, new lines, deleting line breaks and replacing across lines keep the starts right', () => {
  const t = 'one\ntwo\n\nthree\nfour';
  check(t, 1, 1, 'x');
  check(t, 4, 4, '\n');
  check(t, 3, 4, '');
  check(t, 3, 9, '');
  check(t, 2, 15, 'a\nb\nc');
  check(t, 0, t.length, '');
  check(t, t.length, t.length, '\nfive\n');
  check('', 0, 0, 'a\n\nb');
});

test('the splice says which old lines were replaced and by how many', () => {
  const idx = new LineIndex('one\ntwo\nthree');
  const after = 'one\nt\nX\nhree';
  eq(idx.splice(after, 5, 10, 9), { first: 1, removed: 2, added: 3 });
});
