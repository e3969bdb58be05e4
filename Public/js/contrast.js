// Text that reads on a person's colour: WCAG 2's contrast ratio, and black or white,
// whichever contrasts more (on any colour one of them reaches 4.58:1 at least).

/** [r, g, b] in 0…255 from "#rgb" or "#rrggbb"; null for anything else. */
export function rgbOf(color) {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(String(color || '').trim());
  if (!m) return null;
  const h = m[1].length === 3 ? [...m[1]].map((c) => c + c).join('') : m[1];
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16));
}

/** Relative luminance of an [r, g, b] colour. */
export function luminance([r, g, b]) {
  const lin = (c) => { const s = c / 255; return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** The contrast ratio of two [r, g, b] colours, 1…21. */
export function contrast(a, b) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** "#000000" or "#ffffff", whichever reads better on `color` (white when it is unknown). */
export function textOn(color) {
  const rgb = rgbOf(color);
  if (!rgb) return '#ffffff';
  return contrast(rgb, [0, 0, 0]) >= contrast(rgb, [255, 255, 255]) ? '#000000' : '#ffffff';
}
