// Times that say how long ago ("2 minutes ago") and stay true while shown: each is a
// <time datetime> with the absolute time as its tooltip, and a timer rewrites the ones
// in view whose words changed (the old panel said "just now" forever).
import { ago } from './ui.js';

const TICK_MS = 10000; // "just now" turns into "1 minute ago" within this of 45 s

/** Milliseconds since 1970 from seconds, milliseconds or a date string; NaN when unknown. */
export function msOf(time) {
  if (time === undefined || time === null) return NaN;
  return typeof time === 'number' ? (time < 1e12 ? time * 1000 : time) : Date.parse(time);
}

/** A <time> saying how long ago `time` was, its exact date and time in `datetime` and `title`. */
export function timeElement(time, className = 'relative-time') {
  const e = document.createElement('time');
  e.className = className;
  const ms = msOf(time);
  if (!Number.isFinite(ms)) return e;
  const d = new Date(ms);
  e.dateTime = d.toISOString();
  e.title = d.toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'medium' });
  e.dataset.relative = String(ms);
  e.textContent = ago(ms);
  return e;
}

/** Rewrites the relative times under `root` whose words changed since last written. */
export function refreshTimes(root) {
  for (const e of root.querySelectorAll('time[data-relative]')) {
    const text = ago(Number(e.dataset.relative));
    if (e.textContent !== text) e.textContent = text;
  }
}

/** Keeps the times under `root` current while it is in the page and shown; returns a stop function. */
export function keepCurrent(root, isShown = () => true) {
  const timer = setInterval(() => { if (isShown()) refreshTimes(root); }, TICK_MS);
  const onVisible = () => { if (!document.hidden && isShown()) refreshTimes(root); };
  document.addEventListener('visibilitychange', onVisible);
  return () => { clearInterval(timer); document.removeEventListener('visibilitychange', onVisible); };
}
