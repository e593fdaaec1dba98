import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createExtractiveEngine } from '../../../src/engines/extractive/index.ts';
import { searchTerms, understand } from '../../../src/lib/language/understand.ts';
import type { MemoryTurn, PersonaCard } from '../../../src/engines/types.ts';
import { FIXTURES_URL } from '../../support/shared-data.ts';

/** The first two thirds of the three 2012 debates (test/fixtures). */
const DEBATES = new URL('transcripts/us-presidential-debates/', FIXTURES_URL);

/** `Full Name: text` lines; a line without a name continues the previous speaker. */
function parseSaid(src: string): { speaker: string; text: string }[] {
  const turns: { speaker: string; text: string }[] = [];
  for (const line of src.split(/\r?\n/)) {
    if (!line.trim()) continue;
    const m = /^([A-Z][A-Za-z.' -]{1,60}?): (.*)$/.exec(line);
    const last = turns.at(-1);
    if (m && m[1] !== last?.speaker) turns.push({ speaker: m[1]!, text: m[2]!.trim() });
    else if (last) last.text += ` ${(m ? m[2]! : line).trim()}`;
  }
  return turns;
}

/** A candidate's turns in the 2012 debates, each with the turn before it as its context. */
function memoryOf(person: string): MemoryTurn[] {
  const out: MemoryTurn[] = [];
  for (const date of ['2012-10-03', '2012-10-16', '2012-10-22']) {
    const turns = parseSaid(readFileSync(new URL(`${date}.said.txt`, DEBATES), 'utf8'));
    turns.forEach((t, i) => {
      if (t.speaker !== person) return;
      out.push({ turnId: `${date}#${i}`, snapshotId: date, text: t.text, context: turns[i - 1]?.text ?? null, startMs: null, mindsetDate: new Date(date), seq: i });
    });
  }
  return out;
}

const persona = (name: string): PersonaCard => ({ name, traits: [], style: {}, topics: [], findings: [] });
const engine = createExtractiveEngine();
const obama = memoryOf('Barack H Obama');
const romney = memoryOf('W Mitt Romney');

test('the 2012 debates parse into each candidate\'s own turns', () => {
  assert.ok(obama.length > 100 && romney.length > 100, `${obama.length} / ${romney.length} turns`);
  assert.ok(obama.some((t) => t.text.includes('Michelle Obama agreed to marry me')));
  assert.ok(!obama.some((t) => t.text.startsWith('Gentlemen, welcome')), 'the moderator is not the mind');
});

test('asked about taxes on the middle class, each candidate answers from his own words on taxes', async () => {
  const message = 'What would you do about taxes for middle-class families?';
  for (const [name, memory] of [['Barack H Obama', obama], ['W Mitt Romney', romney]] as const) {
    const r = await engine.generate({ mindName: name, message, history: [], memory, persona: persona(name) });
    assert.ok(r.evidence.length > 0, `${name} answers`);
    const byId = new Map(memory.map((t) => [t.turnId, t]));
    for (const e of r.evidence) {
      assert.ok(byId.get(e.turnId)?.text.includes(e.quote), `${name}'s quote is his own words`);
      assert.ok(r.text.includes(e.quote));
    }
    assert.match(r.evidence[0]!.quote, /tax/i, `${name}'s first evidence is about taxes`);
    assert.match(r.text, /middle[- ]class/i);
    // Debate answers are long: the answer is in line with his usual turn, not a one-liner.
    assert.ok(r.text.split(/\s+/).length >= 40, `${name}: ${r.text.split(/\s+/).length} words`);
  }
});

test('a follow-up in a real conversation stays on the topic of the conversation', async () => {
  const history = [
    { role: 'user' as const, text: 'What is your plan for Medicare and seniors?' },
    { role: 'assistant' as const, text: 'We need to strengthen Medicare.' },
  ];
  const r = await engine.generate({ mindName: 'Barack H Obama', message: 'And how would you pay for it?', history, memory: obama, persona: persona('Barack H Obama') });
  assert.ok(r.evidence.some((e) => /medicare/i.test(e.quote)), r.text);
});

test('asked about something he never discussed, he says so', async () => {
  const r = await engine.generate({ mindName: 'Barack H Obama', message: 'Which jazz saxophonist do you listen to most?', history: [], memory: obama, persona: persona('Barack H Obama') });
  assert.deepEqual(r.evidence, []);
  assert.match(r.text, /talked about/);
});

test('the search terms select the turns the engine then ranks first', async () => {
  const message = 'How will you bring manufacturing jobs back from China?';
  const terms = searchTerms(understand(message, []));
  // The noun phrases first ("bring" is a verb here), then the phrase's words written as one, then
  // the two-word readings of the long word a transcript might write apart.
  assert.deepEqual(terms.slice(0, 5), ['manufacturing', 'jobs', 'china', 'bring', 'manufacturingjobs']);
  assert.ok(terms.slice(5).every((t) => /^manu?\w* \w+$/.test(t)), terms.join(' | '));
  const r = await engine.generate({ mindName: 'W Mitt Romney', message, history: [], memory: romney, persona: persona('W Mitt Romney') });
  assert.match(r.evidence[0]!.quote, /China|manufactur|jobs/);
});
