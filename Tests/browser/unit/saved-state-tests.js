// Unit tests for Public/js/saved-state.js: "Unsaved changes" exactly when the committed text
// differs from the last saved version's, as the server's hasUnsavedChanges has it.
import * as ss from '../../../Public/js/saved-state.js';
import { eq, suite } from './harness.js';

const { tests, test, run } = suite();
export { tests, run };

test('a document opened saved compares every change with its text', () => {
  let s = ss.opened({ text: 'Hello', hasUnsavedChanges: false });
  eq(s.unsaved, false);
  s = ss.committed(s, 'Hello world');
  eq(s.unsaved, true);
  s = ss.committed(s, 'Hello');
  eq(s.unsaved, false, 'undone back to the saved text');
});

test('a document opened unsaved keeps the server\'s word until a version is known', () => {
  let s = ss.opened({ text: 'Hello', hasUnsavedChanges: true });
  eq([ss.unknown(s), s.unsaved], [true, true]);
  eq(ss.committed(s, 'anything').unsaved, true, 'no saved text to compare with');
  s = ss.told(s, false);
  eq(s.unsaved, false);
  s = ss.savedAs('Hel', 'Hello');
  eq([ss.unknown(s), s.unsaved], [false, true]);
  eq(ss.committed(s, 'Hel').unsaved, false);
});

test('once the saved text is known the server\'s older word does not override it', () => {
  const s = ss.savedAs('a', 'a');
  eq(ss.told(s, true), s);
});

test('a change that keeps the answer keeps the state object', () => {
  const s = ss.committed(ss.opened({ text: 'a', hasUnsavedChanges: false }), 'ab');
  eq(ss.committed(s, 'abc') === s, true);
});
