/**
 * One coherent reply (issue 11): the answer is one passage of one turn, chosen by the reranker;
 * filler never answers; a related turn found by meaning prevents a false "I haven't talked about
 * it"; a follow-up goes on from the turns around the last answer; the reranker model itself.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { askedBefore, createExtractiveEngine, understand } from '../../../src/engines/extractive/index.ts';
import { isFiller } from '../../../src/engines/extractive/filler.ts';
import { checkModel, fit, FEATURE_VERSION, FEATURES, rerank, shippedModel, type Candidate } from '../../../src/engines/extractive/rerank/index.ts';
import type { ConversationMessage, EngineInput, MemoryTurn, PersonaCard } from '../../../src/engines/types.ts';
import { skipUnlessSharedData } from '../../support/shared-data.ts';

const persona: PersonaCard = { name: 'Dana Reyes', traits: [], style: {}, topics: [], findings: [] };

function turn(id: string, seq: number, text: string, context: string | null, snapshot = 'show-1'): MemoryTurn {
  return { turnId: id, snapshotId: snapshot, text, context, startMs: seq * 1000, mindsetDate: new Date('2024-03-01'), seq };
}

/** A founder interviewed on a podcast, and once more on another show. */
const memory: MemoryTurn[] = [
  turn('hello', 1, 'Thanks so much for having me, Lenny. Great to be here.', 'Dana, welcome to the podcast.'),
  turn(
    'pricing',
    3,
    'Pricing is the most underrated lever a founder has. We started with a free plan because the product spreads inside teams, and we charged once a team passed ten seats. Most founders price too low, because they are afraid of losing the deal, and they never raise prices again.',
    'How did you think about pricing early on?',
  ),
  turn(
    'launch',
    5,
    'A startup should launch its first product before it feels ready. We launched our first product to twenty design partners. It was embarrassing, honestly, but their feedback shaped everything we built after that.',
    'When did you launch your first product?',
  ),
  turn(
    'timing',
    7,
    'Within six weeks of starting the company. I would rather ship something rough in six weeks than polish it for six months, because you learn more from one real customer than from a hundred surveys.',
    'How long did that take?',
  ),
  turn(
    'morning',
    9,
    'Every morning starts the same way for me: I wake up early, meditate for twenty minutes, and then I go outside for a walk in the sunlight before I look at my phone.',
    'What does a normal day look like for you?',
  ),
  turn(
    'outro',
    11,
    'Please feel free to follow me on LinkedIn, I post about pricing every week. You can also find me on Twitter.',
    'Where can people find you?',
  ),
  turn(
    'hiring',
    3,
    'Hiring is about pace. We hired slowly for the first year and only people who had done the job before, because every early hire sets the culture for the next fifty.',
    'How do you hire?',
    'show-2',
  ),
  turn(
    'soon-elsewhere',
    40,
    'Soon enough every company will have an AI team, and that is going to change how software gets sold and how fast it ships.',
    'Where is the industry going?',
    'show-2',
  ),
];

const input = (message: string, history: ConversationMessage[] = []): EngineInput => ({ mindName: persona.name, message, history, memory, persona });
const engine = createExtractiveEngine();

/** Asks `message`, with no history, of a mind whose memory is `turns`. */
const askOf = (turns: MemoryTurn[], message: string, card: PersonaCard = persona) => engine.generate({ mindName: card.name, message, history: [], memory: turns, persona: card });

test('the answer is one passage of one turn: evidence is that passage, with turn, snapshot and time', async () => {
  const r = await engine.generate(input('How should a founder think about pricing?'));
  assert.equal(r.evidence.length, 1, JSON.stringify(r.evidence));
  const [e] = r.evidence;
  assert.equal(e!.turnId, 'pricing');
  assert.equal(e!.snapshotId, 'show-1');
  assert.equal(e!.startMs, 3000);
  const source = memory.find((t) => t.turnId === 'pricing')!.text;
  assert.ok(source.includes(e!.quote), 'the quote is a contiguous run of the turn');
  assert.equal(r.text, e!.quote, 'the answer is exactly the passage, not sentences gathered from several turns');
  assert.match(r.text, /^Pricing is the most underrated lever/);
});

test('filler never answers a substantive question: outros and greetings stay out', async () => {
  assert.ok(isFiller('Please feel free to follow me on LinkedIn, I post about pricing every week.'));
  assert.ok(isFiller('Thanks so much for having me, Lenny.'));
  assert.ok(isFiller('This episode is brought to you by Vanta.'));
  assert.ok(!isFiller('Most founders price too low, because they are afraid of losing the deal.'));
  assert.ok(!isFiller('I follow the data, not my gut.'));
  for (const q of ['What do you think about pricing?', 'How do you price your product, and do you post about it?']) {
    const r = await engine.generate(input(q));
    assert.doesNotMatch(r.text, /follow me|find me|for having me/i, r.text);
    assert.ok(r.evidence.every((e) => e.turnId !== 'outro' && e.turnId !== 'hello'), JSON.stringify(r.evidence));
  }
});

test('a question memory already holds, the same or nearly, is answered with the reply to it (issue 22)', async () => {
  assert.ok(askedBefore('How did you think about pricing early on?', memory[1]!));
  assert.ok(askedBefore('So how did you think about pricing, early on?', memory[1]!), 'nearly word for word');
  assert.ok(askedBefore('What do you think about pricing?', memory[1]!), 'nearly: two of its three content words');
  assert.ok(!askedBefore('What do you think about hiring?', memory[1]!), 'another question');
  assert.ok(!askedBefore('How did you think about pricing early on?', { context: null }));
  assert.ok(askedBefore('How do you hire?', { context: 'That is a great story. How do you hire?' }), 'the question is the last one of what was said before');
  const r = await engine.generate(input('How do you hire?'));
  assert.deepEqual(r.evidence.map((e) => e.turnId), ['hiring'], r.text);
});

test('a related turn found by meaning is an answer, not "I haven\'t talked about it"; nothing related is still honest', async () => {
  const r = await engine.generate(input('What is your morning routine?'));
  assert.equal(r.evidence[0]?.turnId, 'morning', r.text);
  assert.match(r.text, /meditate/);
  const none = await engine.generate(input('What do you think about cryptocurrency regulation?'));
  assert.equal(none.evidence.length, 0, none.text);
  assert.match(none.text, /haven't really talked about cryptocurrency regulation|not spoken about cryptocurrency regulation/);
});

test('a follow-up is answered from the turns around the last answer', async () => {
  const first = await engine.generate(input('When should a startup launch its first product?'));
  assert.equal(first.evidence[0]?.turnId, 'launch', first.text);
  const history: ConversationMessage[] = [
    { role: 'user', text: 'When should a startup launch its first product?' },
    { role: 'assistant', text: first.text, evidence: first.evidence },
  ];
  const soon = await engine.generate(input('And how soon?', history));
  assert.equal(soon.evidence[0]?.turnId, 'timing', soon.text);
  assert.match(soon.text, /six weeks/);
});

// ─── the reranker model ──────────────────────────────────────────────────────────────────

test('the shipped reranker model matches the features the code computes, and is small', () => {
  const m = shippedModel();
  assert.deepEqual(m.features, [...FEATURES]);
  assert.equal(m.version, FEATURE_VERSION);
  assert.ok(JSON.stringify(m).length < 8_000);
  assert.throws(() => checkModel({ ...m, features: m.features.slice(1) }, FEATURE_VERSION, FEATURES), /expected version/);
  assert.throws(() => checkModel({ ...m, version: FEATURE_VERSION + 1 }, FEATURE_VERSION, FEATURES), /expected version/);
});

test('ListNet training learns which feature says which candidate is best, and rerank follows it', () => {
  // Feature 0 is how good a candidate is (plus noise in feature 1, which says nothing).
  const groups = Array.from({ length: 40 }, (_, g) => {
    const x = Array.from({ length: 6 }, (_, k) => [((k * 7 + g * 3) % 6) / 6, ((k * 5 + g) % 4) / 4]);
    return { x, y: x.map((r) => r[0]!) };
  });
  const m = fit(1, ['good', 'noise'], groups, { iterations: 200 });
  assert.ok(m.weights[0]! > 0.5, JSON.stringify(m.weights));
  assert.ok(Math.abs(m.weights[1]!) < m.weights[0]! / 4, JSON.stringify(m.weights));
  const cands = [[0.1, 0.9], [0.9, 0.1], [0.5, 0.5]].map((features, i) => ({ features, turn: { turnId: `t${i}` } }) as unknown as Candidate);
  assert.deepEqual(rerank(cands, m).map((r) => r.c.turn.turnId), ['t1', 't2', 't0']);
});

test('the shipped reranker model is what scripts/train-reranker.ts trains (--check)', { ...skipUnlessSharedData, timeout: 900_000 }, async () => {
  const script = fileURLToPath(new URL('../../../scripts/train-reranker.ts', import.meta.url));
  const out = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(process.execPath, ['--import', 'tsx', script, '--check'], { timeout: 900_000, maxBuffer: 1 << 24 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
  assert.equal(out.code, 0, out.stderr || out.stdout);
  assert.match(out.stdout, /reranker\.json is what this script trains/);
  assert.match(out.stdout, /picks the best of the top 10/);
});

test('a name after "to" is what is asked about, not a verb ("move to China" is answered from the turn on China); "your advice" is not a topic', async () => {
  for (const [message, name] of [['Would you ever move to China?', 'China'], ['Would you talk to Putin?', 'Putin'], ['What would you say to investors at Sequoia?', 'Sequoia']] as const) {
    assert.ok(understand(message, []).phrases.some((p) => p.text === name), `${message}: ${JSON.stringify(understand(message, []).phrases)}`);
  }
  // A noun that asks for the person's say ("your advice", "your opinion") is not the topic when the message names another.
  assert.deepEqual(understand("What's your advice for someone who can't sleep?", []).phrases.map((p) => p.text), ['sleep']);
  assert.deepEqual(understand("What's your opinion on tariffs?", []).phrases.map((p) => p.text), ['tariffs']);
  assert.deepEqual(understand('What is your advice?', []).phrases.map((p) => p.text), ['advice']);
  // "move" in two turns, China in one: the verb must not outweigh the name.
  const mover: MemoryTurn[] = [
    turn('team', 2, 'I think the team is everything. You hire people who are better than you and then you get out of their way.', 'How do you run the company?'),
    turn('move-fast', 12, 'We move fast and we break things, and then we move on to the next thing before anyone notices.', 'How do you run the team?'),
    turn('rockets', 20, 'Rockets are hard. Most of the cost is in throwing the rocket away, so reusability is the whole game for us.', 'Why reusable rockets?'),
    turn('move-left', 30, 'The implant lets a patient move a cursor, or move their left hand again, just by thinking about it.', 'What can the device do?'),
    turn('ai', 40, 'Artificial intelligence is the most powerful technology we have built, and it needs some oversight, like any dangerous thing.', 'Are you worried about AI?'),
    turn('china', 50, 'I have spent a lot of time in China and met the leadership many times. The number of smart, hardworking people there is incredible, and I would not bet against them.', 'What do people get wrong about China?'),
    turn('cars', 60, 'Electric cars were always going to win. The question was only how many years it would take and who would build them.', 'What about electric cars?'),
    turn('work', 70, 'I work most of the week, and I sleep at the factory when a line is stuck. That is not a lifestyle I would recommend.', 'How much do you work?'),
  ];
  const r = await askOf(mover, 'Would you ever move to China?');
  assert.deepEqual(r.evidence.map((e) => e.turnId), ['china'], r.text);
});

test('"Who are you?" without a self-description in memory: not a note "I wrote down", and never an empty reply', async () => {
  const talks: MemoryTurn[] = [
    turn('takeaways', 2, "I'm literally just going to give you these three takeaways I wrote down.", 'What should people remember?'),
    turn('prompts', 10, 'Few-shot prompting is still the technique I would teach first, with two or three examples of exactly what you want.', 'What would you teach first?'),
  ];
  const r = await askOf(talks, 'Who are you?');
  assert.deepEqual(r.evidence, [], r.text);
  assert.match(r.text, /^I('m| am) Dana Reyes\.$/);
  const withTopics = await askOf(talks, 'Who are you?', { ...persona, topics: [{ label: 'prompting', keywords: ['prompt'] }] });
  assert.match(withTopics.text, /talked about most is prompting|spoken about most is prompting/);
});
