// Unit tests for Public/js/links.js: which document a request path names, a link token's
// id, and the links this browser keeps (the owner link is never given up for a lesser one).
import { documentOf, linkIdOf, LinkStore } from '../../../Public/js/links.js';
import { eq, suite } from './harness.js';

const { tests, test, run } = suite();
export { tests, run };

/** Runs `fn` with an empty, private localStorage (Node has none; the page's is left alone). */
function withStorage(fn) {
  const map = new Map();
  const fake = { getItem: (k) => (map.has(k) ? map.get(k) : null), setItem: (k, v) => map.set(k, String(v)),
    removeItem: (k) => map.delete(k) };
  const had = Object.getOwnPropertyDescriptor(globalThis, 'localStorage');
  Object.defineProperty(globalThis, 'localStorage', { value: fake, configurable: true, writable: true });
  try { fn(); } finally {
    if (had) Object.defineProperty(globalThis, 'localStorage', had); else delete globalThis.localStorage;
  }
}

test('a path names its document, decoded; other paths name none', () => {
  eq(documentOf('/documents/abc'), 'abc');
  eq(documentOf('/documents/a%20b/events'), 'a b');
  eq(documentOf('/documents/x.y/history?scope=session'), 'x.y');
  eq(documentOf('/documents'), null);
  eq(documentOf('/documents?x=1'), null);
  eq(documentOf('/pasteboards/general'), null);
  eq(documentOf('/documents/%E0%A4'), null, 'a malformed escape');
});

test('a link token names its link by what comes before the dot', () => {
  eq(linkIdOf('l_abc.secret'), 'l_abc');
  eq(linkIdOf('nodot'), null);
  eq(linkIdOf(null), null);
});

test('links are kept per document; a refused one is forgotten once, and only if still held', () => withStorage(() => {
  const store = new LinkStore();
  const heard = [];
  store.onRejected((id) => heard.push(id));
  store.remember('d1', 'l_1.a', 'owner');
  store.open('d2', 'l_2.b');
  eq(store.get('d1'), { token: 'l_1.a', role: 'owner' });
  eq(store.token('d2'), 'l_2.b');
  eq(store.token('d3'), null);
  store.rejected('d2', 'l_old.x');
  eq(store.token('d2'), 'l_2.b', 'a refused token no longer held leaves the new one');
  store.rejected('d2', 'l_2.b');
  store.rejected('d2', 'l_2.b');
  eq(store.token('d2'), null);
  eq(heard, ['d2']);
}));

test('opening a link keeps the owner link this browser holds; another link is replaced', () => withStorage(() => {
  const store = new LinkStore();
  store.remember('d', 'l_owner.a', 'owner');
  eq(store.open('d', 'l_view.b'), false);
  eq(store.token('d'), 'l_owner.a');
  eq(store.open('d', 'l_owner.a'), true, 'its own owner link');
  store.remember('e', 'l_view.c');
  eq(store.open('e', 'l_edit.d'), true);
  eq(store.get('e'), { token: 'l_edit.d', role: null });
}));
