// How strongly a person's colour tints the text they wrote: as much as reads well, never so
// much that the text over it falls under 4.5:1 (WCAG AA) in the light or the dark theme. The
// tint is drawn under the text (the text keeps its own colour); an underline in the full
// colour tells people apart where the tint is faint.
import { rgbOf, contrast } from './contrast.js';

// styles.css's --surface and --text, light and dark.
const THEMES = [
  { surface: [0xff, 0xff, 0xff], text: [0x1c, 0x24, 0x30] },
  { surface: [0x17, 0x1c, 0x23], text: [0xe6, 0xe9, 0xee] },
];
const MOST = 0.26; // the strongest tint: past it a tint reads as a highlight, not a hint
const LEAST = 0.06;
const MIN_CONTRAST = 4.5;

// For people whose colour is unknown (a session that ended): fixed, distinct, mid-tone.
const FALLBACK = ['#7c3aed', '#0f766e', '#b45309', '#be185d', '#1d4ed8', '#4d7c0f'];

/** `color` laid over `under` at opacity `alpha`. */
export function mix(color, under, alpha) {
  return under.map((u, i) => Math.round(u * (1 - alpha) + color[i] * alpha));
}

/** The text's contrast on `color`'s tint at `alpha`, the worse of the two themes. */
export function worstContrast(color, alpha) {
  const rgb = rgbOf(color);
  if (!rgb) return 21;
  return Math.min(...THEMES.map((t) => contrast(t.text, mix(rgb, t.surface, alpha))));
}

/** The strongest tint of `color` (0…1) keeping the text at 4.5:1 or more in both themes. */
export function tintAlpha(color) {
  for (let a = MOST; a >= LEAST; a -= 0.02) if (worstContrast(color, a) >= MIN_CONTRAST) return Number(a.toFixed(2));
  return 0;
}

/** A colour for an author the server gave none (an ended session), the same one each time. */
export function fallbackColor(id) {
  let h = 0;
  for (const ch of String(id)) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return FALLBACK[h % FALLBACK.length];
}
