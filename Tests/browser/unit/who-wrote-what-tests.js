// Unit tests for issue 42's pure parts: what a history entry did in words
// (history-preview.js), a diff laid over the earlier text (diff-view.js), and authors'
// tints that keep the text readable (authorship-colors.js).
import { describe } from '../../../Public/js/history-preview.js';
import { pieces, trimmed } from '../../../Public/js/diff-view.js';
import { tintAlpha, worstContrast, fallbackColor } from '../../../Public/js/authorship-colors.js';
import { eq, suite } from './harness.js';

const { tests, test, run } = suite();
export { tests, run };

// The server's session colours (SessionRegistry's palette) and the fallbacks.
const PALETTE = ['#e6194b', '#3cb44b', '#4363d8', '#f58231', '#911eb4', '#42d4f4',
  '#f032e6', '#469990', '#9a6324', '#800000', '#808000', '#000075', '#ffe119', '#ffffff', '#000000'];

test('a history entry says what it inserted and where', () => {
  const entry = { actionName: 'Typing', preview: { position: 10, inserted: 'Thanks from you', deleted: '', insertedCount: 15, deletedCount: 0 } };
  eq(describe(entry), 'Typing "Thanks from you" at 10');
});

test('a deletion says what it deleted; more than the preview holds ends in an ellipsis', () => {
  eq(describe({ actionName: 'Typing', preview: { position: 0, inserted: '', deleted: 'Dear ', insertedCount: 0, deletedCount: 5 } }), 'Deleted "Dear " at 0');
  const long = 'x'.repeat(40);
  eq(describe({ actionName: 'Paste', preview: { position: 3, inserted: long, deleted: '', insertedCount: 900, deletedCount: 0 } }), `Paste "${long}…" at 3`);
});

test('a replacement names both sides, line breaks shown; no preview says nothing', () => {
  eq(describe({ actionName: 'Paste', preview: { position: 1, inserted: 'a\nb', deleted: 'c', insertedCount: 3, deletedCount: 1 } }), 'Paste: "c" → "a⏎b" at 1');
  eq(describe({ actionName: 'Typing', preview: null }), '');
});

test('a diff over the earlier text gives the later text with the deletions between', () => {
  const changes = [{ kind: 'delete', at: 0, text: 'Dear ', author: null }, { kind: 'insert', at: 5, text: 'Thanks ', author: 's1' }];
  const p = pieces('Dear Ann, hello', changes);
  eq(p.map((x) => [x.kind, x.text]), [['delete', 'Dear '], ['same', 'Ann, '], ['insert', 'Thanks '], ['same', 'hello']]);
  eq(p.filter((x) => x.kind !== 'delete').map((x) => x.text).join(''), 'Ann, Thanks hello');
});

test('long unchanged stretches keep only some context around the changes', () => {
  const p = trimmed([{ kind: 'same', text: 'a'.repeat(500) }, { kind: 'insert', text: 'X' }, { kind: 'same', text: 'b'.repeat(500) }]);
  eq(p[0].text, `…${'a'.repeat(60)}`);
  eq(p[2].text, `${'b'.repeat(60)}…`);
  eq(p[1].text, 'X');
});

test('every session colour tints at 4.5:1 or better in both themes', () => {
  for (const c of [...PALETTE, fallbackColor('s_gone'), fallbackColor('user:ada')]) {
    const a = tintAlpha(c);
    eq(a > 0 && worstContrast(c, a) >= 4.5, true, `${c} at ${a}`);
  }
});
