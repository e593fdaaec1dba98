import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createExtractiveEngine, EXTRACTIVE_MODEL_ID } from '../../../src/engines/extractive/index.ts';
import type { EngineInput, MemoryTurn, PersonaCard } from '../../../src/engines/types.ts';

const persona: PersonaCard = { name: 'Maria Lopez', traits: [], style: {}, topics: [], findings: [] };

let seq = 0;
function turn(id: string, text: string, context: string | null, date = '2021-06-01'): MemoryTurn {
  return { turnId: id, snapshotId: `snap-${date}`, text, context, startMs: seq * 1000, mindsetDate: new Date(date), seq: seq++ };
}

/** A small memory of a nurse who gardens and runs marathons. */
const memory: MemoryTurn[] = [
  turn(
    'tomatoes',
    "I grow tomatoes every summer. I start the seedlings indoors in March and I don't move them out until the nights stay warm. The trick is watering deeply but rarely, so the roots go down.",
    'What do you do in your garden?',
  ),
  turn(
    'job',
    "I work night shifts at the county hospital. It's exhausting, but I'm proud of it, and the patients at three in the morning are the ones who need someone most.",
    'What do you do for a living?',
  ),
  turn(
    'marathon',
    "I've run four marathons now. Training starts sixteen weeks out with long runs on Sundays. I love running, it makes me so happy, and it clears my head after a night shift.",
    'Tell me about your marathon training.',
  ),
  turn('filler', 'Yeah. Right.', 'Does that make sense?'),
  turn('dog', 'My dog Pepper is a terrier. She barks at every delivery truck and sleeps on my feet.', 'Do you have pets?'),
];

function input(message: string, extra: Partial<EngineInput> = {}): EngineInput {
  return { mindName: 'Maria Lopez', message, history: [], memory, persona, ...extra };
}

const engine = createExtractiveEngine();

test('the engine describes itself as the streaming extractive model', () => {
  assert.equal(engine.id, EXTRACTIVE_MODEL_ID);
  assert.equal(engine.id, 'mindprint-extractive-1');
  assert.equal(engine.engine, 'extractive');
  assert.equal(engine.streams, true);
});

test('the turn about the asked topic wins and the answer is in her own words', async () => {
  const r = await engine.generate(input('How do you grow your tomatoes?'));
  assert.equal(r.evidence[0]?.turnId, 'tomatoes');
  assert.match(r.text, /I grow tomatoes every summer\./);
  assert.doesNotMatch(r.text, /terrier|marathon/);
});

test('a new question finds the old answer through the question it answered', async () => {
  // "living" appears only in the old question, never in what she said.
  const r = await engine.generate(input('So what do you do for a living these days?'));
  assert.equal(r.evidence[0]?.turnId, 'job');
  assert.match(r.text, /night shifts/);
});

test('a follow-up uses the conversation so far', async () => {
  const history = [
    { role: 'user' as const, text: 'Tell me about your marathon training.' },
    { role: 'assistant' as const, text: "I've run four marathons now." },
  ];
  const r = await engine.generate(input('Why do you keep doing it?', { history }));
  assert.equal(r.evidence[0]?.turnId, 'marathon');
  assert.match(r.text, /I love running/, 'asked why, the reason she gives comes first to mind');
  // Without the history the same message has nothing to hold on to.
  const alone = await engine.generate(input('Why do you keep doing it?'));
  assert.equal(alone.evidence.length, 0);
});

test('when nothing relevant is in memory she says so instead of inventing', async () => {
  const r = await engine.generate(input('What is your opinion on cryptocurrency regulation?'));
  assert.deepEqual(r.evidence, []);
  assert.match(r.text, /^I haven't really talked about cryptocurrency/);
  for (const t of memory) for (const sentence of t.text.split(/(?<=\.)\s+/)) assert.ok(!r.text.includes(sentence), `no memory sentence in "${r.text}"`);
  assert.match(r.analysis.thinking, /nothing/i);
  assert.match(r.analysis.feeling, /no evidence/i);
});

test('a person who never uses contractions declines in the same register', async () => {
  const formal = [turn('f1', 'I have always believed that public service is a duty. We owe it to our neighbours.', 'Why did you enter politics?')];
  const r = await engine.generate(input('What do you think about jazz music?', { memory: formal }));
  assert.match(r.text, /^I have not spoken about jazz music, so I will not guess/);
});

test('the same input gives the same result, whatever the order of the candidates', async () => {
  const a = await engine.generate(input('How is your marathon training and your garden going?'));
  const b = await engine.generate(input('How is your marathon training and your garden going?', { memory: [...memory].reverse() }));
  assert.deepEqual(a, b);
});

test('every evidence quote is exact text of the turn it cites, and the answer is made of the quotes', async () => {
  const r = await engine.generate(input('How do you grow your tomatoes? And what were your night shifts at the hospital like?'));
  assert.ok(r.evidence.length > 0, r.text);
  const byId = new Map(memory.map((t) => [t.turnId, t]));
  let rebuilt = r.text;
  for (const e of r.evidence) {
    const source = byId.get(e.turnId);
    assert.ok(source, `evidence cites a memory turn: ${e.turnId}`);
    assert.ok(source.text.includes(e.quote), `"${e.quote}" is a substring of turn ${e.turnId}`);
    assert.equal(e.snapshotId, source.snapshotId);
    assert.equal(e.startMs, source.startMs);
    assert.ok(rebuilt.includes(e.quote), 'the quote is in the answer');
    rebuilt = rebuilt.replace(e.quote, '');
  }
  assert.equal(rebuilt.trim(), '', 'nothing in the answer beyond the quoted sentences');
});

test('streamed pieces arrive in order and add up to the final text', async () => {
  const pieces: string[] = [];
  const r = await engine.generate(input('How do you grow your tomatoes?'), (d) => pieces.push(d));
  assert.ok(pieces.length > 5, 'word-sized pieces');
  assert.equal(pieces.join(''), r.text);
});

test('an aborted signal rejects before any work, and aborting mid-stream stops the stream', async () => {
  const before = new AbortController();
  before.abort();
  await assert.rejects(engine.generate(input('How do you grow your tomatoes?', { signal: before.signal })), { name: 'AbortError' });

  const during = new AbortController();
  const pieces: string[] = [];
  await assert.rejects(
    engine.generate(input('How do you grow your tomatoes?', { signal: during.signal }), (d) => {
      pieces.push(d);
      if (pieces.length === 2) during.abort();
    }),
    { name: 'AbortError' },
  );
  assert.equal(pieces.length, 2, 'no piece after the abort');
});

test('the newer of two equally relevant turns wins', async () => {
  const moves = [turn('boston', 'I live in Boston, by the old harbor.', null, '2015-01-01'), turn('denver', 'I live in Denver, by the big mountains.', null, '2020-01-01')];
  const r = await engine.generate(input('Where do you live?', { memory: moves }));
  assert.equal(r.evidence[0]?.turnId, 'denver');
});

test('the same thing said twice is used once', async () => {
  const twice = [
    turn('first', 'I grow tomatoes every summer in the back garden.', 'What do you grow?', '2019-01-01'),
    turn('again', 'I grow tomatoes every summer in the back garden.', 'What do you grow?', '2020-01-01'),
    turn('other', 'Basil grows well next to tomatoes, I find.', null, '2018-01-01'),
  ];
  const r = await engine.generate(input('What do you grow in the garden?', { memory: twice }));
  assert.equal(r.evidence.filter((e) => e.quote.startsWith('I grow tomatoes')).length, 1);
  assert.equal((r.text.match(/I grow tomatoes/g) ?? []).length, 1);
});

test('the answer keeps to her usual length', async () => {
  const long = [
    turn(
      'long',
      'I grow tomatoes every summer. The seedlings start indoors in March. Watering is deep but rare. Tomatoes need full sun all day. I feed them compost in June. Pruning the suckers keeps tomatoes strong. I pick tomatoes when they blush. Heirloom tomatoes split in the rain.',
      'How do you grow tomatoes?',
    ),
  ];
  const short = await engine.generate(input('How do you grow tomatoes?', { memory: long, persona: { ...persona, style: { wordsPerTurn: 10 } } }));
  const wordsOf = (s: string) => s.split(/\s+/).length;
  // Her usual 10 words, blended with the 46 of her answer to this very question.
  assert.ok(wordsOf(short.text) <= 25, `short: ${short.text}`);
  const longer = await engine.generate(input('How do you grow tomatoes?', { memory: long, persona: { ...persona, style: { wordsPerTurn: 60 } } }));
  assert.ok(wordsOf(longer.text) > wordsOf(short.text) * 1.5, `longer: ${longer.text}`);
  // Trimmed to what is relevant: the sentences naming tomatoes come first to mind.
  assert.match(short.text, /tomato/i);
});

test('the analysis reads from the evidence and the persona', async () => {
  const withFindings: PersonaCard = {
    ...persona,
    style: { wordsPerTurn: 45, questionRate: 0.05 },
    findings: [
      { kind: 'value', statement: 'Running marathons is how she copes with the stress of hospital night shifts.', quote: 'it clears my head after a night shift' },
      { kind: 'behaviour', statement: 'Trains for marathons with long runs every Sunday.', quote: 'long runs on Sundays' },
      { kind: 'value', statement: 'Loves her dog.', quote: 'My dog Pepper' },
    ],
  };
  const r = await engine.generate(input('Why do you run marathons?', { persona: withFindings }));
  assert.equal(r.evidence[0]?.turnId, 'marathon');
  assert.match(r.analysis.thinking, /marathon/);
  assert.match(r.analysis.thinking, /copes with the stress/, 'related finding');
  assert.doesNotMatch(r.analysis.thinking, /dog/, 'unrelated finding left out');
  assert.match(r.analysis.feeling, /^Positive/);
  assert.match(r.analysis.feeling, /joy/);
  assert.match(r.analysis.feeling, /"love"|"happy"/);
  // The gist, in her words, not a description of the method.
  const gist = /^Main point on marathons: "(.*)"\.?$/.exec(r.analysis.saying);
  assert.ok(gist, r.analysis.saying);
  assert.ok(r.evidence.some((e) => e.quote.includes(gist[1]!.replace(/ …$/, ''))), 'the gist is one of the quoted sentences');
  assert.match(r.analysis.acting, /long runs every Sunday/, 'a behaviour finding on the topic asked about');
  assert.doesNotMatch(r.analysis.acting, /45 words/, 'not a style line that would be the same for every question');
});

test('the analysis line reads as a person would say it: third person, no counting words, no “in terms of”', async () => {
  const routine: MemoryTurn[] = [
    turn(
      'routine',
      'My morning routine starts with lifting. I lift three days a week and the training takes an hour. Lifting first, then training drills, then three cups of coffee. Training is the part I never skip.',
      'What is your morning routine?',
    ),
  ];
  const r = await engine.generate(input('What is your morning routine?', { memory: routine }));
  assert.doesNotMatch(r.analysis.thinking, /in terms of|\bmy morning routine\b|“three”/, r.analysis.thinking);
  assert.match(r.analysis.thinking, /^(?:When they talk about their morning routine, they keep bringing up “\w+” and “\w+”|.*their morning routine)/, r.analysis.thinking);
  assert.doesNotMatch(r.analysis.saying, /\bmy morning routine\b/, r.analysis.saying);
});
