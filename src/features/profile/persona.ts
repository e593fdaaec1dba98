/** The persona card a simulation engine reads, from a mind's profile. */
import type { PersonaCard } from '../../engines/types.ts';
import type { MindProfile } from '../../lib/analysis/profile.ts';

const PERSONA_TOPICS = 8;
const PERSONA_FINDINGS = 15;

export function personaFromProfile(name: string, profile: MindProfile): PersonaCard {
  return {
    name,
    traits: profile.traits
      .filter((t) => t.instrument === 'big_five')
      .map((t) => ({ name: t.name, score: t.score, percentile: t.percentile, confidence: t.confidence })),
    style: { ...profile.style },
    topics: profile.keyTopics.slice(0, PERSONA_TOPICS).map((t) => ({ label: t.label, keywords: t.keywords })),
    findings: profile.findings.slice(0, PERSONA_FINDINGS).map((f) => ({ kind: f.kind, statement: f.statement, quote: f.quote })),
  };
}
