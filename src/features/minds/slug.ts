/**
 * "Zoë O'Brien-Smith" → "zoe-obrien-smith", "Владимир Путин" → "владимир-путин", "毛泽东" → "毛泽东":
 * lower-case words joined by hyphens. Accents come off Latin letters (what people type in a URL);
 * other scripts keep their letters and marks (stripping a Devanagari vowel sign or the breve of
 * Cyrillic й would change the word), so a name in any script gets a slug of its own. Only a name
 * with no letter or digit at all (emoji, punctuation) falls back to "mind".
 */
export function slugify(name: string): string {
  const words = name
    .normalize('NFKD')
    .replace(/(\p{Script=Latin})\p{M}+/gu, '$1')
    .normalize('NFC')
    .toLowerCase()
    .replace(/['’]/g, '')
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  const slug = Array.from(words).slice(0, 60).join('').replace(/-+$/g, '');
  return slug || 'mind';
}
