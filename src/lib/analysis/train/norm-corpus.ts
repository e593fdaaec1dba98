/**
 * The norm corpus for Big Five percentiles: real speech, not the training texts. Every speaker
 * with at least NORM_MIN_WORDS words in each transcript of ../shared/data/transcripts (podcast
 * guests and hosts, debate candidates and moderators), read as the service reads an upload
 * (src/lib/ingest's parser), one entry per speaker and conversation. Essays and sitcom scenes are a
 * different register from an hour of speech (fewer "you", shorter words, other fillers), so a
 * speaker ranked against them lands in the same corner on every trait; ranked against other
 * speakers, the percentile says where this person stands among people talking.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { addCounts, type Counts } from '../features.ts';
import { resetTokenizer } from '../nlp.ts';
import { prepareTurns } from '../prepare.ts';
import { parseInThisThread } from '../../ingest/parse.ts';

export const NORM_MIN_WORDS = 1000;
const FOLDERS = ['lennys-podcast', 'lex-fridman-podcast', 'us-presidential-debates'];

export interface NormSpeech {
  /** `folder/file: speaker`. */
  name: string;
  words: number;
  counts: Counts;
  /** The same speech cut into consecutive stretches of whole turns of ≥ CHUNK_WORDS words (the last, shorter rest dropped). */
  chunks: { words: number; counts: Counts }[];
}

/** Stretch length for the measurement-noise estimate (the spread of the value within one speech). */
export const CHUNK_WORDS = 1000;

export async function readNormSpeeches(transcripts: URL): Promise<NormSpeech[]> {
  const out: NormSpeech[] = [];
  for (const folder of FOLDERS) {
    const dir = new URL(`${folder}/`, transcripts);
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.txt')).sort()) {
      const { turns } = await parseInThisThread(fileURLToPath(new URL(file, dir)), 'txt');
      const speakers = [...new Set(turns.map((t) => t.speaker))];
      for (const speaker of speakers) {
        resetTokenizer(); // as the service analyses a snapshot
        const mind = prepareTurns(turns.map((t, i) => ({ turnId: String(i), speaker: t.speaker, text: t.text, startMs: null, isMind: t.speaker === speaker })));
        const words = mind.reduce((s, t) => s + t.words, 0);
        if (words < NORM_MIN_WORDS) continue;
        const counts: Counts = new Map();
        for (const t of mind) addCounts(counts, t.counts);
        const chunks: NormSpeech['chunks'] = [];
        let chunk = { words: 0, counts: new Map() as Counts };
        for (const t of mind) {
          addCounts(chunk.counts, t.counts);
          chunk.words += t.words;
          if (chunk.words >= CHUNK_WORDS) {
            chunks.push(chunk);
            chunk = { words: 0, counts: new Map() };
          }
        }
        out.push({ name: `${folder}/${file}: ${speaker}`, words, counts, chunks });
      }
    }
  }
  return out;
}
