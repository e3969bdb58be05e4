// Unit tests for Public/js/undo-notices.js: what an undo or redo tells the person. A change
// names the session that made the request (`session`) and whose group it reverted
// (`reverts`), so "someone undid your change" is decided by `reverts`, not by `session`.
import * as un from '../../../Public/js/undo-notices.js';
import { eq, suite } from './harness.js';

const { tests, test, run } = suite();
export { tests, run };

const names = new Map([['ada', 'Ada (guest)'], ['bob', 'Bob']]);
const nameOf = (s) => un.displayName(s ? names.get(s) : null);

/** A change as the server sends it: an undo by `by` of `owner`'s group. */
function undo(by, owner, { actionName = 'Greet', partial = false, notReverted = 0, kind = 'undo' } = {}) {
  return { revision: 7, ops: [3, -6], kind, actionName, session: by, reverts: { session: owner, group: 4 }, partial, notReverted };
}

test('an undo answer says what it undid; a partial one says what it left', () => {
  eq(un.resultMessage('undo', { actionName: 'Greet', partial: false }), 'Undid Greet');
  eq(un.resultMessage('undo', { actionName: 'Greet', partial: true, notReverted: 6 }),
    'Undid Greet, except text others changed');
  eq(un.resultMessage('redo', { actionName: 'Greet', partial: true }), 'Redid Greet, except text others changed');
  eq(un.resultMessage('redo', { actionName: 'Typing' }), 'Redid Typing', 'an answer without partial is whole');
});

test('an unnamed group is a "change"; someone else\'s is theirs', () => {
  eq(un.resultMessage('undo', { actionName: '', partial: false }), 'Undid change');
  eq(un.resultMessage('undo', { actionName: null, partial: true }), 'Undid change, except text others changed');
  eq(un.resultMessage('undo', { actionName: 'Typing', partial: false }, 'Ada'), 'Undid Ada’s Typing');
  eq(un.resultMessage('redo', { actionName: 'Typing', partial: true }, 'Frances'),
    'Redid Frances’s Typing, except text others changed');
});

test('othersGroup names the owner only when the group was someone else\'s', () => {
  eq(un.othersGroup(undo('bob', 'ada'), 'bob'), 'ada');
  eq(un.othersGroup(undo('bob', 'bob'), 'bob'), null, 'our own group');
  eq(un.othersGroup(undo('bob', null), 'bob'), null, 'the anonymous context');
  eq(un.othersGroup({ kind: 'edit', session: 'bob', reverts: null }, 'bob'), null, 'an edit');
  eq(un.othersGroup({ actionName: 'Typing' }, 'bob'), null, 'an answer without reverts');
});

test('someone else undoing a group of ours is named, from presence', () => {
  eq(un.undoneByOthersNotice(undo('bob', 'ada'), 'ada', nameOf), 'Bob undid your Greet');
  eq(un.undoneByOthersNotice(undo('ada', 'bob', { actionName: 'Typing' }), 'bob', nameOf), 'Ada undid your Typing',
    'a guest is named without "(guest)"');
  eq(un.undoneByOthersNotice(undo('bob', 'ada', { partial: true, notReverted: 6 }), 'ada', nameOf),
    'Bob undid your Greet, except text others changed');
  eq(un.undoneByOthersNotice(undo('bob', 'ada', { actionName: '' }), 'ada', nameOf), 'Bob undid your change');
});

test('an unknown or anonymous undoer is "Someone"', () => {
  eq(un.undoneByOthersNotice(undo('zed', 'ada'), 'ada', nameOf), 'Someone undid your Greet');
  eq(un.undoneByOthersNotice(undo(null, 'ada'), 'ada', nameOf), 'Someone undid your Greet');
  eq(un.displayName(undefined), 'Someone');
  eq(un.displayName('Grace (guest)'), 'Grace');
});

test('no notice for our own undo, others\' groups, redo or edits (the old rule is gone)', () => {
  eq(un.undoneByOthersNotice(undo('ada', 'ada'), 'ada', nameOf), null, 'our own undo of our own group');
  // The old rule took an undo carrying our session for someone undoing ours: now that
  // session is the undoer, so our undo of Bob's group (everyone's scope) says nothing here.
  eq(un.undoneByOthersNotice(undo('ada', 'bob'), 'ada', nameOf), null, 'our undo of someone else\'s group');
  eq(un.undoneByOthersNotice(undo('bob', 'grace'), 'ada', nameOf), null, 'someone else\'s group');
  eq(un.undoneByOthersNotice(undo('bob', null), 'ada', nameOf), null, 'the anonymous context');
  eq(un.undoneByOthersNotice(undo('bob', 'ada', { kind: 'redo' }), 'ada', nameOf), null, 'a redo');
  eq(un.undoneByOthersNotice({ kind: 'edit', session: 'bob', reverts: null, partial: false }, 'ada', nameOf), null);
  eq(un.undoneByOthersNotice({ kind: 'undo', session: 'bob', actionName: 'Greet' }, 'ada', nameOf), null, 'no reverts');
  eq(un.undoneByOthersNotice(undo('bob', null), null, nameOf), null, 'no session of ours');
});

test('our undo stack is touched by our changes and by reverts of our groups', () => {
  eq(un.touchesOwnHistory({ kind: 'edit', session: 'ada', reverts: null }, 'ada'), true);
  eq(un.touchesOwnHistory(undo('bob', 'ada'), 'ada'), true, 'Bob undid our group');
  eq(un.touchesOwnHistory(undo('ada', 'bob'), 'ada'), true, 'our undo of Bob\'s group');
  eq(un.touchesOwnHistory(undo('bob', 'bob'), 'ada'), false);
  eq(un.touchesOwnHistory({ kind: 'edit', session: 'bob', reverts: null }, 'ada'), false);
  eq(un.touchesOwnHistory({ kind: 'edit', session: null, reverts: null }, null), false, 'no session of ours');
});
