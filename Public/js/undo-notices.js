// What an undo or redo tells the person, as pure functions (no DOM, no network): the toast
// after one of ours, the notice when someone else undid a change of ours, and whether a
// change touched our own undo stack. A change names the session that made the request
// (`session`) and, for an undo or redo, the session whose group it reverted (`reverts`).

/** Said after an undo that could not revert all of its group: others had changed that text. */
export const PARTIAL = ', except text others changed';

/** "Ada", from a presence name ("Ada (guest)"); "Someone" when nobody is known. */
export function displayName(name) {
  return name ? name.replace(/\s*\(guest\)$/, '') : 'Someone';
}

/** "Ada’s", "Frances’s" (as Chicago has it, and as people say it). */
export function possessive(name) { return `${name}’s`; }

/**
 * The toast after an undo or redo of ours, from the server's answer: "Undid Greet",
 * "Redid Ada’s Typing", "Undid Greet, except text others changed". `owner` is the display
 * name of whoever's group it was when not ours (everyone's scope), else null.
 */
export function resultMessage(kind, answer, owner = null) {
  const verb = kind === 'redo' ? 'Redid' : 'Undid';
  const name = (answer && answer.actionName) || 'change';
  const whose = owner ? `${possessive(owner)} ${name}` : name;
  return `${verb} ${whose}${answer && answer.partial ? PARTIAL : ''}`;
}

/**
 * The session whose group an answer (or change) of an undo or redo reverted, when that is
 * someone else's; null for ours, for the anonymous context, or for an edit.
 */
export function othersGroup(answer, me) {
  const r = answer && answer.reverts;
  return r && r.session && r.session !== me ? r.session : null;
}

/**
 * "Ada undid your Greet" when `change` is someone else's undo of a group of ours (from
 * everyone's scope); null for anything else, our own undo included. `nameOf(session)` gives
 * the undoer's display name ("Someone" for an unknown or anonymous one).
 */
export function undoneByOthersNotice(change, me, nameOf) {
  if (!change || change.kind !== 'undo' || !me) return null;
  if (!change.reverts || change.reverts.session !== me || change.session === me) return null;
  return `${nameOf(change.session)} undid your ${change.actionName || 'change'}${change.partial ? PARTIAL : ''}`;
}

/** True when `change` may have changed our own undo stack: ours, or a revert of a group of ours. */
export function touchesOwnHistory(change, me) {
  if (!change || !me) return false;
  return change.session === me || !!(change.reverts && change.reverts.session === me);
}
