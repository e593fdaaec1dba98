/**
 * The user questions of issue 22, asked through the service (POST /simulate, the real database
 * on embedded PGlite) of minds holding all of each person's conversations in ../shared/data:
 * what each answer quotes. Printed as markdown for BENCHMARKS.md ("before" and "after" are this
 * script run on the two versions of the engine).
 *
 *   node --import tsx bench/support/user-questions.ts
 */
import { loadConversations } from './fidelity-split.ts';
import { startTestServer } from '../../test/support/server.ts';
import { seedSnapshot } from '../../test/features/simulations/seed.ts';
import { requireSharedData } from '../../test/support/shared-data.ts';

requireSharedData('bench/support/user-questions.ts');

/** Each person and the conversation asked (a follow-up is asked in the conversation of the question before it). */
const QUESTIONS: { person: string; asks: string[] }[] = [
  { person: 'Jen Abel', asks: ['How should a founder price their first enterprise deal?'] },
  { person: 'Jen Abel', asks: ["What's a good ACV for a startup's first enterprise contract?"] },
  { person: 'Jen Abel', asks: ['What ACV should I aim for on the first contract?'] },
  { person: 'Andrew Huberman', asks: ['What is your morning routine?'] },
  { person: 'Bob Moesta', asks: ['How do I find out why customers really switch?'] },
  { person: 'Elon Musk', asks: ['What do you think of the 2026 World Cup final?'] },
  { person: 'Sander Schulhoff', asks: ['What is prompt injection?', 'Can you give an example?'] },
];

const clip = (text: string, n = 60) => {
  const ws = text.trim().split(/\s+/);
  return ws.length <= n ? ws.join(' ') : `${ws.slice(0, n).join(' ')} …`;
};

async function main(): Promise<void> {
  const convs = await loadConversations();
  const s = await startTestServer();
  try {
    const minds = new Map<string, string>();
    for (const person of new Set(QUESTIONS.map((q) => q.person))) {
      const mind = (await s.api('POST', '/minds', { name: person })).body.mind;
      for (const c of convs.filter((c) => c.subjects.includes(person))) {
        await seedSnapshot(s.ctx.db, { organizationId: mind.organizationId, mindId: mind.id, mind: person, turns: c.turns, mindsetDate: c.date });
      }
      minds.set(person, mind.id);
    }
    for (const { person, asks } of QUESTIONS) {
      let conversationId: string | undefined;
      for (const message of asks) {
        const res = await s.api('POST', '/simulate', { scenario: { message }, mindId: minds.get(person), ...(conversationId ? { conversationId } : {}) });
        conversationId = res.body.conversationId;
        const turns = new Set((res.body.evidence ?? []).map((e: { turnId: string }) => e.turnId)).size;
        console.log(`- **${person}**, "${message}" (${turns} source turn${turns === 1 ? '' : 's'}): ${clip(res.body.message ?? JSON.stringify(res.body))}`);
      }
    }
  } finally {
    await s.close();
  }
}

await main();
