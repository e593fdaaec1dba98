/**
 * thinking / feeling / saying / acting, derived from what the answer rests on: the sentences
 * used (most relevant first), the question's own phrases, and the persona's findings when they
 * bear on the question. Each line says where it comes from, so a reader can tell an observation
 * from a guess, and each changes with the question: nothing is the same line for every answer.
 */
import type { PersonaCard, SimulationAnalysis } from '../types.ts';
import type { UsedSentence } from './compose.ts';
import type { Phrase, QueryTerm, SocialIntent } from '../../lib/language/understand.ts';
import { list } from './replies.ts';
import { describeFeeling, feelingOf } from './sentiment.ts';
import { contentStems, rawWords, termOf } from '../../lib/language/text.ts';
import { LRUCache } from 'lru-cache';

/** Sentences stating a view: what the person thinks, in their words. */
const STANCE = /\b(i think|i believe|i'm convinced|i am convinced|my view|in my view|the (real )?(question|point|key|problem|issue) is|what matters|the truth is|i feel|my philosophy|i'm a (big )?believer|my sense is|to me\b)/i;
/** Sentences giving a reason. */
const REASON = /\b(because|the reason|that's why|that is why|which is why|so that|in order to)\b/i;
/** Sentences stating what the person does, did or will do. */
const ACTION =
  /\b(i will|i'll|i'm going to|i am going to|we will|we'll|we're going to|we are going to|i always|i try to|i tend to|i usually|i make sure|i did|i've done|i have done|my plan|i would|i'd|we did|we've done|we have done|i want to|we need to|i've (cut|put|passed|signed|built|started|made|created|invested|worked|fought|called|proposed)|i (cut|passed|signed|built|started|founded|created|invested|worked|fought|proposed|ran|run|spend|spent|teach|tell))\b/i;
/** Finding kinds that describe behaviour rather than belief. */
const BEHAVIOUR_KIND = /behav|habit|action|practice|routine|tend|do/i;
const EXAMPLE = /\b(for example|for instance|I remember|I met|I saw|I talked to|one time|there was a|the other day|last (week|month|year))\b/i;
const HEDGE = /\b(maybe|perhaps|probably|i guess|i suppose|sort of|kind of|i'm not sure|i don't know|might)\b/i;
const FIGURE = /(?:\$\s?)?\b\d[\d,.]*\b(?:\s?(?:percent|%|million|billion|trillion|thousand|years?|bucks|dollars))?/gi;

/** Shorten to about `max` words at a word boundary, marking the cut. */
export function shorten(text: string, max = 30): string {
  const parts = text.trim().split(/\s+/);
  return parts.length <= max ? text.trim() : `${parts.slice(0, max).join(' ')} …`;
}

/** Distinct content stems of a finding (the persona's findings come back with every answer). */
const findingStemCache = new LRUCache<string, ReadonlySet<string>>({ max: 5_000 });
function findingStems(f: PersonaCard['findings'][number]): ReadonlySet<string> {
  const text = `${f.statement} ${f.quote}`;
  let stems = findingStemCache.get(text);
  if (!stems) {
    stems = new Set(contentStems(text));
    findingStemCache.set(text, stems);
  }
  return stems;
}

/** Persona findings bearing on the question (sharing one of its words), best evidence overlap first. */
function relatedFindings(persona: PersonaCard, questionStems: ReadonlySet<string>, evidenceStems: ReadonlySet<string>): PersonaCard['findings'] {
  return persona.findings
    .map((f, i) => {
      const stems = findingStems(f);
      const asked = [...stems].filter((s) => questionStems.has(s)).length;
      const shared = [...stems].filter((s) => evidenceStems.has(s)).length;
      return { f, i, asked, shared };
    })
    .filter((x) => x.asked > 0)
    .sort((a, b) => b.asked - a.asked || b.shared - a.shared || a.i - b.i)
    .map((x) => x.f);
}

/**
 * The words the evidence keeps coming back to, beyond the question's own: what the person
 * connects the topic with ("relief", "small businesses"). As written, most frequent first.
 */
function associations(text: string, exclude: ReadonlySet<string>, n = 3): string[] {
  const counts = new Map<string, { word: string; count: number; first: number }>();
  rawWords(text).forEach((raw, i) => {
    const s = termOf(raw);
    if (!s || exclude.has(s) || raw.length < 4) return;
    const seen = counts.get(s);
    if (seen) {
      seen.count++;
      // Written in lower case anywhere, it is a common word (capitalised only at a sentence start); else a name.
      if (raw === raw.toLowerCase()) seen.word = raw;
    } else counts.set(s, { word: raw, count: 1, first: i });
  });
  return [...counts.values()]
    .filter((c) => c.count >= 2)
    .sort((a, b) => b.count - a.count || a.first - b.first)
    .slice(0, n)
    .map((c) => c.word);
}

/** The evidence in order of relevance to the question (ties: the order of the answer). */
const byRelevance = (used: readonly UsedSentence[]) => used.map((u, i) => ({ u, i })).sort((a, b) => b.u.relevance - a.u.relevance || a.i - b.i).map(({ u }) => u);

/** How the answer is delivered, from the evidence itself, when no action is stated. */
function deliveryCue(used: readonly UsedSentence[], text: string): string {
  const figures = [...new Set((text.match(FIGURE) ?? []).map((f) => f.trim()).filter((f) => /\d{2,}|%|percent|million|billion|trillion/.test(f)))];
  if (figures.length >= 2) return `Argues with figures (${figures.slice(0, 3).join(', ')})`;
  const story = used.find((u) => EXAMPLE.test(u.span.text));
  if (story) return `Answers with a story or an example: "${shorten(story.span.text, 20)}"`;
  const questions = used.filter((u) => /\?["'\u201D]?$/.test(u.span.text));
  if (questions.length > 0) return `Turns to questions of their own: "${shorten(questions[0]!.span.text, 20)}"`;
  const hedges = used.filter((u) => HEDGE.test(u.span.text));
  if (hedges.length > 0) return `Hedges rather than commits: "${shorten(hedges[0]!.span.text, 20)}"`;
  const we = (text.match(/\bwe\b|\bour\b|\bus\b/gi) ?? []).length;
  const i = (text.match(/\bi\b|\bmy\b|\bme\b/gi) ?? []).length;
  if (we > i * 2 && we >= 3) return 'Speaks for a group ("we", "our") more than for themselves';
  if (i > we * 2 && i >= 3) return 'Speaks from personal experience ("I", "my")';
  return 'States a view; the evidence names no action they would take';
}

/** Numbers and counting words: what a person keeps coming back to is not "three" or "first". */
const NUMBER_WORD = /^(?:\d[\d.,]*|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|hundreds|thousand|thousands|million|millions|billion|billions|first|second|third|fourth|fifth|once|twice)$/i;

export interface AnalysisInput {
  used: readonly UsedSentence[];
  query: readonly QueryTerm[];
  /** The question's phrases the answer covers ("taxes", "middle class"). */
  phrases: readonly Phrase[];
  message: string;
  persona: PersonaCard;
  answer: string;
}

/** The four-part analysis for an answer built from `used` sentences. */
export function analyse({ used, query, phrases, message, persona, answer }: AnalysisInput): SimulationAnalysis {
  const evidenceText = used.map((u) => u.span.text).join(' ');
  const evidenceStems = new Set(contentStems(evidenceText));
  const questionStems = new Set([...contentStems(message), ...query.filter((q) => q.fromMessage).map((q) => q.stem)]);
  const asked = new Set([...questionStems, ...query.map((q) => q.stem)]);
  const ranked = byRelevance(used);
  const top = ranked[0];
  // About the person, in the third person: "your morning routine" is their morning routine here.
  const themes = list(phrases.map((p) => `${p.yours ? 'their ' : ''}${p.text}`).slice(0, 3));
  const on = themes ? `On ${themes}: ` : '';
  const findings = relatedFindings(persona, questionStems, evidenceStems);

  // Each part quotes a different sentence: the gist is the most relevant one.
  const onTopic = (u: UsedSentence) => contentStems(u.span.text).some((st) => asked.has(st));
  const others = ranked.filter((u) => u !== top);
  const stance = others.find((u) => STANCE.test(u.span.text) && onTopic(u)) ?? others.find((u) => REASON.test(u.span.text) && onTopic(u));
  const thinkingParts: string[] = [];
  if (stance) thinkingParts.push(`${on}"${shorten(stance.span.text)}"`);
  else {
    // The words they keep coming back to, as a person would report them ("When they talk about their
    // morning routine, they bring up “lifting” and “training”"); counting words ("three") say nothing.
    const linked = associations(evidenceText, asked).filter((w) => !NUMBER_WORD.test(w));
    thinkingParts.push(
      linked.length >= 2
        ? `When they talk about ${themes || 'this'}, they keep bringing up ${list(linked.map((w) => `“${w}”`))}`
        : `${themes ? `Talks about ${themes}` : 'Talks about it'} in concrete terms rather than in general ones`,
    );
  }
  const belief = findings.find((f) => !BEHAVIOUR_KIND.test(f.kind));
  if (belief) thinkingParts.push(`Related finding: ${shorten(belief.statement, 25)}`);

  const saying = `${themes ? `Main point on ${themes}` : 'Main point'}: "${shorten(top?.span.text ?? answer, 30)}"`;

  const actions = ranked.filter((u) => u !== stance && ACTION.test(u.span.text)).sort((a, b) => Number(a === top) - Number(b === top));
  const behaviour = findings.find((f) => BEHAVIOUR_KIND.test(f.kind));
  const actingParts: string[] = [];
  if (actions[0]) actingParts.push(`States what they do or would do: "${shorten(actions[0].span.text, 25)}"`);
  if (behaviour) actingParts.push(`Per findings: ${shorten(behaviour.statement, 25)}`);
  if (actingParts.length === 0) actingParts.push(deliveryCue(others.length > 0 ? others : ranked, evidenceText));

  return {
    thinking: sentence(thinkingParts.join('. ')),
    feeling: describeFeeling(feelingOf(evidenceText, { ignore: asked })),
    saying: sentence(saying),
    acting: sentence(actingParts.join('. ')),
  };
}

/** Ends `text` with a period unless it already ends a sentence (possibly inside a closing quote). */
function sentence(text: string): string {
  return /[.!?…]["'\u201D]?$/.test(text) ? text : `${text}.`;
}

/** The analysis when memory holds nothing relevant to the message (or nothing left to add). */
export function analyseNothingRelevant(asked: readonly Phrase[], persona: PersonaCard, answer: string, exhausted = false): SimulationAnalysis {
  const about = asked.length ? list(asked.map((p) => p.text).slice(0, 3)) : 'this';
  const topics = persona.topics.map((t) => t.label).filter(Boolean).slice(0, 2);
  return {
    thinking: exhausted
      ? `Has already said in this conversation everything the transcripts hold on ${about}.`
      : `Has said nothing in the available transcripts about ${about}; any opinion would be invented.`,
    feeling: 'Unknown: there is no evidence to read a feeling from.',
    saying: exhausted ? `Declines to repeat themselves: "${shorten(answer, 20)}"` : `Declines to guess: "${shorten(answer, 20)}"`,
    acting: topics.length ? `Would likely redirect to what they know (${list(topics)}).` : 'Would likely redirect to what they have talked about.',
  };
}

/** The analysis of a reply to a greeting or an introduction request. */
export function analyseIntroduction(intent: SocialIntent, used: readonly UsedSentence[], persona: PersonaCard, answer: string): SimulationAnalysis {
  const self = used.filter((u) => u.relevance > 0);
  const text = self.map((u) => u.span.text).join(' ');
  const topics = persona.topics.map((t) => t.label).filter(Boolean).slice(0, 2);
  return {
    thinking: self.length
      ? `Sees themselves as they described themselves: "${shorten(self.at(-1)!.span.text, 25)}"`
      : `Thinks of themselves through what they talk about${topics.length ? ` (${list(topics)})` : ''}; the transcripts hold no self-description.`,
    feeling: self.length ? describeFeeling(feelingOf(text)) : 'Neutral: a courtesy, with no evidence of feeling.',
    saying: intent === 'greeting' ? `Returns the greeting and introduces themselves: "${shorten(answer, 20)}"` : `Introduces themselves: "${shorten(answer, 25)}"`,
    acting: intent === 'greeting' ? 'Answers the courtesy briefly, in their own words, and waits for the question.' : 'Keeps the introduction short, in their own words.',
  };
}
