// Whether the document has unsaved changes, as GET /documents/{id}'s `hasUnsavedChanges`
// has it: the committed text differs from the last saved version's. Plain data and pure
// functions: the saved version's text is kept, so a change costs a comparison here, not a
// request. `savedText` is null while that text is unknown (the page opened on a document
// with unsaved changes); `unsaved` is then the server's last word.

/** From the document as GET /documents/{id} answered it. */
export function opened(doc) {
  return { savedText: doc.hasUnsavedChanges ? null : doc.text, unsaved: !!doc.hasUnsavedChanges };
}

/** The committed text is now `text`. */
export function committed(s, text) {
  if (s.savedText === null) return s;
  const unsaved = text !== s.savedText;
  return unsaved === s.unsaved ? s : { ...s, unsaved };
}

/** A version was saved (or read) with `savedText`; `text` is the committed text now. */
export function savedAs(savedText, text) {
  return { savedText, unsaved: text !== savedText };
}

/** The server said so (GET /documents/{id}) while the saved text is unknown. */
export function told(s, hasUnsavedChanges) {
  return s.savedText === null ? { ...s, unsaved: !!hasUnsavedChanges } : s;
}

/** True while only the server can say (each change then asks it). */
export function unknown(s) { return s.savedText === null; }
