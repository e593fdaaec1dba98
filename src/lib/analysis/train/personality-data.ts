/**
 * Readers for the labelled personality data (essays: Pennebaker & King 1999; YouTube vlogs: Biel &
 * Gatica-Perez 2013; ChaLearn First Impressions; Friends: FriendsPersona, Jiang et al. 2020). Each
 * yields texts with one 0/1 label per Big Five trait (rated data: the median split of the ratings).
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
  /** 1 = above the median (high), 0 = below. */
  labels: Record<Trait, number>;
  /**
   * Rows of one group (one author, one video) are never split between training and test folds:
   * the clips of a First Impressions video share a speaker and a recording.
   */
  group?: string;
  /** Continuous ratings (0..1) where the data set has them (vlogs, First Impressions); labels are their median split. */
  scores?: Record<Trait, number>;
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
    group: `essay-${i}`,
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

const medianOf = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2;
};

/** Rated texts: labels are the median split of each trait's scores over the data set (above the median = 1). */
function medianSplit(rows: { id: string; group: string; text: string; scores: Record<Trait, number> }[]): LabelledText[] {
  const cut = Object.fromEntries(TRAITS.map((t) => [t, medianOf(rows.map((r) => r.scores[t]))])) as Record<Trait, number>;
  return rows.map((r) => ({ ...r, labels: Object.fromEntries(TRAITS.map((t) => [t, r.scores[t] > cut[t] ? 1 : 0])) as Record<Trait, number> }));
}

const scoresOf = (r: Record<string, string>): Record<Trait, number> => Object.fromEntries(TRAITS.map((t) => [t, Number(r[t])])) as Record<Trait, number>;

/**
 * YouTube vlogs (Biel & Gatica-Perez 2013): one monologue transcript per vlogger with crowd
 * impressions scaled to 0..1 (neuroticism = 7 − emotional stability, scaled).
 */
export function readVlogs(path: string | URL): LabelledText[] {
  return medianSplit(
    records(path)
      .filter((r) => (r.text ?? '').trim() && TRAITS.every((t) => Number.isFinite(Number(r[t]))))
      .map((r, i) => ({ id: `vlog-${r.vlog_id || i}`, group: `vlog-${r.vlog_id || i}`, text: r.text!, scores: scoresOf(r) })),
  );
}

/** ChaLearn First Impressions: short ASR transcripts of vlog clips, apparent Big Five 0..1; grouped by YouTube video. */
export function readFirstImpressions(path: string | URL): LabelledText[] {
  return medianSplit(
    records(path)
      .filter((r) => (r.text ?? '').trim() && TRAITS.every((t) => Number.isFinite(Number(r[t]))))
      .map((r, i) => ({ id: `fi-${r.clip_id || i}`, group: `fi-${r.youtube_id || r.clip_id || i}`, text: r.text!, scores: scoresOf(r) })),
  );
}
