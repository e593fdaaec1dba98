/**
 * Key topics, the grouping (step 5 and the chunk assignment of step 6 of topics.ts): key terms
 * gathered into topics by co-occurrence, merged by a shared head word, shared passages or shared
 * meaning, each chunk given to one topic, and each member weighted in its topic.
 */
import { GENERIC_NOUNS } from './lexicons.ts';
import { BROAD_NOUNS } from './topic-labels.ts';
import { mostCommon, type Chunk, type Term } from './topic-terms.ts';
import { analysisVectors, cosineOf, meanVector } from './vectors.ts';

const JOIN_SIMILARITY = 0.2;
/** Topics whose chunk sets have at least this cosine are one subject. */
const MERGE_SIMILARITY = 0.4;
/** A term joins a topic only if it shares at least this many chunks with its strongest members. */
const MIN_SHARED_CHUNKS = 2;
/** Mean similarity is taken over at most this many of a topic's strongest members. */
const LINKAGE_MEMBERS = 5;
const MIN_TOPICS = 3;

function cosine(a: Set<number>, b: Set<number>): number {
  let common = 0;
  const [small, large] = a.size < b.size ? [a, b] : [b, a];
  for (const x of small) if (large.has(x)) common++;
  return common / Math.sqrt(a.size * b.size || 1);
}

export interface Group {
  terms: Term[];
  chunks: Set<number>;
}

const isBroad = (t: Term): boolean => t.words === 1 && BROAD_NOUNS.has(t.lemmas[0]!);

/**
 * Mean co-occurrence of `t` with the group's strongest members; 0 unless `t` shares at least
 * MIN_SHARED_CHUNKS chunks with them (one coincidence is not a connection).
 */
function linkage(t: Term, g: Group): number {
  const members = g.terms.slice(0, LINKAGE_MEMBERS);
  let shared = 0;
  for (const c of t.chunks) if (members.some((m) => m.chunks.has(c))) shared++;
  // It must also meet the topic's seed term, or topics chain (Supreme Court → election → Putin).
  // A broad seed ("reforms", "government") is said of unrelated subjects (Wall Street reform,
  // education reform), so the first member that is not broad must be met as well.
  if (shared < MIN_SHARED_CHUNKS || cosine(t.chunks, members[0]!.chunks) === 0) return 0;
  const anchor = isBroad(members[0]!) ? members.find((m) => !isBroad(m)) : undefined;
  if (anchor && cosine(t.chunks, anchor.chunks) === 0) return 0;
  return members.reduce((s, m) => s + cosine(t.chunks, m.chunks), 0) / members.length;
}

/** Two words name the same thing when one is the other or a closed compound ending in it ("rainforest", "forest"). */
function sameHead(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  return short.length >= 4 && long.length - short.length >= 3 && long.endsWith(short);
}

const namingWords = (t: Term): string[] => t.lemmas.filter((w) => !GENERIC_NOUNS.has(w));

/**
 * Do two groups name the same thing: their seeds share a word ("tax breaks", "tax plan";
 * "Amazon", "Amazon rainforest"), or one's seed is a word of the other's strongest members
 * ("caiman" and a group holding "spectacled caiman")?
 */
function sharesHead(a: Group, b: Group): boolean {
  const meets = (seed: Term, other: Group): boolean =>
    other.terms.slice(0, 3).some((t) => namingWords(seed).some((x) => namingWords(t).some((y) => sameHead(x, y))));
  return meets(a.terms[0]!, b) || meets(b.terms[0]!, a);
}

function mergeGroups(groups: Group[]): Group[] {
  let merged = true;
  while (merged) {
    merged = false;
    outer: for (let a = 0; a < groups.length; a++)
      for (let b = a + 1; b < groups.length; b++) {
        const ga = groups[a]!;
        const gb = groups[b]!;
        if (!sharesHead(ga, gb) && cosine(ga.chunks, gb.chunks) < MERGE_SIMILARITY) continue;
        ga.terms.push(...gb.terms);
        ga.terms.sort((x, y) => y.keyness - x.keyness || (x.key < y.key ? -1 : 1));
        for (const c of gb.chunks) ga.chunks.add(c);
        groups.splice(b, 1);
        merged = true;
        break outer;
      }
  }
  return groups;
}

/** Topics whose passages read alike (centred GloVe-SIF mean, cosine ≥ this) … */
const MEANING_MERGE = 0.6;
/** … and whose seeds mean nearly the same thing (their own vectors' cosine ≥ this) are one subject. */
const SEED_MERGE = 0.55;

/**
 * Grouping by meaning, which co-occurrence cannot see: two topics are one subject when what is
 * said in their passages is alike (their chunks' centred sentence vectors point the same way) and
 * their seed terms are near-synonyms for GloVe ("relationship" / "friendship", "jungle" /
 * "rainforest"). Both are required: passages alike alone joins any two subjects a person
 * discusses in the same register, and similar words alone joins "China" and "Russia".
 */
function mergeByMeaning(groups: Group[], chunks: Chunk[]): Group[] {
  const vectors = analysisVectors();
  const centres = new Map<Group, Float32Array>();
  const seeds = new Map<Group, Float32Array>();
  const centreOf = (g: Group): Float32Array => {
    let c = centres.get(g);
    if (!c) centres.set(g, (c = meanVector([...g.chunks].map((ci) => chunks[ci]!.vector), vectors.dimensions)));
    return c;
  };
  const seedOf = (g: Group): Float32Array => {
    let v = seeds.get(g);
    if (!v) seeds.set(g, (v = vectors.embedOne(mostCommon(g.terms[0]!.surfaces))));
    return v;
  };
  let merged = true;
  while (merged) {
    merged = false;
    outer: for (let a = 0; a < groups.length; a++)
      for (let b = a + 1; b < groups.length; b++) {
        const ga = groups[a]!;
        const gb = groups[b]!;
        // A broad seed ("revenue", "reforms") stands for whatever was said around it, not for one meaning.
        if (isBroad(ga.terms[0]!) || isBroad(gb.terms[0]!)) continue;
        if (cosineOf(centreOf(ga), centreOf(gb)) < MEANING_MERGE || cosineOf(seedOf(ga), seedOf(gb)) < SEED_MERGE) continue;
        ga.terms.push(...gb.terms);
        ga.terms.sort((x, y) => y.keyness - x.keyness || (x.key < y.key ? -1 : 1));
        for (const c of gb.chunks) ga.chunks.add(c);
        groups.splice(b, 1);
        centres.delete(ga);
        seeds.delete(ga);
        merged = true;
        break outer;
      }
  }
  return groups;
}

/** Each chunk goes to the topic whose terms it mentions most (a tie to the narrower topic). */
function assignChunks(chunks: Chunk[], groups: Group[]): Map<Group, number[]> {
  const assigned = new Map<Group, number[]>();
  chunks.forEach((c, ci) => {
    let best: Group | undefined;
    let bestScore = 0;
    for (const g of groups) {
      let s = 0;
      for (const t of g.terms) s += c.terms.get(t.key) ?? 0;
      if (s > bestScore || (s === bestScore && s > 0 && best && g.terms.length < best.terms.length)) {
        bestScore = s;
        best = g;
      }
    }
    if (best) {
      const list = assigned.get(best);
      if (list) list.push(ci);
      else assigned.set(best, [ci]);
    }
  });
  return assigned;
}

/**
 * At least MIN_TOPICS topics when there is the material: while fewer topics hold chunks, a
 * member of a larger topic that does not share a word with its seed, and that would hold a chunk
 * on its own, becomes a topic. A speech with fewer distinct key terms gets fewer topics.
 */
export function assignWithMinimum(chunks: Chunk[], groups: Group[]): Map<Group, number[]> {
  let assigned = assignChunks(chunks, groups);
  while (assigned.size < MIN_TOPICS) {
    let split = false;
    for (const donor of [...assigned.keys()].sort((a, b) => b.terms.length - a.terms.length)) {
      const seed = donor.terms[0]!;
      const at = donor.terms.findIndex(
        (t, i) => i > 0 && !namingWords(t).some((x) => namingWords(seed).some((y) => sameHead(x, y))) &&
          [...t.chunks].some((ci) => 2 * (chunks[ci]!.terms.get(t.key) ?? 0) >= donor.terms.reduce((s, m) => s + (chunks[ci]!.terms.get(m.key) ?? 0), 0)),
      );
      if (at < 0) continue;
      const [t] = donor.terms.splice(at, 1);
      donor.chunks = new Set(donor.terms.flatMap((m) => [...m.chunks]));
      groups.push({ terms: [t!], chunks: new Set(t!.chunks) });
      split = true;
      break;
    }
    if (!split) break;
    assigned = assignChunks(chunks, groups);
  }
  return assigned;
}

/** Each member's weight in its topic: keyness × (1 + its mean co-occurrence with the others). */
export function centrality(g: Group): Map<Term, number> {
  const w = new Map<Term, number>();
  for (const t of g.terms) {
    const others = g.terms.filter((o) => o !== t);
    const link = others.length ? others.reduce((s, o) => s + cosine(t.chunks, o.chunks), 0) / others.length : 0;
    w.set(t, t.keyness * (1 + link));
  }
  return w;
}

/**
 * Greedy grouping, strongest term first: a term joins the topic it co-occurs with most (linkage at
 * least JOIN_SIMILARITY), else starts one (at most twice the topic budget); then topics naming the
 * same thing are merged.
 */
export function groupTerms(ranked: Term[], chunks: Chunk[], budget: number): Group[] {
  const groups: Group[] = [];
  for (const t of ranked) {
    let best = -1;
    let bestSim = JOIN_SIMILARITY;
    groups.forEach((g, gi) => {
      const sim = linkage(t, g);
      if (sim >= bestSim) {
        bestSim = sim;
        best = gi;
      }
    });
    if (best >= 0) {
      const g = groups[best]!;
      g.terms.push(t);
      for (const c of t.chunks) g.chunks.add(c);
    } else if (groups.length < budget * 2) groups.push({ terms: [t], chunks: new Set(t.chunks) });
  }
  // A broad word that gathered nothing ("experience", "topic") is a word the person uses a lot,
  // not a subject.
  return mergeByMeaning(mergeGroups(groups), chunks).filter((g) => g.terms.length > 1 || !isBroad(g.terms[0]!));
}
