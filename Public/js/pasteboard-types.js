// Pasteboard types as people name them: "Plain text", "HTML", "Image (PNG)", not UTIs.
const NAMES = {
  'public.utf8-plain-text': 'Plain text',
  'public.plain-text': 'Plain text',
  'public.text': 'Plain text',
  'public.html': 'HTML',
  'public.rtf': 'Rich text',
  'public.png': 'Image (PNG)',
  'public.jpeg': 'Image (JPEG)',
  'com.compuserve.gif': 'Image (GIF)',
  'public.tiff': 'Image (TIFF)',
  'org.webmproject.webp': 'Image (WebP)',
  'public.svg-image': 'Image (SVG)',
  'public.json': 'JSON',
  'public.url': 'Link',
  'public.xml': 'XML',
  'public.comma-separated-values-text': 'Spreadsheet (CSV)',
  'net.daringfireball.markdown': 'Markdown',
  'public.vcard': 'Contact card',
  'com.adobe.pdf': 'PDF document',
  'public.data': 'Data',
};

/** The name of one type (a UTI, or a MIME type the server keeps as it is). */
export function typeName(type) {
  if (NAMES[type]) return NAMES[type];
  const [major, minor] = String(type || '').split('/');
  if (minor === undefined) return 'Data';
  const sub = minor.replace(/^(x-|vnd\.)/, '').toUpperCase();
  if (major === 'image') return `Image (${sub})`;
  if (major === 'text') return `Text (${sub})`;
  return `${sub} data`;
}

/** The names of an item's representations, each once: "Plain text, HTML". */
export function typeNames(types) {
  return [...new Set(types.map(typeName))].join(', ');
}
