// Tandem's browser client: routes between the document list and one open document
// (the address holds it: #/doc/<id>, so a link can be shared; #/doc/<id>?link=<token>
// opens it with a share link, which this browser then keeps for the document).
import { Api, enc } from './api.js';
import { $, toast } from './ui.js';
import { ListView } from './list.js';
import { DocView } from './docview.js';
import { shakeSetting, requestMotionPermission } from './shake.js';
import { AccountUI } from './account-ui.js';

const api = new Api();
const doc = new DocView(api);
const list = new ListView(api, { focusEditor: (id) => doc.focusWhenShown(id) });
// The owner deletes the open document (Share): the list shows it going, with Undo.
window.addEventListener('tandem:delete', (e) => {
  location.hash = '#/';
  list.deleteSoon(e.detail);
});

/**
 * Signs in or out (`change`), then goes on under the tab's new session: an open document
 * is opened again with it (what was typed and not yet sent is carried over), the list is
 * read again. When the server takes no guests and no one is signed in, nothing is shown
 * but the sign-in dialog.
 */
async function switchSession(change) {
  await change();
  try {
    await api.ensureSession();
  } catch (e) {
    if (e.code === 'guests_off') { doc.close(); list.hide(); return; }
    throw e;
  }
  if (doc.collab) doc.reopen(doc.collab);
  else route();
}

const account = new AccountUI(api, { switchSession });

function route() {
  // Without a guest session to use, there is only the sign-in dialog to show.
  if (api.guestsOff && !api.session) {
    account.openSignIn({ required: true });
    return;
  }
  const hash = location.hash || '#/';
  const query = new URLSearchParams(location.search);
  const m = hash.match(/^#\/doc\/([^?]+)(?:\?(.*))?$/);
  const id = m ? decodeURIComponent(m[1]) : query.get('doc');
  const link = m ? new URLSearchParams(m[2] || '').get('link') : query.get('link');
  if (id && link) {
    if (!api.links.open(id, link)) {
      toast('This browser holds the owner link of this document, so it opens as its owner. To see it as others do, open the link in a private window.', { ms: 8000 });
    }
    // The token leaves the address bar (and the history), where it could be copied on.
    if (m) history.replaceState(history.state, '', `${location.pathname}${location.search}#/doc/${enc(id)}`);
  }
  if (id) {
    list.hide();
    doc.show(id);
  } else {
    doc.close();
    list.show();
  }
}

function setupSettings() {
  const dialog = $('#settings-dialog');
  $('#settings-button').addEventListener('click', () => {
    $('#settings-name').value = (api.session && api.session.name) || '';
    $('#settings-shake').checked = shakeSetting.enabled;
    dialog.returnValue = '';
    dialog.showModal();
  });
  $('#settings-shake').addEventListener('change', async (e) => {
    if (e.target.checked) await requestMotionPermission();
  });
  dialog.addEventListener('close', async () => {
    if (dialog.returnValue !== 'ok') return;
    shakeSetting.enabled = $('#settings-shake').checked;
    const name = $('#settings-name').value.trim();
    if (name && (!api.session || name !== api.session.name)) {
      try {
        await api.renameSession(name);
      } catch (e) {
        toast(`Could not change your name: ${e.message}`, { kind: 'error' });
      }
    }
  });
}

/**
 * iOS grants motion events only from a user gesture, and shake to undo is on unless turned
 * off: ask on the first tap or key press, not only when the setting is toggled.
 */
function askForMotionOnFirstGesture() {
  const events = ['click', 'touchend', 'keydown'];
  const ask = () => {
    for (const type of events) window.removeEventListener(type, ask, true);
    if (shakeSetting.enabled) requestMotionPermission();
  };
  for (const type of events) window.addEventListener(type, ask, true);
}

setupSettings();
askForMotionOnFirstGesture();
window.addEventListener('hashchange', route);
api.ensureSession().catch(() => { /* retried on first request; guests_off: signing in */ }).finally(route);

// For the browser tests and for debugging from the console.
window.tandem = {
  api,
  get view() { return doc; },
  get collab() { return doc.collab; },
  /** Cuts the event stream as a network failure would (typing goes on). */
  dropEvents() { if (doc.collab) doc.collab.stream.stop(); },
  /** Reconnects it; it resumes with Last-Event-ID. */
  resumeEvents() { if (doc.collab) doc.collab.stream.start(); },
  shake() { doc.history.offerShake(); },
};
