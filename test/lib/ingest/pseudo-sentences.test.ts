/**
 * Pseudo-sentences of unpunctuated speech (auto-captions): the rules on small texts, and how well
 * they find the real sentence ends of the six auto-captioned debates, whose punctuated
 * transcripts (`*.said.txt`) say where the sentences really end.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { closeParserPool, parseTranscriptFile } from '../../../src/features/snapshots/pool.ts';
import {
  isUnpunctuated,
  MAX_PSEUDO_SENTENCE_WORDS,
  MIN_PSEUDO_SENTENCE_WORDS,
  pseudoSentenceSpans,
  pseudoSentenceStarts,
  punctuationCounts,
  type SegmentWord,
} from '../../../src/lib/ingest/pseudo-sentences.ts';
import { skipUnlessSharedData } from '../../support/shared-data.ts';
import { dataPath } from './helpers.ts';

after(() => closeParserPool());

const words = (text: string): SegmentWord[] => text.split(' ').map((w) => ({ text: w }));
const cut = (text: string, ws: SegmentWord[] = words(text)): string[] => {
  const bounds = [0, ...pseudoSentenceStarts(ws), ws.length];
  return bounds.slice(1).map((end, k) => ws.slice(bounds[k], end).map((w) => w.text).join(' '));
};

test('a new pseudo-sentence starts at a likely sentence opener once the current one has a few words', () => {
  assert.deepEqual(cut('i think we should cut taxes for the middle class but we also need to invest in education and that is the plan'), [
    'i think we should cut taxes for the middle class',
    'but we also need to invest in education',
    'and that is the plan',
  ]);
  // Too short to end yet: "so" after three words does not cut.
  assert.deepEqual(cut('well i agree so we will do it together this year'), ['well i agree so we will do it together this year']);
});

test('never after a word a sentence does not end on (articles, prepositions, auxiliaries, subject pronouns)', () => {
  const text = 'we are going to talk about the and the plan that we have for the so many people who need it';
  for (const s of cut(text)) assert.doesNotMatch(s, /\b(?:the|to|about|we|for)$/, s);
  // "the" and "for" are followed by openers here ("and", "so"), and still no cut falls after them.
  assert.equal(cut(text).length, 1);
});

test('a pause helps a boundary; a long run without openers is cut at MAX words, never leaving a piece under MIN', () => {
  const ws = words('we will build roads bridges schools hospitals people need them now more than ever');
  assert.deepEqual(cut('', ws), ['we will build roads bridges schools hospitals people need them', 'now more than ever']);
  ws[7]!.pauseBeforeMs = 1600; // before "people": a 1.6 s pause
  assert.deepEqual(cut('', ws), ['we will build roads bridges schools hospitals', 'people need them now more than ever']);

  const long = Array.from({ length: 70 }, (_, i) => `word${i}`).join(' ');
  const pieces = cut(long);
  assert.ok(pieces.length >= 3);
  for (const p of pieces) {
    const n = p.split(' ').length;
    assert.ok(n <= MAX_PSEUDO_SENTENCE_WORDS && n >= MIN_PSEUDO_SENTENCE_WORDS, `${n} words`);
  }
});

test('spans: a line break always ends a pseudo-sentence, spans are verbatim and cover every word', () => {
  const text = 'gentlemen welcome to you both\nlet us start with the economy but first i want to thank the university of denver  for your hospitality';
  const spans = pseudoSentenceSpans(text);
  const parts = spans.map((s) => text.slice(s.start, s.end));
  assert.deepEqual(parts, ['gentlemen welcome to you both', 'let us start with the economy', 'but first i want to thank the university of denver  for your hospitality']);
  assert.equal(parts.join(' ').split(/\s+/).length, text.split(/\s+/).length);
});

test('unpunctuated: fewer than one sentence terminator per 60 words', () => {
  assert.equal(isUnpunctuated(punctuationCounts('yes i agree')), true);
  assert.equal(isUnpunctuated(punctuationCounts('Yes. I agree.')), false);
  assert.equal(isUnpunctuated(punctuationCounts(`${'word '.repeat(100)}end. ${'word '.repeat(20)}`)), true);
  assert.equal(isUnpunctuated(punctuationCounts(`${'word '.repeat(50)}end. ${'word '.repeat(50)}end.`)), false);
  assert.equal(isUnpunctuated(punctuationCounts('')), false);
  // "U.S." and "3.5" are not sentence ends; "right?" and "no!" are.
  assert.deepEqual(punctuationCounts('the U.S. grew 3.5 percent right? no!'), { words: 7, terminators: 3 });
});

// ─── against the real sentence ends ─────────────────────────────────────────────────────────

const bare = (w: string): string => w.toLowerCase().replace(/[\u2018\u2019]/g, "'").replace(/[^\p{L}\p{N}']+/gu, '').replace(/^'+|'+$/g, '');

/** Words of the punctuated transcript, each with what follows it: a sentence end, other punctuation, or nothing. */
async function truth(id: string): Promise<{ word: string; after: 'sentence' | 'other' | '' }[]> {
  const t = await parseTranscriptFile(dataPath(`transcripts/us-presidential-debates/${id}.said.txt`), 'txt');
  const out: { word: string; after: 'sentence' | 'other' | '' }[] = [];
  for (const turn of t.turns) {
    const tokens = turn.text.split(/\s+/).filter((w) => bare(w).length > 0);
    tokens.forEach((tok, i) => {
      // A speaker's turn ends a sentence too.
      const after = i === tokens.length - 1 || /[.?!…]["')\]]*$/.test(tok) ? 'sentence' : /[,;:—–-]["')\]]*$/.test(tok) ? 'other' : '';
      out.push({ word: bare(tok), after });
    });
  }
  return out;
}

/**
 * Caption word i → transcript word, for words the two agree on: walk both, and where they differ
 * (a misheard word, a dropped "uh"), resynchronise on the nearest three words they share.
 */
function align(a: string[], b: string[]): Int32Array {
  const map = new Int32Array(a.length).fill(-1);
  const same3 = (i: number, j: number) => i + 2 < a.length && j + 2 < b.length && a[i] === b[j] && a[i + 1] === b[j + 1] && a[i + 2] === b[j + 2];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      map[i++] = j++;
      continue;
    }
    let moved = false;
    for (let d = 1; d <= 40 && !moved; d++) {
      for (let x = 0; x <= d; x++) {
        if (same3(i + x, j + d - x)) {
          i += x;
          j += d - x;
          moved = true;
          break;
        }
      }
    }
    if (!moved) {
      i++;
      j++;
    }
  }
  return map;
}

test('on the six auto-captioned debates, pseudo-sentences end where real sentences end far more often than chance, at about their length', skipUnlessSharedData, async () => {
  const ids = ['2012-10-03', '2012-10-16', '2012-10-22', '2016-09-26', '2016-10-09', '2016-10-19'];
  let cuts = 0;
  let sentenceCuts = 0;
  let punctuatedCuts = 0;
  let boundaries = 0;
  let sentenceBoundaries = 0;
  let captionWords = 0;
  let pseudo = 0;
  let realWords = 0;
  let real = 0;
  for (const id of ids) {
    const t = await parseTranscriptFile(dataPath(`transcripts/us-presidential-debates/${id}.vtt`), 'vtt');
    const caption: { word: string; startsLine: boolean }[] = [];
    for (const turn of t.turns) {
      for (const line of turn.text.split('\n')) {
        pseudo++;
        // Every line is a finished pseudo-sentence: cutting it again finds nothing (analysis relies on it).
        assert.deepEqual(pseudoSentenceStarts(words(line)), [], `${id}: "${line}" is one pseudo-sentence`);
        line.split(' ').forEach((w, k) => caption.push({ word: bare(w), startsLine: k === 0 }));
      }
    }
    const said = await truth(id);
    const map = align(
      caption.map((c) => c.word),
      said.map((s) => s.word),
    );
    let matched = 0;
    for (let k = 1; k < caption.length; k++) {
      if (map[k - 1]! < 0 || map[k] !== map[k - 1]! + 1) continue;
      matched++;
      const after = said[map[k - 1]!]!.after;
      boundaries++;
      if (after === 'sentence') sentenceBoundaries++;
      if (!caption[k]!.startsLine) continue;
      cuts++;
      if (after === 'sentence') sentenceCuts++;
      if (after !== '') punctuatedCuts++;
    }
    assert.ok(matched > caption.length * 0.9, `${id}: ${matched} of ${caption.length} caption words aligned`);
    captionWords += caption.length;
    realWords += said.length;
    real += said.filter((s) => s.after === 'sentence').length;
  }
  const precision = sentenceCuts / cuts;
  const chance = sentenceBoundaries / boundaries;
  // Measured: 45 % of cuts are sentence ends (chance 7.5 %), 64 % fall at some punctuation; 14.9
  // words per pseudo-sentence against 13.3 per real sentence (a speaker change counted as an end).
  assert.ok(precision >= 0.38 && precision >= 4 * chance, `sentence ends: ${(precision * 100).toFixed(1)} % of cuts, chance ${(chance * 100).toFixed(1)} %`);
  assert.ok(punctuatedCuts / cuts >= 0.55, `punctuation at ${((punctuatedCuts / cuts) * 100).toFixed(1)} % of cuts`);
  const pseudoLength = captionWords / pseudo;
  const realLength = realWords / real;
  assert.ok(Math.abs(pseudoLength - realLength) / realLength < 0.25, `${pseudoLength.toFixed(1)} words per pseudo-sentence, ${realLength.toFixed(1)} per real sentence`);
});
