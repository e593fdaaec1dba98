/**
 * A user's picture when they have none: an SVG of their initials as a data: URL. The spec gives
 * User.imageUrl as a string, so clients render it without a null check; a generated picture keeps
 * that true without a network call or a stored file (the dashboard's CSP allows data: images).
 */
import { createHash } from 'node:crypto';

/** Background colours with white text at a contrast of at least 4.5:1. */
const COLOURS = ['#1f5f8b', '#7a3e9d', '#2e7d32', '#b23c17', '#5d4037', '#00695c', '#ad1457', '#37474f'];

/** Up to two initials: of the first and last word of the name, else of the e-mail's local part. */
export function initials(name: string, email: string): string {
  const words = name.trim().split(/[\s._-]+/).filter((w) => /\p{L}|\p{N}/u.test(w));
  const source = words.length > 0 ? words : email.split('@')[0]!.split(/[._+-]+/).filter(Boolean);
  const letters = source.length > 1 ? [source[0]!, source[source.length - 1]!] : source.slice(0, 1);
  return letters.map((w) => Array.from(w)[0]!.toLocaleUpperCase('en')).join('') || '?';
}

const escapeXml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The generated picture of a user (stable: the colour comes from the user's id). */
export function avatarDataUrl(user: { id: string; name: string; email: string }): string {
  const colour = COLOURS[createHash('sha256').update(user.id).digest()[0]! % COLOURS.length];
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">` +
    `<rect width="64" height="64" rx="32" fill="${colour}"/>` +
    `<text x="32" y="32" dy=".35em" text-anchor="middle" font-family="system-ui,sans-serif" font-size="26" fill="#fff">${escapeXml(initials(user.name, user.email))}</text></svg>`;
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}
