import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyseTurns, type AnalysisTurn, type KeyTopicResult } from '../../../src/lib/analysis/index.ts';
import { tokenize } from '../../../src/lib/analysis/nlp.ts';
import { prepareTurns } from '../../../src/lib/analysis/prepare.ts';
import { chooseLabel, indexLabels, labelUses, readerTopicFailure, specificity, type LabelCandidate } from '../../../src/lib/analysis/topic-labels.ts';
import { debate, lenny, lex, transcriptTurns } from './transcripts.ts';
import { skipUnlessSharedData } from '../../support/shared-data.ts';

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

test('a few hundred words still give three topics when there are three subjects', skipUnlessSharedData, async () => {
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

test('related topics are one topic: a shared head word or the same chunks', skipUnlessSharedData, async () => {
  // Obama, first 2012 debate: "small businesses", "tax breaks" and "tax plan" were three topics.
  const topics = analyseTurns(await transcriptTurns(debate('2012-10-03'), 'Barack H Obama')).keyTopics;
  const taxTopics = topics.filter((t) => /\btax/i.test(t.label));
  assert.equal(taxTopics.length, 1, `several tax topics: ${topics.map((t) => t.label).join('; ')}`);
  // Paul Rosolie #429: the Amazon, its rainforest and its forest are one subject.
  const rosolie = analyseTurns(await transcriptTurns(lex('429-paul-rosolie.txt'), 'Paul Rosolie')).keyTopics;
  const forest = rosolie.filter((t) => [t.label, ...t.keywords].some((k) => /\b(amazon|rainforest|forest)\b/i.test(k)));
  assert.equal(forest.length, 1, forest.map((t) => `${t.label} [${t.keywords.join(', ')}]`).join('; '));
});

/** A topic member as the label choice sees it (weight = centrality, passages = the topic's passages that say it). */
const member = (surface: string, count: number, weight: number, passages: number, lemmas = surface.toLowerCase().split(/[\s-]+/)): LabelCandidate => ({ surface, lemmas, count, weight, passages });

test('the label is the most specific member that represents the topic, not a lone broad word', () => {
  const label = (members: LabelCandidate[]): string => chooseLabel(members).surface;
  // Obama, 2012-10-03 (counts from the debate): "insurance" is mostly said inside phrases
  // ("insurance companies", "health insurance"); Medicare is said more often on its own.
  assert.equal(
    label([member('insurance', 25, 215, 15), member('Medicare', 19, 165, 11), member('insurance companies', 9, 99, 6), member('health care', 11, 82, 8), member('health insurance', 6, 52, 5)]),
    'Medicare',
  );
  // A subject word keeps the label over phrases that are only part of it and names beside it.
  assert.equal(label([member('tax', 34, 327, 23), member('middle-class', 19, 147, 12), member('tax cuts', 8, 105, 7), member('tax breaks', 5, 61, 5)]), 'tax');
  assert.equal(label([member('economy', 16, 137, 9), member('China', 12, 75, 6), member('strong economy', 2, 25, 2)]), 'economy');
  // A phrase that is most of its word's uses is the subject ("spider monkey").
  assert.equal(label([member('monkey', 38, 100, 19), member('spider monkey', 17, 68, 12)]), 'spider monkey');
  // Broad words give way to a specific member said in a good part of their passages.
  assert.equal(label([member('reforms', 5, 48, 4), member('Wall Street', 6, 33, 2)]), 'Wall Street');
  assert.equal(label([member('government', 33, 100, 18), member('federal government', 9, 49, 8), member('state', 13, 40, 9)]), 'federal government');
  assert.equal(label([member('budget', 16, 124, 9), member('military', 11, 86, 7), member('balanced budget', 6, 76, 5)]), 'balanced budget');
  // A vague adjective does not make a phrase specific; a broad word with nothing better stays.
  assert.equal(label([member('role', 9, 50, 6), member('important role', 4, 45, 4)]), 'role');
  assert.equal(label([member('budget', 8, 64, 5), member('choices', 5, 19, 3)]), 'budget');
  assert.equal(specificity({ lemmas: ['important', 'role'], surface: 'important role' }), 'vague');
  assert.equal(specificity({ lemmas: ['ai'], surface: 'AI' }), 'specific');
});

test('Obama, first 2012 debate: health care is named as such, and Wall Street is not grouped with teachers', skipUnlessSharedData, async () => {
  const topics = analyseTurns(await transcriptTurns(debate('2012-10-03'), 'Barack H Obama')).keyTopics;
  const labels = topics.map((t) => t.label);
  assert.ok(labels.some((l) => /health care|medicare|obamacare/i.test(l)), labels.join('; '));
  // The audit found these lone words as labels, with "Medicare", "Wall Street" and "federal government" among their keywords.
  for (const generic of ['insurance', 'revenue', 'reforms', 'government']) assert.ok(!labels.includes(generic), `"${generic}" labels a topic: ${labels.join('; ')}`);
  // "reforms" chained Wall Street reform to education reform (Race to the Top, math teachers).
  const wallStreet = topics.find((t) => [t.label, ...t.keywords].includes('Wall Street'));
  assert.ok(wallStreet, labels.join('; '));
  assert.ok(!wallStreet.keywords.some((k) => /teachers|math|race/i.test(k)), `${wallStreet.label}: ${wallStreet.keywords.join(', ')}`);
});

test('a compound led by a number is a measure, not a topic ("four-year", "two-minute")', () => {
  const topics = topicsOf(
    [
      'We gave every graduate a four-year scholarship, and the four-year scholarship changed lives in Massachusetts.',
      'Four years ago the economy was in crisis, and four years later the economy is still weak.',
      'The two-minute answer is not enough, but in two minutes I can tell you about the economy.',
      'The scholarship program in Massachusetts made schools better, and the schools in Massachusetts are first.',
    ].join(' '),
  );
  const all = words(topics);
  assert.ok(all.length > 0);
  assert.ok(!all.some((w) => /\b(four|two)\b/i.test(w)), JSON.stringify(all));
});

test('THE RULE: what a reader calls a topic', () => {
  const uses = (said: number, asNoun = said, beforeNoun = 0, insideName = 0) => ({ said, asNoun, beforeNoun, insideName });
  assert.equal(readerTopicFailure('tax', uses(34, 34, 18)), null, 'a noun often used as a modifier is still a subject');
  assert.equal(readerTopicFailure('Medicare', uses(19)), null);
  assert.equal(readerTopicFailure('assault weapons ban', uses(2)), null);
  assert.equal(readerTopicFailure('seal', uses(1)), 'said');
  assert.equal(readerTopicFailure('struggling', uses(19, 0, 18)), 'noun phrase');
  for (const bare of ['post', 'video', 'tweets', 'podcast', 'thing', 'path', 'record', 'data', 'companies'])
    assert.equal(readerTopicFailure(bare, uses(10)), 'names something', bare);
  assert.equal(readerTopicFailure('additional information', uses(3)), 'names something');
  assert.equal(readerTopicFailure('different path', uses(3)), 'names something');
  assert.equal(readerTopicFailure('video game', uses(3)), null, 'a phrase holding a platform noun can name a subject');
  assert.equal(readerTopicFailure('middle-income', uses(9, 9, 9)), 'whole');
  assert.equal(readerTopicFailure('Amendment', uses(7, 7, 0, 7)), 'whole');
  assert.equal(readerTopicFailure('Medicare', uses(19), ['We will protect Medicare for seniors.']), null);
  assert.equal(readerTopicFailure('Medicare', uses(19), ['We will protect it for seniors.']), 'shown');
});

test('label uses are read from the person\'s own words: nouns, modifiers, pieces of names', () => {
  const index = indexLabels([
    tokenize('We protect the Second Amendment. The Second Amendment matters to middle-income Americans, and middle-income families too.'),
    tokenize('Roe v. Wade is settled law. I will defend Roe v. Wade, and tax cuts, and the tax code, and every tax.'),
  ]);
  const amendment = labelUses('Amendment', index);
  assert.deepEqual([amendment.said, amendment.asNoun, amendment.insideName], [2, 2, 2]);
  assert.equal(readerTopicFailure('Amendment', labelUses('Amendment', index)), 'whole');
  assert.equal(readerTopicFailure('Second Amendment', labelUses('Second Amendment', index)), null);
  assert.equal(labelUses('middle-income', index).beforeNoun, 2);
  assert.equal(labelUses('tax', index).said, 3);
  assert.equal(readerTopicFailure('Roe v. Wade', labelUses('Roe v. Wade', index)), null);
});

test('a platform noun never labels a topic; a fragment is named by its whole name', () => {
  const topics = topicsOf(
    [
      'I posted a video about the Second Amendment, and the video got a million views.',
      'The Second Amendment protects the right to bear arms, and the video explained the Second Amendment.',
      'Every video I make about the Second Amendment gets comments, and the video comments are angry.',
      'The Supreme Court upheld the Second Amendment, and I made another video about the Supreme Court.',
      'My next video is about the Supreme Court and the Second Amendment again.',
    ].join(' '),
  );
  const labels = topics.map((t) => t.label);
  assert.ok(labels.length > 0);
  for (const bare of ['video', 'videos', 'Amendment']) assert.ok(!labels.includes(bare), `"${bare}" labels a topic: ${labels.join('; ')}`);
  assert.ok(labels.includes('Second Amendment'), labels.join('; '));
});

test('real transcripts: every topic label passes the rule', skipUnlessSharedData, async () => {
  const cases: [string, string][] = [
    [lex('400-elon-musk.txt'), 'Elon Musk'],
    [debate('2016-10-19'), 'Hillary R Clinton'],
    [debate('2012-10-03'), 'W Mitt Romney'],
    [lenny('sander-schulhoff'), 'Sander Schulhoff'],
  ];
  for (const [file, speaker] of cases) {
    const turns = await transcriptTurns(file, speaker);
    const index = indexLabels(prepareTurns(turns).map((t) => t.tokens));
    const topics = analyseTurns(turns).keyTopics;
    for (const t of topics) {
      const failure = readerTopicFailure(t.label, labelUses(t.label, index), t.evidence.map((e) => e.quote));
      assert.equal(failure, null, `${speaker}: "${t.label}" breaks the rule (${failure})`);
    }
    // Elon Musk was labelled "post" and "video"; Clinton "Amendment" and "Roe".
    for (const bare of ['post', 'video', 'Amendment', 'Roe', 'middle-income']) assert.ok(!topics.some((t) => t.label === bare), `${speaker}: "${bare}"`);
  }
});

test('grouping by meaning: near-synonymous subjects discussed alike are one topic', skipUnlessSharedData, async () => {
  // Andrew Huberman #393: relationships and friendship are one subject of the conversation.
  const topics = analyseTurns(await transcriptTurns(lex('393-andrew-huberman.txt'), 'Andrew Huberman')).keyTopics;
  const related = topics.filter((t) => [t.label, ...t.keywords].some((k) => /^(relationships?|friendships?)$/i.test(k)));
  assert.equal(related.length, 1, related.map((t) => `${t.label} [${t.keywords.join(', ')}]`).join('; '));
});
