/**
 * Readers for the labelled personality data (essays: Pennebaker & King 1999 subset; Friends:
 * FriendsPersona, Jiang et al. 2020). Each yields texts with one 0/1 label per Big Five trait.
 */
import { readFileSync } from 'node:fs';

export const TRAITS = ['openness', 'conscientiousness', 'extraversion', 'agreeableness', 'neuroticism'] as const;
export type Trait = (typeof TRAITS)[number];

/** Column of each trait in both CSV files. */
const COLUMN: Record<Trait, string> = {
  openness: 'cOPN',
  conscientiousness: 'cCON',
  extraversion: 'cEXT',
  agreeableness: 'cAGR',
  neuroticism: 'cNEU',
};

export interface LabelledText {
  id: string;
  text: string;
  labels: Record<Trait, number>;
}

/** RFC 4180 CSV: quoted fields may hold commas, doubled quotes and newlines. */
export function parseCsv(src: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < src.length; i++) {
    const ch = src[i]!;
    if (quoted) {
      if (ch === '"') {
        if (src[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && src[i + 1] === '\n') i++;
      row.push(field);
      field = '';
      if (row.length > 1 || row[0] !== '') rows.push(row);
      row = [];
    } else field += ch;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

function records(path: string | URL): Record<string, string>[] {
  const [header, ...body] = parseCsv(readFileSync(path, 'utf8'));
  if (!header) return [];
  return body.map((cells) => Object.fromEntries(header.map((h, i) => [h, cells[i] ?? ''])));
}

const binary = (v: string): number => (v === 'high' || v === 'y' || v === '1' ? 1 : 0);

export function readEssays(path: string | URL): LabelledText[] {
  return records(path).map((r, i) => ({
    id: `essay-${i}`,
    text: r.text ?? '',
    labels: Object.fromEntries(TRAITS.map((t) => [t, binary(r[COLUMN[t]] ?? '')])) as Record<Trait, number>,
  }));
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(s: string): string {
  return s
    .replace(/&#(\d+);/g, (_, n: string) => {
      const code = Number(n);
      // Windows-1252 dashes and quotes appear as &#150; &#146; … in the scraped scripts.
      const cp1252: Record<number, string> = { 145: "'", 146: "'", 147: '"', 148: '"', 150: '-', 151: '-', 133: '...' };
      return cp1252[code] ?? String.fromCodePoint(code);
    })
    .replace(/&([a-z]+);/g, (m, name: string) => ENTITIES[name] ?? m);
}

/**
 * The labelled character's own lines of one Friends scene: `<b>Name</b>: line` blocks whose
 * name is the character's (full or first name), with stage directions "(…)" removed.
 */
export function characterLines(html: string, character: string): string[] {
  const first = character.split(/\s+/)[0]!.toLowerCase();
  const full = character.toLowerCase();
  const lines: string[] = [];
  for (const m of html.matchAll(/<b>([^<]+)<\/b>:\s*([\s\S]*?)(?=<br>|<b>|$)/g)) {
    const name = m[1]!.trim().toLowerCase();
    if (name !== full && name !== first) continue;
    const text = decodeEntities(m[2]!.replace(/<[^>]+>/g, ' '))
      .replace(/\([^)]*\)/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    if (text) lines.push(text);
  }
  return lines;
}

export function readFriends(path: string | URL): LabelledText[] {
  return records(path)
    .map((r, i) => ({
      id: r.scene_id ? `${r.scene_id}:${r.character}` : `friends-${i}`,
      text: characterLines(r.text ?? '', r.character ?? '').join('\n'),
      labels: Object.fromEntries(TRAITS.map((t) => [t, binary(r[COLUMN[t]] ?? '')])) as Record<Trait, number>,
    }))
    .filter((x) => x.text.length > 0);
}
