// The owner link of a new document, shown this once (the server keeps only its hash):
// a dialog with the link and a Copy button. This browser remembers it (links.js), so
// every tab here stays the owner after the creating tab's session ends.
import { $ } from './ui.js';
import { linkURL } from './links.js';
import { copyButton } from './copy-text.js';

export class OwnerLinkUI {
  constructor() {
    copyButton($('#owner-link-copy'), $('#owner-link-url'), $('#owner-link-status'));
  }

  /** `doc` is the answer to POST /documents, with its ownerLink; `then()` runs once it is closed. */
  show(doc, then = () => {}) {
    const dialog = $('#owner-link-dialog');
    const title = doc.title || 'Untitled';
    $('#owner-link-heading').textContent = `Owner link for “${title}”`;
    $('#owner-link-url').value = linkURL(doc.id, doc.ownerLink.token);
    $('#owner-link-status').textContent = '';
    dialog.returnValue = '';
    dialog.addEventListener('close', then, { once: true });
    if (!dialog.open) dialog.showModal();
    $('#owner-link-copy').focus();
  }
}
