// Small DOM helpers shared by the views.

export const $ = (sel, root = document) => root.querySelector(sel);

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

/**
 * Sets `node`'s state (data-state), text and title, each only if it differs: a status
 * rewritten with what it already says would be laid out (and announced) again for nothing.
 */
export function setStatus(node, state, text, title) {
  if (state !== undefined && node.dataset.state !== state) node.dataset.state = state;
  if (node.textContent !== text) node.textContent = text;
  if (node.title !== title) node.title = title;
}

let toastTimer = null;

/** A short message at the bottom of the screen, read out by screen readers. */
export function toast(message, { kind = 'info', ms = 3200 } = {}) {
  const t = $('#toast');
  t.textContent = message;
  t.dataset.kind = kind;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, ms);
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/** "just now", "3 minutes ago", or a date: `time` is seconds or milliseconds since 1970. */
export function ago(time) {
  if (time === undefined || time === null) return '';
  const ms = typeof time === 'number' ? (time < 1e12 ? time * 1000 : time) : Date.parse(time);
  if (!Number.isFinite(ms)) return '';
  const s = Math.round((ms - Date.now()) / 1000);
  if (Math.abs(s) < 45) return 'just now';
  const m = Math.round(s / 60);
  if (Math.abs(m) < 60) return relative.format(m, 'minute');
  const h = Math.round(m / 60);
  if (Math.abs(h) < 24) return relative.format(h, 'hour');
  return new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function clockTime(time) {
  const ms = typeof time === 'number' ? (time < 1e12 ? time * 1000 : time) : Date.parse(time);
  return Number.isFinite(ms) ? new Date(ms).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' }) : '';
}

export function initials(name) {
  const parts = String(name || '?').replace(/\(.*?\)/g, '').trim().split(/\s+/);
  return (parts[0][0] || '?').toUpperCase() + (parts.length > 1 ? (parts[parts.length - 1][0] || '').toUpperCase() : '');
}

export function plural(n, one, many = `${one}s`) { return `${n.toLocaleString()} ${n === 1 ? one : many}`; }
