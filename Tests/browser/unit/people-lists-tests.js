// Unit tests for the home page's three lists (list.js: which list a document is in, and the
// role a row goes by) and for one avatar per person (presence-ui.js).
import { placeOf, roleOf, sections } from '../../../Public/js/list.js';
import { perPerson } from '../../../Public/js/presence-ui.js';
import { eq, suite } from './harness.js';

const { tests, test, run } = suite();
export { tests, run };

const ids = (list) => list.map((d) => d.id);

test('each document is in one list: mine, shared with me, or recent', () => {
  const { mine, shared, recent } = sections([
    { id: 'a', role: 'owner', modified: '2024-01-01T00:00:00Z', opened: null },
    { id: 'b', role: 'editor', modified: '2024-01-02T00:00:00Z', opened: '2024-01-03T00:00:00Z' },
    { id: 'c', role: 'viewer', modified: '2024-01-03T00:00:00Z', opened: null },
    { id: 'd', role: null, modified: '2024-01-04T00:00:00Z', opened: '2024-01-05T00:00:00Z' },
  ]);
  eq([ids(mine), ids(shared), ids(recent)], [['a'], ['c', 'b'], ['d']]);
});

test('recent is newest opened first, whenever each was edited', () => {
  const { recent } = sections([
    { id: 'old', role: null, modified: '2024-02-01T00:00:00Z', opened: '2024-01-01T00:00:00Z' },
    { id: 'new', role: null, modified: '2024-01-01T00:00:00Z', opened: '2024-03-01T00:00:00Z' },
  ]);
  eq(ids(recent), ['new', 'old']);
});

test('times in seconds since 1970 sort as numbers, not as text', () => {
  const { mine } = sections([
    { id: 'earlier', role: 'owner', modified: 999999999.5 },
    { id: 'later', role: 'owner', modified: 1700000000.25 },
    { id: 'never', role: 'owner', modified: null },
  ]);
  eq(ids(mine), ['later', 'earlier', 'never']);
});

test('a link this browser holds raises the role, never lowers it', () => {
  eq(roleOf({ role: null }, { role: 'owner' }), 'owner');
  eq(roleOf({ role: 'viewer' }, { role: 'editor' }), 'editor');
  eq(roleOf({ role: 'owner' }, { role: 'viewer' }), 'owner');
  eq(roleOf({ role: 'editor' }, null), 'editor');
  eq(roleOf({}, null), null, 'a list without roles');
});

test('an owner link this browser holds lists the document as mine; a share link does not move it', () => {
  eq(placeOf({ role: null }, { role: 'owner' }), 'owner');
  eq(placeOf({ role: null }, { role: 'editor' }), null);
  eq(placeOf({ role: 'viewer' }, { role: 'editor' }), 'viewer');
  eq(placeOf({ role: 'editor' }, null), 'editor');
});

test('a user with two tabs is one avatar, a guest is one per session', () => {
  const people = [
    { id: 's1', user: 'u1', name: 'Ada' },
    { id: 'g1', user: null, name: 'Ken (guest)' },
    { id: 's2', user: 'u1', name: 'Ada' },
    { id: 'g2', user: null, name: 'Ken (guest)' },
  ];
  eq(ids(perPerson(people, 'g1')), ['s1', 'g1', 'g2']);
});

test('my own tabs are one avatar, shown by this tab\'s session', () => {
  const people = [{ id: 's1', user: 'u1' }, { id: 's2', user: 'u1' }, { id: 's3', user: 'u2' }];
  eq(ids(perPerson(people, 's2')), ['s2', 's3']);
});
