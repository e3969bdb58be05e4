// Unit tests for sharing a pasteboard with people by sign-in name (pasteboard-people.js):
// the names typed in one field, which typed name is which person, what unknown_user says.
import { matchNames, parseNames, unknownUser } from '../../../Public/js/pasteboard-people.js';
import { eq, suite } from './harness.js';

const { tests, test, run } = suite();
export { tests, run };

test('names are split at commas and spaces, each once whatever its case', () => {
  eq(parseNames('ada, Bob,bob  cy'), { names: ['ada', 'Bob', 'cy'] });
  eq(parseNames('ada.l@x_y-z'), { names: ['ada.l@x_y-z'] });
});

test('no name, or one no account could have, is said before anything is sent', () => {
  eq(parseNames(' , ').error, 'Enter the sign-in names of the people to share it with, separated by commas.');
  eq(parseNames('not a name!').error, '“name!” is not a sign-in name: they have letters, digits and . _ - @ only.');
  eq(parseNames('x'.repeat(65)).error !== undefined, true);
  eq(parseNames(Array.from({ length: 101 }, (_, i) => `u${i}`).join(',')).error,
    'A pasteboard can be shared with at most 100 people.');
  eq(parseNames(Array.from({ length: 100 }, (_, i) => `u${i}`).join(',')).names.length, 100);
});

test('the server sorts the people it answers: typed names are matched by name, not order', () => {
  eq(matchNames([{ person: 'user:1', name: 'bob' }, { person: 'user:2', name: 'Cy' }], ['cy', 'Bob']),
    { 'user:1': 'Bob', 'user:2': 'cy' });
  // One name typed, one person answered: that is who it is, whatever their display name.
  eq(matchNames([{ person: 'user:1', name: 'Bob Builder' }], ['user1-bob']), { 'user:1': 'user1-bob' });
  eq(matchNames([{ person: 'user:1', name: null }], ['bob']), { 'user:1': 'bob' });
  // Two display names, two names typed: unknown, unless remembered from before.
  eq(matchNames([{ person: 'user:1', name: 'Bob B' }, { person: 'user:2', name: 'Cy D' }], ['b', 'c']), {});
  eq(matchNames([{ person: 'user:1', name: 'Bob B' }, { person: 'user:2', name: 'Cy D' }], ['b', 'c'], { 'user:1': 'b' }),
    { 'user:1': 'b' });
});

test('unknown_user names the name nobody has when the server quotes it', () => {
  eq(unknownUser(['no', 'nobody', 'a.b'], "no user signs in as 'nobody'"), 'No one has the user name “nobody”. Nothing was shared.');
  eq(unknownUser(['axb', 'a.b'], "no user signs in as 'a.b'"), 'No one has the user name “a.b”. Nothing was shared.');
  eq(unknownUser(['x'], ''), 'No one has the user name “x”. Nothing was shared.');
  eq(unknownUser(['x', 'y'], 'unknown'), 'No one has one of these user names: x, y. Nothing was shared.');
});
