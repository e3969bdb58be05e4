// Copying a text the page shows in a read-only field (a share link): the Clipboard API
// where the browser allows it, else the selected field and the browser's copy command;
// failing both, the text stays selected for Ctrl+C.

export async function copyText(text, field) {
  const clip = navigator.clipboard;
  if (clip && typeof clip.writeText === 'function') {
    try {
      await clip.writeText(text);
      return true;
    } catch { /* not allowed here: select and copy */ }
  }
  field.focus();
  field.select();
  try {
    return document.execCommand('copy');
  } catch {
    return false;
  }
}

/** Wires a Copy button to a read-only field, `status` saying what happened. */
export function copyButton(button, field, status) {
  field.addEventListener('focus', () => field.select());
  button.addEventListener('click', async () => {
    status.textContent = '';
    const copied = await copyText(field.value, field);
    status.textContent = copied ? 'Copied to the clipboard.' : 'Could not copy: the link is selected, press Ctrl+C (⌘C on a Mac).';
  });
}
