import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyseTurns, type AnalysisTurn, type KeyTopicResult } from '../../src/analysis/index.ts';
import { debate, lenny, lex, transcriptTurns } from './transcripts.ts';

const topicsOf = (text: string): KeyTopicResult[] =>
  analyseTurns([
    { turnId: 'q', speaker: 'Host Person', text: 'Tell me about it.', startMs: 0, isMind: false },
    { turnId: 'a', speaker: 'Ann Lee', text, startMs: 1000, isMind: true },
  ]).keyTopics;

const words = (topics: KeyTopicResult[]): string[] => topics.flatMap((t) => [t.label, ...t.keywords]);

test('names and compounds stay whole; a phrase mostly said inside a longer one is the longer one', () => {
  const topics = topicsOf(
    [
      'The United States has to lead, and the United States Senate must act on comprehensive immigration reform.',
      'I voted for comprehensive immigration reform twice, because comprehensive immigration reform secures the border.',
      'The Supreme Court struck down the Arizona law, and the Supreme Court was right about the Arizona law.',
      'We went after bin Laden and we got bin Laden in Pakistan.',
      'In the Middle East we need partners, and the Middle East needs stability.',
      'It is super important to understand the trade-offs, and the trade-offs are real.',
      'The United States Senate will take up the Supreme Court nomination next week.',
      'There are trade-offs in Pakistan too, and bin Laden hid there for years.',
    ].join(' '),
  );
  const all = words(topics);
  for (const whole of ['bin Laden', 'Supreme Court', 'trade-offs', 'comprehensive immigration reform'])
    assert.ok(all.includes(whole), `"${whole}" missing from ${JSON.stringify(all)}`);
  for (const fragment of ['United', 'States', 'Supreme', 'Court', 'bin', 'Laden', 'Middle', 'East', 'trade', 'offs', 'comprehensive immigration', 'immigration reform', 'super'])
    assert.ok(!all.some((w) => w.toLowerCase() === fragment.toLowerCase()), `fragment or filler "${fragment}" is a topic word: ${JSON.stringify(all)}`);
  for (const t of topics)
    for (const e of t.evidence) assert.ok([t.label, ...t.keywords].some((k) => e.quote.includes(k)), `evidence of ${t.label}: "${e.quote}"`);
});

test('generic words and intensifiers never label a topic; case is kept for proper nouns', () => {
  const topics = topicsOf(
    [
      'The data is super clear about the Arizona law.',
      'Companies hate the Arizona law, and the data shows the model works.',
      'My product is a feature of the Arizona law debate, honestly.',
      'The border patrol agents told me the border patrol needs more agents.',
      'Every border patrol station in Arizona is understaffed.',
    ].join(' '),
  );
  const all = words(topics);
  for (const generic of ['data', 'super', 'companies', 'model', 'product', 'feature'])
    assert.ok(!all.some((w) => w.toLowerCase() === generic), `"${generic}" is a topic word: ${JSON.stringify(all)}`);
  assert.ok(all.includes('Arizona law'), JSON.stringify(all));
  assert.ok(!all.includes('arizona law'));
});

test('a few hundred words still give three topics when there are three subjects', async () => {
  const cases: [string, string][] = [
    [lex('429-paul-rosolie.txt'), 'Paul Rosolie'],
    [lex('400-elon-musk.txt'), 'Elon Musk'],
    [lex('393-andrew-huberman.txt'), 'Andrew Huberman'],
    [debate('2016-09-26'), 'Donald J Trump'],
    [lenny('jen-abel'), 'Jen Abel'],
  ];
  for (const [file, speaker] of cases) {
    const turns = await transcriptTurns(file, speaker);
    // The mind's first turns up to ~350 words, with the other speakers' turns around them.
    const picked: AnalysisTurn[] = [];
    let n = 0;
    for (const t of turns) {
      const w = t.text.split(/\s+/).length;
      if (t.isMind && n + w > 350) break;
      if (t.isMind) n += w;
      picked.push(t);
    }
    if (n < 200) continue; // the first answer alone is longer than the sample
    const topics = analyseTurns(picked).keyTopics;
    assert.ok(topics.length >= 3, `${speaker}, ${n} words: ${topics.length} topics (${topics.map((t) => t.label).join('; ')})`);
    for (const t of topics) assert.ok(t.share > 0 && t.evidence.length > 0, `${speaker}: topic ${t.label} is empty`);
  }
});

test('related topics are one topic: a shared head word or the same chunks', async () => {
  // Obama, first 2012 debate: "small businesses", "tax breaks" and "tax plan" were three topics.
  const topics = analyseTurns(await transcriptTurns(debate('2012-10-03'), 'Barack H Obama')).keyTopics;
  const taxTopics = topics.filter((t) => /\btax/i.test(t.label));
  assert.equal(taxTopics.length, 1, `several tax topics: ${topics.map((t) => t.label).join('; ')}`);
  // Paul Rosolie #429: the Amazon, its rainforest and its forest are one subject.
  const rosolie = analyseTurns(await transcriptTurns(lex('429-paul-rosolie.txt'), 'Paul Rosolie')).keyTopics;
  const forest = rosolie.filter((t) => [t.label, ...t.keywords].some((k) => /\b(amazon|rainforest|forest)\b/i.test(k)));
  assert.equal(forest.length, 1, forest.map((t) => `${t.label} [${t.keywords.join(', ')}]`).join('; '));
});
