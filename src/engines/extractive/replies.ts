/**
 * The few sentences the engine says in its own words rather than the person's: that they have
 * not talked about something, or have said what they had to say. They are phrased in the
 * person's register (with or without contractions), name what was asked about as it was written
 * (noun phrases, "your X" as "my X"), and point to what the person has talked about instead.
 */
import type { PersonaCard } from '../types.ts';
import type { Phrase } from '../../lib/language/understand.ts';
import { contentStems } from '../../lib/language/text.ts';

/** A phrase of the question as the person would say it: "your mother" → "my mother". */
export function phraseForReply(p: Pick<Phrase, 'text' | 'yours'>): string {
  return `${p.yours ? 'my ' : ''}${p.text}`;
}

/** "a", "a and b", "a, b and c" (distinct items, at most `max`). */
export function list(items: readonly string[], max = 3): string {
  const xs = [...new Set(items)].slice(0, max);
  return xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)!}`;
}

/** What the person has talked about most (the persona's top topics), leaving out what was asked. */
function otherTopics(persona: PersonaCard, asked: readonly Phrase[]): string[] {
  const askedStems = new Set(asked.flatMap((p) => p.stems));
  return persona.topics
    .map((t) => t.label.trim())
    .filter((label) => label && !contentStems(label).some((s) => askedStems.has(s)))
    .slice(0, 2);
}

/**
 * The honest answer when memory holds nothing relevant: first person, in the person's
 * register, naming what was asked about, and pointing to what they have talked about.
 */
export function nothingRelevantAnswer(asked: readonly Phrase[], persona: PersonaCard, informal: boolean): string {
  const subject = asked.length === 0 ? 'that' : list(asked.map(phraseForReply));
  const first = informal
    ? `I haven't really talked about ${subject}, so I'm not going to guess at what I'd say.`
    : `I have not spoken about ${subject}, so I will not guess at what I would say.`;
  const topics = otherTopics(persona, asked);
  if (topics.length === 0) return first;
  return `${first} ${informal ? "What I've talked about is" : 'What I have spoken about is'} ${list(topics)}.`;
}

/** After a partial answer: the part of the question the person never talked about. */
export function uncoveredCaveat(asked: readonly Phrase[], informal: boolean): string {
  const subject = list(asked.map(phraseForReply));
  return informal ? `I haven't really talked about ${subject}, though.` : `I have not spoken about ${subject}, however.`;
}

/** A follow-up when everything relevant has already been said in the conversation. */
export function exhaustedAnswer(topic: readonly Phrase[], informal: boolean): string {
  const subject = topic.length === 0 ? 'that' : list(topic.map(phraseForReply));
  return informal ? `I think I've said what I have to say about ${subject}.` : `I believe I have said what I have to say about ${subject}.`;
}
