/**
 * Issue 22, fourth round: does a question → answer association learned from the conversations
 * choose the reply that is this question's answer? DEVELOPMENT split only (evaluation is never read).
 *
 *   node --import tsx bench/support/qa-association-study.ts
 *
 * For each pair of bench/support/pairs.ts, a translation model P(answer stem | question stem) is
 * trained by IBM Model 1 (EM, with a null word) on every question → reply of the OTHER development
 * conversations (all speakers: a "?" turn and the next turn by someone else), so the scored pair's
 * conversation is never seen. A reply r is scored as in Xue, Jeon & Croft (2008), the question's
 * log-likelihood under r's smoothed translation language model:
 *   P(w | r) = (1 − λ) · [ (1 − β) · P_ml(w | r) + β · Σ_t P(w | t) · P_ml(t | r) ] + λ · P(w | C).
 * Constants fixed before the first run (not swept): λ = 0.2, β = 0.5, 5 EM iterations.
 * No npm package implements IBM Model 1 or the translation LM for JavaScript (npm search
 * "ibm model 1", "translation language model": only alignment tools for other languages' corpora
 * formats), and it is 40 lines here.
 */
import { loadConversations, splitOf, type Conversation } from './fidelity-split.ts';
import { pairsOf, wholeReplies, type Pair } from './pairs.ts';
import { contentStems, words } from '../../src/lib/language/text.ts';
import { tfidfSpace, vectorOf, cosine } from '../../src/lib/fidelity/measure.ts';
import { requireSharedData } from '../../test/support/shared-data.ts';
import { argmax, rrf } from './rank-fusion.ts';
import { printTally, record, type Tally } from './study-table.ts';

requireSharedData('bench/support/qa-association-study.ts');

const LAMBDA = 0.2;
const BETA = 0.5;
const EM_ITERATIONS = 5;
const NULL = '\u0000null';

type Table = Map<string, Map<string, number>>;

/** Question → reply pairs of a conversation, any speakers (the training data). */
function trainingPairs(c: Conversation): [string[], string[]][] {
  const out: [string[], string[]][] = [];
  for (let i = 1; i < c.turns.length; i++) {
    const q = c.turns[i - 1]!;
    const a = c.turns[i]!;
    if (a.speaker === q.speaker || !q.text.includes('?')) continue;
    const qs = contentStems(q.text);
    const as = contentStems(a.text);
    if (qs.length && as.length) out.push([qs, as]);
  }
  return out;
}

/** IBM Model 1: t(a | q) for answer stems a given question stems q (and the null word). */
function ibmModel1(pairs: [string[], string[]][]): Table {
  const t: Table = new Map();
  const aVocab = new Set(pairs.flatMap(([, as]) => as));
  const uniform = 1 / aVocab.size;
  const get = (q: string, a: string) => t.get(q)?.get(a) ?? uniform;
  for (let it = 0; it < EM_ITERATIONS; it++) {
    const count: Table = new Map();
    const total = new Map<string, number>();
    for (const [qs0, as] of pairs) {
      const qs = [...qs0, NULL];
      for (const a of as) {
        let z = 0;
        for (const q of qs) z += get(q, a);
        for (const q of qs) {
          const c = get(q, a) / z;
          let row = count.get(q);
          if (!row) count.set(q, (row = new Map()));
          row.set(a, (row.get(a) ?? 0) + c);
          total.set(q, (total.get(q) ?? 0) + c);
        }
      }
    }
    t.clear();
    for (const [q, row] of count) {
      const tot = total.get(q)!;
      t.set(q, new Map([...row].map(([a, c]) => [a, c / tot])));
    }
  }
  return t;
}

function frequencies(stems: string[]): Map<string, number> {
  const f = new Map<string, number>();
  for (const s of stems) f.set(s, (f.get(s) ?? 0) + 1 / stems.length);
  return f;
}

/** log P(question | reply) under the reply's translation language model. */
function translationScore(q: string[], reply: Map<string, number>, t: Table, background: Map<string, number>): number {
  let ll = 0;
  for (const w of q) {
    let trans = 0;
    for (const [s, p] of reply) trans += (t.get(s)?.get(w) ?? 0) * p;
    const p = (1 - LAMBDA) * ((1 - BETA) * (reply.get(w) ?? 0) + BETA * trans) + LAMBDA * (background.get(w) ?? 1e-6);
    ll += Math.log(p);
  }
  return ll;
}


async function main(): Promise<void> {
  const convs = (await loadConversations()).filter((c) => splitOf(c.id) === 'development');
  const pairs: Pair[] = pairsOf(convs);
  const models = new Map<string, { t: Table; n: number }>();
  for (const c of convs) {
    const training = convs.filter((o) => o !== c).flatMap(trainingPairs);
    models.set(c.id, { t: ibmModel1(training), n: training.length });
  }
  for (const [id, m] of models) console.log(`trained without ${id}: ${m.n} question → reply pairs`);
  const byMemory = new Map<Pair['memory'], Pair[]>();
  for (const p of pairs) byMemory.set(p.memory, [...(byMemory.get(p.memory) ?? []), p]);
  const results: Tally = new Map();
  for (const [memory, ps] of byMemory) {
    if (ps.length < 2) continue;
    const replies = wholeReplies(memory).filter((r) => words(r.text).length >= 8);
    const texts = replies.map((r) => r.text);
    const space = tfidfSpace(memory.map((t) => t.text), contentStems);
    const tv = texts.map((t) => vectorOf(space, t));
    const rf = texts.map((t) => frequencies(contentStems(t)));
    const background = frequencies(memory.flatMap((t) => contentStems(t.text)));
    for (const p of ps) {
      const { t } = models.get(p.conversation)!;
      const others = ps.filter((o) => o !== p).map((o) => o.gold);
      const qv = vectorOf(space, p.message);
      const qs = contentStems(p.message);
      const tfidf = tv.map((v) => cosine(qv, v));
      const trans = rf.map((f) => translationScore(qs, f, t, background));
      const combos: Record<string, number[]> = {
        'TF-IDF text': tfidf,
        'translation LM (IBM Model 1)': trans,
        'RRF TF-IDF, translation LM': rrf(tfidf, trans),
      };
      for (const [name, sc] of Object.entries(combos)) {
        const pick = texts[argmax(sc)]!;
        record(results, name, pick, space, p, others);
      }
    }
  }
  printTally(results);
}

await main();
