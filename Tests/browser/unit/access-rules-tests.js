// Unit tests for Public/js/access-rules.js: a viewer link only where the address alone gives
// no editing, why not elsewhere, and the caller's own role said so that it never contradicts
// what the caller may do (a viewer on an open document can edit, and is told why).
import { aboutYou, sentence, viewerLinkAllowed, viewerLinkNote } from '../../../Public/js/access-rules.js';
import { eq, suite } from './harness.js';

const { tests, test, run } = suite();
export { tests, run };

test('a viewer link is offered only on a locked or private document', () => {
  eq(['open', 'editable', 'locked', 'private', undefined].map(viewerLinkAllowed), [false, false, true, true, false]);
});

test('where no viewer link is offered, one line says why and what to pick', () => {
  eq(viewerLinkNote('open'), 'Anyone with the address can already edit this open document: make it Locked or Private to share a read-only link.');
  eq(viewerLinkNote('editable'), 'Anyone using Tandem can already edit this editable document: make it Locked or Private to share a read-only link.');
  eq([viewerLinkNote('locked'), viewerLinkNote('private'), viewerLinkNote('unknown')], ['', '', '']);
});

test('a viewer the mode lets edit is told what applies, not that a viewer can edit', () => {
  eq(aboutYou({ role: 'viewer', mode: 'open', canEdit: true }),
    'You are a viewer, but this document is open: anyone with its address can edit it, so you can too.');
  eq(aboutYou({ role: 'viewer', mode: 'editable', canEdit: true }),
    'You are a viewer, but this document is editable: anyone using Tandem can edit it, so you can too.');
  eq(aboutYou({ role: 'viewer', mode: 'locked', canEdit: false }), 'You are a viewer and can read it but not edit it.');
  eq(aboutYou({ role: 'viewer', mode: 'locked', canEdit: true }), 'You are a viewer, but you can edit it.', 'never "a viewer and can edit"');
});

test('every other caller is told their role and what it lets them do', () => {
  eq(aboutYou({ role: 'editor', mode: 'locked', canEdit: true }), 'You are an editor and can edit it.');
  eq(aboutYou({ role: null, mode: 'open', canEdit: true }), 'You can edit it.');
  eq(aboutYou({ role: null, mode: 'locked', canEdit: false }), 'You can read it but not edit it.');
  eq(aboutYou({ role: 'editor', mode: 'open', canEdit: false }), 'You are an editor and can read it but not edit it.');
});

test('the server\'s message is shown as a sentence', () => {
  eq(sentence('revoke it first'), 'Revoke it first.');
  eq(sentence('Already one.'), 'Already one.');
  eq(sentence(''), '');
  eq(sentence(undefined), '');
});
